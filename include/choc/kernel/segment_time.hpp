// Exact contact times of a disc with a segment (segment.hpp), for every Motion.
// q is the disc's state now (x, v, time stamp 0), a its radius; times are intervals from
// now, never negative, `never` when there is no contact.
//
// The centre must stay outside the capsule of radius a around the segment. It first
// enters it through one of the capsule's pieces, so the contact time is the least of:
//   - each face: the first time the gap side*h - a falls through zero (h the signed
//     distance to the line), kept only if the centre's projection then lies on the
//     segment (face_time.hpp);
//   - each end point p: the first time |x(τ) - p| falls to a. Entering that full circle
//     means entering the capsule, so no candidate is ever too early.
#pragma once

#include "choc/kernel/convex_time.hpp"
#include "choc/kernel/face_time.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/segment.hpp"
#include "choc/kernel/tolerances.hpp"

#include <cmath>
#include <limits>

namespace choc {

template <int D, class Motion>
double face_time(const Motion& motion, const Segment<D>& seg, const ParticleState<D>& q, double a) {
    return flat_face_time(
        motion, seg.normal, seg.height(q.x),
        [&](const Vec<D>& x) {
            const double s = seg.along(x);
            return s >= 0.0 && s <= seg.length;
        },
        q, a);
}

// End point p: |x(τ) − p| = a. Straight lines, and drag alone (a straight line in
// s(τ)), give the pair quadratic with the point at rest; under gravity it is a quartic in
// τ (with drag not a polynomial at all), found by certified steps within `window`
// (convex_time.hpp).
template <int D, class Motion>
double end_time(const Motion& motion, const Vec<D>& p, const ParticleState<D>& q, double a,
                double window) {
    if constexpr (!Motion::has_field) {
        return pair_time(q.x - p, q.v, a * a);
    } else {
        if (motion.gravity() == Vec<D>{}) return motion.pair_time(q.x - p, q.v, a * a, never);
        return convex_time_stepped<1, true>(
            motion, [&](const Vec<D>&) { return p; }, norm(p), q, a, window);
    }
}

} // namespace choc
