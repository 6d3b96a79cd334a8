// Exact contact times of a disc with a segment (segment.hpp), for every Motion.
// q is the disc's state now (x, v, time stamp 0), a its radius; times are intervals from
// now, never negative, `never` when there is no contact.
//
// The centre must stay outside the capsule of radius a around the segment. It first
// enters it through one of the capsule's pieces, so the contact time is the least of:
//   - each face: the first time the gap side*h - a falls through zero (h the signed
//     distance to the line), kept only if the centre's projection then lies on the
//     segment. That gap falls through zero at most once per flight (its rate is monotone
//     under every Motion), so a crossing beside the segment rules the face out for good;
//   - each end point p: the first time |x(τ) - p| falls to a. Entering that full circle
//     means entering the capsule, so no candidate is ever too early.
#pragma once

#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/segment.hpp"
#include "choc/kernel/tolerances.hpp"

#include <cmath>
#include <limits>

namespace choc {

template <int D, class Motion>
double face_time(const Motion& motion, const Segment<D>& seg, const ParticleState<D>& q, double a) {
    const double h = seg.height(q.x), u = dot(q.v, seg.normal), acc = motion.along(seg.normal);
    const double s0 = seg.along(q.x);
    const bool over = s0 >= 0.0 && s0 <= seg.length;
    double best = never;
    for (const double side : {1.0, -1.0}) {
        const double gap = side * h - a;
        // A gap at or below zero on the side the disc is on, over the segment, is a round-off
        // overlap: first_contact's rule (approaching: now). Below zero anywhere else, the
        // disc is beside the segment and can only come down onto the face after turning.
        const double t = gap >= 0.0 || (over && side * h >= 0.0)
                             ? motion.first_contact(gap, side * u, side * acc)
                             : motion.fall_after_turn(gap, side * u, side * acc);
        if (t >= best) continue;
        const double s = seg.along(motion.position(q, t));
        if (s >= 0.0 && s <= seg.length) best = t;
    }
    return best;
}

// First time F(τ) = |r(τ)|² − a² falls to zero, r(τ) = x(τ) − p, by steps that are
// certified not to pass a root. On [τ, τ + h] the acceleration r'' = g − γ r' has at most
// its present size A (constant without drag, decaying with it), so |r'| <= V = |r'(τ)| + A h,
// |r| <= R = |r(τ)| + V h and F'' = 2 (|r'|² + r.r'') <= M = 2 (V² + R A). Hence
//     F(τ + η) >= F + F' η − M η²/2   for η in [0, h],
// and no root lies before the larger root η* of that parabola,
//     η* = 2F / (−F' + √(F'² + 2MF))  (F' <= 0),   (F' + √(F'² + 2MF)) / M  (F' > 0).
// If η* >= h the whole trial interval is clear; else step η*. Near a crossing root this
// is Newton's step from the outside (converges quadratically, never overshoots); near a
// grazing minimum it closes in geometrically (factor about 0.6 a step) and either finds F
// at round-off level (a real, grazing contact) or steps over a minimum that the bound
// proves positive (a near miss). `window` bounds the search: the caller looks again then.
template <int D, class Motion>
double end_time_stepped(const Motion& motion, const Vec<D>& p, const ParticleState<D>& q, double a,
                        double window) {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    // Distances within `slack` of contact are round-off: positions carry errors of a few
    // ulp of their size.
    const double slack = 8.0 * eps * (norm(p) + a);
    const double touch = slack * (2.0 * a + slack); // (a + slack)² − a²
    double tau = 0.0;
    double trial = window < never ? window : 1.0;
    for (int k = 0; k < segment_end_steps; ++k) {
        const Vec<D> r = motion.position(q, tau) - p;
        const Vec<D> w = motion.velocity(q, tau);
        double f = norm2(r) - a * a;
        const double df = 2.0 * dot(r, w);
        if (f <= touch && df <= 0.0) return tau; // at contact and not separating
        f = std::max(f, 0.0); // at contact and separating: the bound starts from contact
        const double h = std::min(trial, window - tau);
        if (!(h > 0.0)) return never;
        const double accel = norm(motion.acceleration(w));
        const double speed = norm(w) + accel * h;
        const double m = 2.0 * (speed * speed + (norm(r) + speed * h) * accel);
        const double root = std::sqrt(df * df + 2.0 * m * f);
        const double step = df <= 0.0 ? 2.0 * f / (root - df) : (df + root) / m;
        if (step >= h) {
            tau += h;
            trial = 2.0 * h;
        } else {
            if (tau + step == tau) return tau; // below the resolution of τ: at the contact
            tau += step;
            trial = 2.0 * step; // a tighter bound next time
        }
    }
    return tau; // not reached in practice; a time at or before the contact, never after
}

// End point p: |x(τ) − p| = a. Straight lines, and drag alone (a straight line in
// s(τ)), give the pair quadratic with the point at rest; under gravity it is a quartic in
// τ (with drag not a polynomial at all), found by certified steps within `window`.
template <int D, class Motion>
double end_time(const Motion& motion, const Vec<D>& p, const ParticleState<D>& q, double a,
                double window) {
    if constexpr (!Motion::has_field) {
        return pair_time(q.x - p, q.v, a * a);
    } else {
        if (motion.gravity() == Vec<D>{}) return motion.pair_time(q.x - p, q.v, a * a, never);
        return end_time_stepped(motion, p, q, a, window);
    }
}

} // namespace choc
