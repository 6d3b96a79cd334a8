// Kinetic energy and temperature, computed in one place: ½ m v² of a particle, its sum
// over a configuration, and kT = 2 K / (d N) from equipartition (K = d N kT / 2 for N
// particles in d dimensions, docs/PHYSICS.md). The engine's running energies, the summary,
// the time series and the velocity statistics all go through these.
#pragma once

#include "choc/kernel/particles.hpp"
#include "choc/kernel/vec.hpp"

#include <cstdint>
#include <vector>

namespace choc {

// ½ m v² of one particle of mass m moving at v.
template <int D>
double kinetic_energy(double mass, const Vec<D>& v) {
    return 0.5 * mass * norm2(v);
}

// Σ ½ m v² over the particles' stored velocities, summed in index order: the order fixes
// the round-off, so a run started from a frame reproduces the summary's sums bit for bit.
template <int D>
double kinetic_energy(const Particles<D>& p) {
    double k = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) k += kinetic_energy(p.mass(i), p.state[i].v);
    return k;
}

// Σ ½ m v² per species at local time `now`, each particle's velocity from its flight
// under `motion` (the engines' tallies start from it), summed in index order.
template <int D, class M>
std::vector<double> kinetic_per_species(const Particles<D>& p, const M& motion, double now) {
    std::vector<double> k(p.table.size(), 0.0);
    for (std::uint32_t i = 0; i < p.size(); ++i)
        k[p.state[i].species] += kinetic_energy(p.mass(i), motion.velocity(p.state[i], now));
    return k;
}

// Σ ½ m v² of species s at local time `now`, in index order (the engines' kinetic(s)
// under a field, whose running per-species sums change along every flight).
template <int D, class M>
double species_kinetic(const Particles<D>& p, const M& motion, double now, std::uint32_t s) {
    double k = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i)
        if (p.state[i].species == s)
            k += kinetic_energy(p.mass(i), motion.velocity(p.state[i], now));
    return k;
}

// kT of `count` particles in `dimension` dimensions with kinetic energy K: 2 K / (d N).
inline double temperature(double kinetic, double count, int dimension) {
    return 2.0 * kinetic / (dimension * count);
}

} // namespace choc
