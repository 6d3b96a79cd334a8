// The first contact with the face of a flat finite wall, a segment's (2D) or a triangle's
// (3D), for every Motion: the first time the gap side*h - a to the plane falls through zero
// on either side, kept only if the centre then projects onto the wall. That gap falls through
// zero at most once per flight (its rate is monotone under every Motion), so a crossing
// beside the wall rules the face out for good; the wall's rim (end points, edges) catches
// what comes past it.
#pragma once

#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/tolerances.hpp"

#include <limits>

namespace choc {

// n: the wall's unit normal; h: the centre's signed distance from its plane now;
// over(x): whether x projects onto the wall; front_only: the face on n's side alone (a
// one-sided triangle's).
template <int D, class Motion, class Over>
double flat_face_time(const Motion& motion, const Vec<D>& n, double h, const Over& over,
                      const ParticleState<D>& q, double a, bool front_only = false) {
    const double u = dot(q.v, n), acc = motion.along(n);
    const bool over_now = over(q.x);
    // h carries the round-off of the coordinates it is computed from
    const double round_off =
        contact_round_off_ulps * std::numeric_limits<double>::epsilon() * (norm(q.x) + a);
    double best = never;
    for (const double side : {1.0, -1.0}) {
        if (front_only && side < 0.0) break;
        const double gap = side * h - a;
        // A gap at or below zero on the side the particle is on, over the wall, is a
        // round-off overlap: first_contact's rule (approaching: now). So is one below zero
        // by round-off beside the wall: the centre touches the plane there, and if it comes
        // over the face before the gap falls back through zero, it meets the face there. (As
        // a centre beside the wall, it went on to pass over the edge without meeting the rim,
        // which it only grazed, and fell through the face: scan case 13963152623220796937,
        // a sphere 6.7e-16 inside a ramp's plane just past its end, moving onto it.) Deeper
        // below zero anywhere else, the particle is beside the wall and can only come down
        // onto the face after turning.
        const bool on_side = side * h >= 0.0;
        const double t = gap >= 0.0 || (on_side && (over_now || gap >= -round_off))
                             ? motion.first_contact(gap, side * u, side * acc)
                             : motion.fall_after_turn(gap, side * u, side * acc);
        if (t >= best) continue;
        if (over(motion.position(q, t))) best = t;
    }
    return best;
}

} // namespace choc
