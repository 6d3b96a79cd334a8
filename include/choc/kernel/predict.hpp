// Exact event times for free flight (straight lines between events).
// Every function returns a time *interval* from the moment its inputs describe, never
// negative; `never` when the event does not happen.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"

#include <cmath>
#include <limits>

namespace choc {

inline constexpr double never = std::numeric_limits<double>::infinity();

// Pair collision. r = x_i - x_j (nearest image), v = v_i - v_j, sigma2 = (r_i + r_j)^2.
// Contact when |r + v t| = sigma:  (v.v) t^2 + 2 b t + c = 0  with b = r.v, c = r.r - sigma^2.
// Approaching needs b < 0; a real root needs  disc = b^2 - (v.v) c >= 0. The first root
//     t = (-b - sqrt(disc)) / (v.v)  =  c / (-b + sqrt(disc))
// is taken in the second form, where -b and sqrt(disc) add and nothing cancels.
// c <= 0 with b < 0 is a round-off overlap of a pair that is approaching: it collides now.
//
// `horizon` is the earliest time already scheduled for the particle: a pair that cannot
// beat it is rejected before the square root. Since sqrt(disc) <= -b when c > 0,
// t >= c / (-2b), so c > -2b * horizon rules the pair out.
template <int D>
inline double pair_time(const Vec<D>& r, const Vec<D>& v, double sigma2, double horizon = never) {
    const double b = dot(r, v);
    if (b >= 0.0) return never;
    const double c = norm2(r) - sigma2;
    if (c <= 0.0) return 0.0;
    if (c > -2.0 * b * horizon) return never;
    const double disc = b * b - norm2(v) * c;
    if (disc < 0.0) return never;
    return c / (-b + std::sqrt(disc));
}

// Time until a gap that changes at the constant rate u closes: never if it is not closing,
// now if it is already closed (a round-off overlap).
inline double closing_time(double gap, double u) {
    if (u >= 0.0) return never;
    return gap <= 0.0 ? 0.0 : gap / -u;
}

// Particle of radius `radius` at x with velocity v against a plane wall: the centre's
// distance h = x.n - offset falls at rate u = -v.n; contact when h = radius, after
// (h - radius) / u. h <= radius while moving in is a round-off overlap: hit now.
template <int D>
inline double wall_time(const Wall<D>& wall, const Vec<D>& x, const Vec<D>& v, double radius) {
    return closing_time(wall.distance(x) - radius, dot(v, wall.normal));
}

// Time for coordinate x (velocity u) to reach the plane x = bound ahead of it;
// already past it by round-off means now.
inline double crossing_time(double x, double u, double bound) {
    if (u == 0.0) return never;
    const double dt = (bound - x) / u;
    return dt > 0.0 ? dt : 0.0;
}

} // namespace choc
