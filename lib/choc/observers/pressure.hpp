// Pressure from the collision virial (docs/PHYSICS.md), with a block-average error bar.
//
// One block of the measured phase holds its collision virial W = sum r_ij . dp_i and its
// kinetic energy integral K = integral KE dt. Since N kT t = (2/d) K,
//     Z = 1 + W / (d N kT t) = 1 + W / (2 K).
#pragma once

#include "choc/observers/standard_error.hpp"

#include <cmath>

#include <optional>
#include <vector>

namespace choc {

// At a block edge, the totals from the phase's start; one block, their increments. Under
// sliding boundaries also the shear moment M, the drift's kinetic integral and the time
// (sliding_shear.hpp).
struct VirialBlock {
    double virial, kinetic;
    double shear = 0.0, drift = 0.0, time = 0.0;
};

// Z over the whole measured phase, 1 + W / (2 K) with the totals, and its block-average
// standard error. Z is the K-weighted mean of the block values Z_b = 1 + W_b / (2 K_b)
// (blocks differ in length when they end at collision counts or at an interrupt); blocks
// long against the correlation time are independent. Absent without kinetic energy or
// collisions.
inline std::optional<Estimate> compressibility(const std::vector<VirialBlock>& blocks) {
    double virial = 0.0, kinetic = 0.0;
    for (const auto& b : blocks) virial += b.virial, kinetic += b.kinetic;
    if (kinetic <= 0.0 || virial <= 0.0) return std::nullopt;
    std::vector<double> z, w;
    for (const auto& b : blocks) {
        z.push_back(1.0 + b.virial / (2.0 * b.kinetic));
        w.push_back(b.kinetic);
    }
    Estimate e = weighted_mean(z, w);
    e.mean = 1.0 + virial / (2.0 * kinetic); // the same number, without the round-off of a sum
    return e;
}

// Running Z = 1 + W / (2 K) from the totals so far; NaN before any kinetic energy.
inline double running_z(double virial, double kinetic) {
    return kinetic > 0.0 ? 1.0 + virial / (2.0 * kinetic) : std::nan("");
}

} // namespace choc
