// The restitution of the engines' collisions, a part of both engines (docs/ARCHITECTURE.md,
// "The engine's parts"; restitution.hpp): the table of e per pair of species, and the TC
// model's clocks (when each particle last collided, and the TC time in force) with their
// checkpoint fields. It keeps its own state; a collision asks it for its restitution
// (the event-driven engine through its Kernel: the species, the clock, whether the
// instant is plastic; the stepped engine at the collision's time within its step) and
// tells it that its particles collided.
#pragma once

#include "choc/kernel/engine_settings.hpp"
#include "choc/kernel/huge_pages.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/restitution.hpp"

#include <cstdint>
#include <vector>

namespace choc {

template <int D, Motion<D> M>
class TcClocks {
  public:
    // The table of `species` species from the settings, and the clocks of `particles`
    // particles when TC is configured (or the rest model, whose rescue of a stall reads
    // them too: `rest_model`), TC in force from the start if the settings say so.
    // (`owner` names the engine in the table's errors.)
    void set_up(const EngineSettings& settings, std::size_t particles, std::size_t species,
                bool rest_model, const char* owner = "Engine") {
        if (settings.tc > 0.0 || rest_model) {
            last_collision_.assign(particles, -never);
            if (settings.tc_from_start) tc_ = settings.tc;
        }
        table_ = RestitutionTable(settings, species, owner);
    }

    // Switches the TC model on with TC time `tc` (Engine::enable_tc).
    void enable(double tc) { tc_ = tc; }

    // Restitution of a collision now (of the Kernel e): the pair's (or the wall's), or 1
    // under the TC model when either particle collided less than tc ago.
    // With the rest model, an instant of more than long_instant_ events makes its
    // collisions plastic (e = 0, TC or not). Seen: two discs in a row between a wall and a
    // disc held at rest, with no gap between them, passing their speed of 0.12 to and fro
    // at one instant for ever, elastic under TC (the 60-disc box, e = 0.3, seed 7, TC:
    // exit 3). Plastic collisions there halve the speeds at each round, to zero in a few
    // thousand events; a jam that has no room cannot keep its energy, and the loss is
    // booked as the collisions' (docs/PHYSICS.md, "Particles at rest").
    template <class Kernel>
    double pair(const Kernel& e, std::uint32_t i, std::uint32_t j) const {
        if constexpr (M::has_field)
            if (e.plastic_instant()) [[unlikely]]
                return 0.0;
        if (tc_ > 0.0 && (recent(i, e.now()) || recent(j, e.now()))) return 1.0;
        return species(e, i, j);
    }
    // The restitution configured for the species of i and j (collisions.pair or the default).
    template <class Kernel>
    double species(const Kernel& e, std::uint32_t i, std::uint32_t j) const {
        return table_(e.particles().state[i].species, e.particles().state[j].species);
    }
    template <class Kernel>
    double wall(const Kernel& e, std::uint32_t i, std::uint32_t w) const {
        if constexpr (M::has_field)
            if (e.plastic_instant()) [[unlikely]]
                return 0.0;
        if (tc_ > 0.0 && recent(i, e.now())) return 1.0;
        return obstacle_restitution(e.box(), w); // w: an obstacle number (obstacle.hpp)
    }

    // Whether the TC model makes a collision of i at time t elastic: TC is in force and i
    // collided less than tc before t (the stepped engine asks at its collisions' times).
    bool elastic_at(std::uint32_t i, double t) const { return tc_ > 0.0 && recent(i, t); }
    // The restitution configured for species a and b.
    double table(std::uint32_t a, std::uint32_t b) const { return table_(a, b); }

    // The TC clock: kept whenever TC is configured, so it is right when TC switches on.
    void collided(std::uint32_t i, double now) {
        if (!last_collision_.empty()) last_collision_[i] = now;
    }
    // When i last collided (kept whenever TC or the rest model is configured).
    double last_collision(std::uint32_t i) const { return last_collision_[i]; }

    // The clocks kept (one per particle, or none), and their bytes.
    std::size_t clocks() const { return last_collision_.size(); }
    std::size_t bytes() const { return held_bytes(last_collision_); }
    // The particles renumbered (`permute` moves an array into the new order), and the
    // clock's origin moved by `shift` (Engine::renumber, Engine::rebase).
    template <class Permute>
    void renumbered(Permute& permute) {
        if (!last_collision_.empty()) permute(last_collision_);
    }
    void rebase(double shift) {
        for (auto& t : last_collision_) t -= shift;
    }

    // The checkpoint's fields (in the engine's "candidate events" section).
    template <class Archive>
    void fields(Archive& ar) {
        ar(last_collision_, tc_);
    }

  private:
    bool recent(std::uint32_t i, double now) const {
        return within_tc(tc_, now, last_collision_[i]);
    }

    RestitutionTable table_;             // e per pair of species (restitution.hpp)
    std::vector<double> last_collision_; // per particle, when TC is configured
    double tc_ = 0.0;                    // TC time in force (0: off)
};

} // namespace choc
