// Exact event times for free flight (straight lines between events), one pair at a time
// (pair_time) or a batch of them (pair_times).
// Every function returns a time *interval* from the moment its inputs describe, never
// negative; `never` when the event does not happen.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
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

// pair_time for a batch of k relative motions at once, without a branch per pair: the
// engine's scan (Engine::pair_times_batched). Whether a candidate approaches is a coin
// toss the branch predictor loses, so every time is computed alike and the rejected
// ones are masked to `never` -- a loop the compiler vectorises (the build's
// -fno-math-errno and -fno-trapping-math let it keep sqrt and the masks in vector
// registers). Pair m is r[a][m], v[a][m] (axis a) with c[m] = r.r - sigma2 computed by
// the caller. The times are pair_time's to the bit: the same operations in the same order,
// the same comparisons negated (tests/unit/test_predict.cpp checks it).
template <int D, std::size_t N>
[[gnu::always_inline]] inline void pair_times(const std::array<std::array<double, N>, D>& r,
                                              const std::array<std::array<double, N>, D>& v,
                                              const std::array<double, N>& c, double horizon,
                                              std::array<double, N>& dt, int k) {
    for (int m = 0; m < k; ++m) {
        double b = 0.0, vv = 0.0;
        for (int a = 0; a < D; ++a) b += r[a][m] * v[a][m], vv += v[a][m] * v[a][m];
        const double disc = b * b - vv * c[m];
        const double t = c[m] / (-b + std::sqrt(std::max(disc, 0.0))); // masked below
        const double reached = ((c[m] <= -2.0 * b * horizon) & (disc >= 0.0)) ? t : never;
        dt[m] = b < 0.0 ? (c[m] <= 0.0 ? 0.0 : reached) : never;
    }
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
