// Particles at rest under gravity (docs/PHYSICS.md, "Particles at rest"; EngineSettings::
// rest_speed): the rule that decides when a particle is put to rest and what holds it.
//
// Under gravity an inelastic particle that lands on its supports makes ever smaller
// bounces, an infinite sequence in finite time (inelastic collapse; with the TC model,
// elastic micro-bounces for ever). In the limit it lies still, held by its contacts. The
// rest model takes that limit at once: after a collision that leaves a particle slower
// than `speed`, when the contacts within `reach` of it can hold it against gravity, it is
// put to rest there (velocity zero, no flight, no events of its own) and its kinetic
// energy, at most m speed² / 2, is booked as lost. It is woken by an impact faster than
// `speed`, or when one of the particles it lies on is woken; a slower impact meets it as
// a fixed obstacle.
//
// What holds a particle: contact forces are normal and push (smooth particles, no
// friction), so supports with unit normals n_k (from each support towards the particle)
// hold it when
//     -g = sum_k lambda_k n_k  with every lambda_k >= 0,
// that is, -g lies in the cone of the normals. By Caratheodory's theorem a vector in the
// cone of m vectors in D dimensions lies in the cone of at most D of them, so it is enough
// to try every single normal, pair and (3D) triple: at most C(m, 3) small solves, for the
// dozen contacts a particle has, on an event that is rare (a slow collision).
#pragma once

#include "choc/kernel/particles.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace choc {

// Whether two independent unit normals hold a particle against gravity (up = -g / |g|):
// up's part in their plane is la n_a + lb n_b with la, lb >= 0 and, in 3D, its part out
// of their plane is within rest_balance_tolerance. With w = n_a x n_b the least-squares
// coefficients are, by the Binet-Cauchy identity,
//     la = w . (up x n_b) / |w|^2,   lb = w . (n_a x up) / |w|^2   (in 2D x is a scalar),
// the same as solving [1 c; c 1] lambda = (n_a.up, n_b.up) with c = n_a.n_b, but without
// forming 1 - c^2, which loses its digits when n_a and n_b are nearly opposite: a disc
// wedged in a row on the floor between two at rest, its normals 4e-4 rad from opposite
// (la = lb = 2450), was refused by 1 - c^2 (relative error 2.6e-9, a residual of 2.6e-9
// against the tolerance 1e-9), and the row bounced in one instant for ever (the 2D
// hourglass, seed 4, t = 26; issue 40).
template <int D>
bool pair_holds(const Vec<D>& na, const Vec<D>& nb, const Vec<D>& up) {
    if constexpr (D == 2) {
        const auto wedge = [](const Vec<2>& x, const Vec<2>& y) {
            return x[0] * y[1] - x[1] * y[0];
        };
        const double w = wedge(na, nb);
        if (w * w < rest_independence) return false; // (nearly) parallel: the singles
        const double la = wedge(up, nb) / w, lb = wedge(na, up) / w;
        return la >= 0.0 && lb >= 0.0;
    } else {
        const Vec<3> w = cross(na, nb);
        const double det = norm2(w);
        if (det < rest_independence) return false;
        const double la = dot(w, cross(up, nb)) / det, lb = dot(w, cross(na, up)) / det;
        return la >= 0.0 && lb >= 0.0 &&
               std::abs(dot(up, w)) <= rest_balance_tolerance * std::sqrt(det);
    }
}

// Whether contacts with these unit normals hold a particle against gravity g (g != 0):
// -g in their cone. A single normal must point against g to within rest_balance_tolerance
// (the part of g it leaves unbalanced, relative to |g|: a particle on a slope slides);
// two or three independent ones hold it when -g is a combination of them with
// coefficients >= 0 (two in 3D: to within the same tolerance out of their plane).
template <int D>
bool holds_against_gravity(const std::vector<Vec<D>>& normals, const Vec<D>& g) {
    const Vec<D> up = g * (-1.0 / norm(g));
    const std::size_t m = normals.size();
    const double tol = rest_balance_tolerance;
    for (std::size_t a = 0; a < m; ++a) {
        const double c = dot(normals[a], up);
        if (c > 0.0 && norm(up - normals[a] * c) <= tol) return true;
    }
    for (std::size_t a = 0; a < m; ++a)
        for (std::size_t b = a + 1; b < m; ++b)
            if (pair_holds(normals[a], normals[b], up)) return true;
    if constexpr (D == 3) {
        for (std::size_t a = 0; a < m; ++a)
            for (std::size_t b = a + 1; b < m; ++b)
                for (std::size_t c = b + 1; c < m; ++c) {
                    // Cramer's rule on [n_a n_b n_c] lambda = up
                    const Vec<D>&na = normals[a], &nb = normals[b], &nc = normals[c];
                    const double det = dot(na, cross(nb, nc));
                    if (std::abs(det) < rest_independence) continue; // coplanar: the pairs
                    const double la = dot(up, cross(nb, nc)) / det;
                    const double lb = dot(na, cross(up, nc)) / det;
                    const double lc = dot(na, cross(nb, up)) / det;
                    if (la >= 0.0 && lb >= 0.0 && lc >= 0.0) return true;
                }
    }
    return false;
}

// The model's two numbers: below `speed` after a collision a held particle is put to rest,
// and contacts within `reach` of contact (a gap, a length) count as holding it. A particle
// moving at `speed` can rise by speed² / (2 |g|) against gravity, and its bounces among
// its supports span gaps of that size: reach is twice that, so that a particle settling
// into a pocket finds its other supports in reach, and never less than the round-off of
// a contact (`floor`, a length).
//
// An impact wakes a particle at rest when it is faster than anything the model's own
// settling makes: a particle left slower than `speed` by its last collision, then falling
// through at most the reach (a particle woken with velocity zero falls at most that far to
// the support that held it) arrives at most at
//     wake = sqrt(speed² + 2 |g| reach)   (sqrt 3 speed with the reach above).
// With `speed` as the threshold, a settled pile woke itself for ever: a particle woken up
// to reach above its support fell onto the particles at rest below at up to sqrt 2 speed,
// woke them and what lay on them, which fell in turn (the 2D hourglass, rest_speed 0.01,
// TC: 320,000 rests and as many wakes from t = 38.4 to 38.6, each particle at rest for a
// median of 1e-6, the waking impacts at a median of 0.0134 (sqrt 2 speed: 0.0141); with
// this threshold that stretch took 2 s instead of 18; issue 40).
struct RestRule {
    double speed = 0.0; // 0: off
    double reach = 0.0;
    double wake = 0.0;

    RestRule() = default;
    RestRule(double rest_speed, double gravity, double floor)
        : speed(rest_speed), reach(std::max(rest_speed * rest_speed / gravity, floor)),
          wake(std::sqrt(rest_speed * rest_speed + 2.0 * gravity * reach)) {}
    bool on() const { return speed > 0.0; }
    // Slow enough to be put to rest (v: the particle's velocity after its collision).
    template <int D>
    bool slow(const Vec<D>& v) const {
        return norm2(v) < speed * speed;
    }
    // Slower than wake speed: a particle settling among others at rest (meet_resting).
    template <int D>
    bool settling(const Vec<D>& v) const {
        return norm2(v) < wake * wake;
    }
    // An impact at normal approach speed u on a particle at rest wakes it.
    bool wakes(double u) const { return u >= wake; }
};

} // namespace choc
