// The restitution of a collision, as both engines take it (engine.hpp, step_engine.hpp):
// the one configured for the pair's species (collisions.pair, else collisions.restitution
// for every pair), and the TC model's exception (Luding and McNamara, Granular Matter 1,
// 113, 1998; docs/PHYSICS.md): a particle that collided less than tc ago collides
// elastically, which keeps an inelastic collapse from stopping the clock.
#pragma once

#include "choc/kernel/engine_settings.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace choc {

class RestitutionTable {
  public:
    RestitutionTable() = default;
    // From the settings, for `species` species; `engine` names the engine in the error
    // (std::invalid_argument) when the per-pair table has the wrong size.
    RestitutionTable(const EngineSettings& settings, std::size_t species, const char* engine)
        : species_(species), e_(settings.pair_restitution) {
        if (e_.empty()) e_.assign(species * species, settings.restitution);
        if (e_.size() != species * species)
            throw std::invalid_argument(std::string(engine) +
                                        ": pair_restitution needs one entry per pair");
    }
    // e of a collision of species a with species b.
    double operator()(std::uint32_t a, std::uint32_t b) const { return e_[a * species_ + b]; }

  private:
    std::size_t species_ = 0;
    std::vector<double> e_; // [a * species + b]
};

// The TC model: whether a particle that last collided at `last` is within the TC time `tc`
// of it at time `now` (its collisions then are elastic). tc = 0: the model is off.
inline bool within_tc(double tc, double now, double last) {
    return now - last < tc;
}

} // namespace choc
