// The range of every dimensional number read from an input file (the config, a group
// file, an init.from snapshot), and the one wording of its message.
#pragma once

#include "choc/message_text.hpp"

#include <cmath>
#include <string>

namespace choc {

// Every dimensional number of an input (lengths, masses, temperatures, times, rates,
// gravity, positions, velocities) is 0 or of magnitude within [1e-50, 1e50]. The run
// multiplies and divides such numbers (kinetic energy m v^2 with v^2 = kT / m, reduced
// masses m1 m2 / (m1 + m2), volumes r^D N / phi, g t^2, v t): any product or quotient of up
// to six of them stays within 1e+-300, finite and non-zero in double precision (which ends
// near 1.8e308 and 2.2e-308). Beyond it, masses of 1e155 gave NaN energies and masses of
// 1e-162 a reduced mass of 0 (no collision did anything).
constexpr double min_magnitude = 1e-50, max_magnitude = 1e50;

// 0, or of magnitude within [min_magnitude, max_magnitude].
inline bool within_magnitude(double x) {
    return x == 0 || (std::abs(x) >= min_magnitude && std::abs(x) <= max_magnitude);
}

// "must be of magnitude within [1e-50, 1e+50] ... got X", `values` naming the input's
// numbers ("config values").
inline std::string magnitude_message(const std::string& values, double x) {
    return "must be of magnitude within [" + number_text(min_magnitude) + ", " +
           number_text(max_magnitude) + "] (or 0 where 0 is allowed) so that products of " +
           values + " stay within double precision, got " + number_text(x);
}

} // namespace choc
