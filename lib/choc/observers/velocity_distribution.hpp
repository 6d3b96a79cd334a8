// How far the velocities are from Maxwell–Boltzmann, from one snapshot:
// kurtosis, Kolmogorov–Smirnov distance and Boltzmann's H (docs/PHYSICS.md, "Velocity
// distribution").
//
// Mixtures: in equilibrium every species' velocity components are Gaussian with variance
// kT / m_s, so the mass-scaled velocity w = sqrt(m_s) v has the same distribution,
// Maxwell–Boltzmann with unit mass at kT, for every species. Kurtosis and KS distance
// pool the w of all particles and compare them with that one reference; for a single
// species with m = 1 they are the plain speeds. A mixture out of equipartition pools
// Gaussians of different widths, which shows up as KS > 0 and a larger kurtosis.
#pragma once

#include "choc/kernel/particles.hpp"

#include <cstdint>
#include <vector>

namespace choc {

// Speeds of one snapshot with what the measures need to know about them.
struct SpeedSample {
    int dimension = 3;
    std::vector<double> speed;          // |v_i|
    std::vector<double> vx;             // x component of v_i
    std::vector<std::uint32_t> species; // species index of particle i
    std::vector<double> mass;           // per species
    std::vector<std::uint64_t> count;   // particles per species
};

template <int D>
SpeedSample speed_sample(const Particles<D>& p) {
    SpeedSample s;
    s.dimension = D;
    s.speed.reserve(p.size());
    s.vx.reserve(p.size());
    s.species.reserve(p.size());
    for (const auto& sp : p.table.species) s.mass.push_back(sp.mass);
    s.count.assign(p.table.size(), 0);
    for (const auto& state : p.state) {
        s.speed.push_back(norm(state.v));
        s.vx.push_back(state.v[0]);
        s.species.push_back(state.species);
        ++s.count[state.species];
    }
    return s;
}

struct VelocityStats {
    double temperature = 0.0; // kT = sum_i m_i v_i^2 / (d N)
    double kurtosis = 0.0;    // <w^4> / <w^2>^2: 5/3 (3D), 2 (2D) for Maxwell–Boltzmann
    double ks_distance = 0.0; // sup_w |F_N(w) - F_MB(w; kT)|
    // P(D_N >= ks_distance) for N independent draws from Maxwell–Boltzmann (ks_pvalue.hpp);
    // kT comes from the same speeds, which makes it too large (docs/PHYSICS.md)
    double ks_pvalue = 0.0;
    double H = 0.0; // Boltzmann's H of the mass-scaled velocities (see .cpp)
};

// NaN everywhere when there are no particles or every particle is at rest.
VelocityStats velocity_stats(const SpeedSample& sample);

// kT = sum_i m_i v_i^2 / (d N) of the sample (NaN without particles).
double sample_temperature(const SpeedSample& sample);

// The KS distance of the mass-scaled x velocities sqrt(m_i) v_x,i from the Gaussian of
// variance kT, sup |F_N - Phi(w / sqrt(kT))|; NaN unless kT > 0.
double component_ks_distance(const SpeedSample& sample, double kT);

// Width of the speed shells of H, in units of sqrt(kT) of the mass-scaled speed w.
inline constexpr double h_bin_width = 0.1;

} // namespace choc
