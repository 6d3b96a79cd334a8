// Exact contact times of a sphere with a triangle (triangle.hpp), for every Motion.
// q is the sphere's state now (x, v, time stamp 0), a its radius; times are intervals from
// now, never negative, `never` when there is no contact.
//
// The centre must stay outside the solid of points within a of the triangle. Its distance
// to the triangle is the least of the faces' (|h|, where the centre projects onto the
// triangle) and the three edges' (the distance to the edge as a closed segment, its end
// points included), so the contact time is the least of:
//   - each face: the first time the gap side*h - a falls through zero, kept only if the
//     centre then projects onto the triangle (face_time.hpp, as for a segment's face);
//   - each edge, a capsule of radius a (a closed segment is convex):
//       straight lines and drag alone (a straight line in s(τ)): the first root of the
//       pair quadratic with the edge's line (the components across the edge), kept if the
//       centre then projects between the end points; else the first roots with each end
//       point. Entering the infinite cylinder beside the edge and sliding along it into
//       the capsule would pass through an end point's sphere first, so nothing is missed;
//       gravity, with or without drag: certified steps on the distance to the closed
//       segment (convex_time.hpp), within `window`.
#pragma once

#include "choc/kernel/convex_time.hpp"
#include "choc/kernel/face_time.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/triangle.hpp"

#include <algorithm>
#include <cmath>

namespace choc {

template <int D, class Motion>
double triangle_face_time(const Motion& motion, const Triangle<D>& tri, const ParticleState<D>& q,
                          double a) {
    return flat_face_time(
        motion, tri.normal, tri.height(q.x), [&](const Vec<D>& x) { return tri.over(x); }, q, a);
}

// Edge k, the closed segment from p0 to p1 (unit tangent t, `length` long).
template <int D, class Motion>
double triangle_edge_time(const Motion& motion, const Vec<D>& p0, const Vec<D>& p1, const Vec<D>& t,
                          double length, const ParticleState<D>& q, double a, double window) {
    bool straight = !Motion::has_field;
    if constexpr (Motion::has_field) straight = motion.gravity() == Vec<D>{};
    if (!straight) {
        auto nearest = [&](const Vec<D>& x) {
            const double s = dot(x - p0, t);
            return s <= 0.0 ? p0 : s >= length ? p1 : p0 + t * s;
        };
        return convex_time_stepped(motion, nearest, norm(p0) + length, q, a, window);
    }
    const Vec<D> r = q.x - p0;
    const Vec<D> r_across = r - t * dot(r, t), v_across = q.v - t * dot(q.v, t);
    double best = motion.pair_time(r_across, v_across, a * a, never);
    if (best < never) {
        const double s = dot(motion.position(q, best) - p0, t);
        if (s < 0.0 || s > length) best = never;
    }
    for (const Vec<D>* p : {&p0, &p1})
        best = std::min(best, motion.pair_time(q.x - *p, q.v, a * a, never));
    return best;
}

// A lower bound on the contact time with any part of the triangle: the first time the
// centre comes within a of the triangle's plane (the distance to the triangle is never less
// than the distance to its plane). From the side the centre is on, it must pass h = ±a on
// that side before any other point of the plane's slab: first_contact is that time exactly.
// (The plane: unit normal n, height(x) = dot(x, n) - offset.)
template <int D, class Motion>
double triangle_plane_bound(const Motion& motion, const Vec<D>& n, double offset,
                            const ParticleState<D>& q, double a) {
    const double h = dot(q.x, n) - offset;
    if (std::abs(h) <= a) return 0.0;
    const double side = h > 0.0 ? 1.0 : -1.0;
    return motion.first_contact(side * h - a, side * dot(q.v, n), side * motion.along(n));
}

// The earliest contact with the triangle's rim (its edges, their end points included).
template <int D, class Motion>
double triangle_rim_time(const Motion& motion, const Triangle<D>& tri, const ParticleState<D>& q,
                         double a, double window) {
    double best = never;
    for (int k = 0; k < 3; ++k)
        best = std::min(best, triangle_edge_time(motion, tri.vertex[k], tri.vertex[(k + 1) % 3],
                                                 tri.tangent[k], tri.length[k], q, a, window));
    return best;
}

// The earliest contact with any part of the triangle.
template <int D, class Motion>
double triangle_time(const Motion& motion, const Triangle<D>& tri, const ParticleState<D>& q,
                     double a, double window) {
    return std::min(triangle_face_time(motion, tri, q, a),
                    triangle_rim_time(motion, tri, q, a, window));
}

} // namespace choc
