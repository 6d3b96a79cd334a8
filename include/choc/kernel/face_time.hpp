// The first contact with the face of a flat finite wall, a segment's (2D) or a triangle's
// (3D), for every Motion: the first time the gap side*h - a to the plane falls through zero
// on either side, kept only if the centre then projects onto the wall. That gap falls through
// zero at most once per flight (its rate is monotone under every Motion), so a crossing
// beside the wall rules the face out for good; the wall's rim (end points, edges) catches
// what comes past it.
#pragma once

#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"

namespace choc {

// n: the wall's unit normal; h: the centre's signed distance from its plane now;
// over(x): whether x projects onto the wall; front_only: the face on n's side alone (a
// one-sided triangle's).
template <int D, class Motion, class Over>
double flat_face_time(const Motion& motion, const Vec<D>& n, double h, const Over& over,
                      const ParticleState<D>& q, double a, bool front_only = false) {
    const double u = dot(q.v, n), acc = motion.along(n);
    const bool over_now = over(q.x);
    double best = never;
    for (const double side : {1.0, -1.0}) {
        if (front_only && side < 0.0) break;
        const double gap = side * h - a;
        // A gap at or below zero on the side the particle is on, over the wall, is a
        // round-off overlap: first_contact's rule (approaching: now). Below zero anywhere
        // else, the particle is beside the wall and can only come down onto the face after
        // turning.
        const double t = gap >= 0.0 || (over_now && side * h >= 0.0)
                             ? motion.first_contact(gap, side * u, side * acc)
                             : motion.fall_after_turn(gap, side * u, side * acc);
        if (t >= best) continue;
        if (over(motion.position(q, t))) best = t;
    }
    return best;
}

} // namespace choc
