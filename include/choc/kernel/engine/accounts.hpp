// The engine's accounts, a part of the engine (docs/ARCHITECTURE.md, "The engine's parts";
// tally.hpp, flux_tally.hpp, audit.hpp): the tally (the counts, the kinetic energy and its
// time integral per species, the collisions' energy, the walls' heat and momentum), the
// momentum and energy flux integrals when they are kept, and the energy ledger between the
// invariants' checks (the collisions' energy since the last one, the potential energy
// taken back at periodic wraps). It keeps its own state; the engine books into it and
// reads it, and gives it the particles, their flights and the clock where it needs them.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/audit.hpp"
#include "choc/kernel/engine/glides.hpp"
#include "choc/kernel/flux_tally.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tally.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace choc {

template <int D, Motion<D> M>
class Accounts {
  public:
    // --- What they hold -----------------------------------------------------------------

    Tally& tally() { return tally_; }
    const Tally& tally() const { return tally_; }
    // The momentum and energy flux integrals; whether they are kept (a bulk fluid:
    // Engine::fluxes), and keeping them (the engine's set-up).
    FluxTally<D>& flux() { return flux_; }
    bool fluxes_kept() const { return fluxes_; }
    void keep_fluxes(bool on) { fluxes_ = on; }
    const FluxTally<D>* fluxes() const { return fluxes_ ? &flux_ : nullptr; }
    // Their moments G and H at `now`; none unless they are kept.
    std::optional<FluxMoments<D>> flux_moments(double now) const {
        if (!fluxes_) return std::nullopt;
        return flux_.moments(now);
    }
    // The potential energy the ledger takes back for periodic wraps (Engine::wrap).
    double& wrapped_potential() { return wrapped_potential_; }

    // --- The kinetic energy -------------------------------------------------------------

    // Time integral of species s's kinetic energy over the measured phase, up to `now`.
    // Without a field the tally keeps it in O(1); with one, the flights not yet ended (of
    // `particles`, on the flights `glides` gives them under `motion`) are added up here,
    // O(N). Of every species: the sum.
    double kinetic_integral(std::uint32_t s, const Particles<D>& particles,
                            const Glides<D, M>& glides, const M& motion, double now) const {
        if constexpr (!M::has_field) {
            return tally_.kinetic_integral(s, now);
        } else {
            double k = tally_.kinetic_time[s];
            for (std::uint32_t i = 0; i < particles.size(); ++i)
                if (particles.state[i].species == s)
                    k += open_flight_kinetic(particles, i,
                                             glides.flight_motion(particles.state[i], motion), now);
            return k;
        }
    }
    double kinetic_integral(const Particles<D>& particles, const Glides<D, M>& glides,
                            const M& motion, double now) const {
        double k = 0.0;
        for (std::uint32_t s = 0; s < particles.table.size(); ++s)
            k += kinetic_integral(s, particles, glides, motion, now);
        return k;
    }
    // Kinetic energy of species s now.
    double kinetic(std::uint32_t s, const Particles<D>& particles, const M& motion,
                   double now) const {
        if constexpr (!M::has_field) {
            return tally_.kinetic[s];
        } else {
            return species_kinetic(particles, motion, now, s);
        }
    }
    // ∫ KE dt of particle i's flight (on `flight`) from its stamp (or the start of the
    // measured phase, if later) to now. (Straight flights keep it in the tally instead.)
    double open_flight_kinetic(const Particles<D>& particles, std::uint32_t i, const M& flight,
                               double now) const requires M::has_field {
        const auto& p = particles.state[i];
        const double from = std::max(tally_.start - p.t, 0.0), to = now - p.t;
        return to > from ? 0.5 * particles.mass(i) * flight.speed2_integral(p.v, from, to) : 0.0;
    }
    // A collision at now changed species s's kinetic energy by dk. Without a field kinetic
    // energy is constant between collisions and the tally integrates it per species; with
    // one, Engine::advance integrates each flight instead.
    void kinetic_change(std::uint32_t s, double now, double dk) {
        tally_.collision_energy += dk;
        collision_energy_since_check_ += dk;
        if constexpr (!M::has_field) tally_.kinetic_change(s, now, dk);
    }

    // --- The flux integrals -------------------------------------------------------------

    // A particle of mass m and velocity v is about to change it at now: the flux integrals
    // up to now, and its share of the streaming sums out (the caller puts the new one in).
    void flux_leave(double now, double m, const Vec<D>& v) {
        flux_.advance(now);
        flux_.add(m, v, -1.0);
    }

    // --- From zero ----------------------------------------------------------------------

    // The tally from zero at `now` (`kinetic`: each species' kinetic energy now), with a
    // heat and a momentum account per plane wall (`walls` of them).
    void reset_counts(double now, std::vector<double> kinetic, std::size_t walls) {
        tally_.reset(now, std::move(kinetic));
        tally_.wall_heat.assign(walls, 0.0);
        tally_.wall_momentum.assign(3 * walls, 0.0);
    }
    // The flux integrals from zero at now, the streaming sums from the particles.
    void reset_fluxes(const Particles<D>& particles, double now) {
        flux_.reset(now);
        if (!fluxes_) return;
        for (std::uint32_t i = 0; i < particles.size(); ++i)
            flux_.add(particles.mass(i), particles.state[i].v, 1.0);
    }

    // --- The ledger (audit.hpp) ---------------------------------------------------------

    // Energy (kinetic + potential in the field) and momentum of `particles` now, with their
    // round-off scales; the collisions' energy since the last check and the work of drag
    // (`kinetic_integral()`: ∫KE dt so far).
    template <class F>
    Ledger<D> ledger(const Particles<D>& particles, const M& motion, double now,
                     F&& kinetic_integral) const {
        Ledger<D> l = measure_ledger(particles, motion, now, wrapped_potential_,
                                     std::forward<F>(kinetic_integral));
        l.collision_energy = collision_energy_since_check_;
        return l;
    }
    // The ledger `now` against the last check's (check_ledger; `t`: the absolute time),
    // then the next check's start.
    void check(const Ledger<D>& now, bool momentum_conserved, double t) {
        check_ledger(ledger_, now, momentum_conserved, t);
        ledger_ = now;
        collision_energy_since_check_ = 0.0;
    }
    // The ledger from `now` on: the next check's start.
    void restart_ledger(const Ledger<D>& now) {
        ledger_ = now;
        collision_energy_since_check_ = 0.0;
    }

    // --- The checkpoint and maintenance -------------------------------------------------

    template <class Archive>
    void fields(Archive& ar) {
        ar(ledger_, wrapped_potential_, collision_energy_since_check_, tally_, flux_);
    }
    // A restored tally whole, with `species` species and `walls` plane walls, or
    // ArchiveError.
    void check_restored(std::size_t species, std::size_t walls) const {
        check_restored_tally(tally_, species);
        if (tally_.wall_heat.size() != walls || tally_.wall_momentum.size() != 3 * walls)
            throw ArchiveError("the state's wall heat and momentum do not match its walls");
    }
    // The clock's origin moved by `shift` (Engine::rebase).
    void rebase(double shift) {
        for (auto& t : tally_.since) t -= shift;
        flux_.shift(shift);
        tally_.start -= shift;
    }

  private:
    // The ledger at the last check, and the collisions' energy since.
    Ledger<D> ledger_;
    double wrapped_potential_ = 0.0; // taken back from the potential at periodic wraps
    double collision_energy_since_check_ = 0.0;
    Tally tally_;
    FluxTally<D> flux_;
    bool fluxes_ = false; // flux_ is kept (fluxes())
};

} // namespace choc
