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
#include <limits>

namespace choc {

template <int D, class Motion>
double triangle_face_time(const Motion& motion, const Triangle<D>& tri, const ParticleState<D>& q,
                          double a, bool front_only = false) {
    return flat_face_time(
        motion, tri.normal, tri.height(q.x), [&](const Vec<D>& x) { return tri.over(x); }, q, a,
        front_only);
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
        return convex_time_stepped(motion, nearest, norm(p0) + length, q, a, window, t);
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

// One-sided triangles (triangle.hpp). A centre passing through one is inside its solid
// {d < a} by more than `one_sided_depth`: the depth the engine's contact checks allow a
// contact (invariant_tolerance of the radius, and the round-off of the coordinates), to
// which the groups and the TC model may press a sphere resting on the front. Less deep, it
// is at the surface, outside.
template <int D>
double one_sided_depth(const Triangle<D>& tri, double a) {
    return invariant_tolerance * a + contact_round_off_ulps *
                                         std::numeric_limits<double>::epsilon() *
                                         (norm(tri.centre) + tri.radius + a);
}
template <int D>
bool passing_through(const Triangle<D>& tri, const Vec<D>& x, double a) {
    const double below = a - one_sided_depth(tri, a);
    return tri.distance_squared(x) < below * below;
}

// The first contact with a one-sided triangle: the first time the centre enters the solid
// {d < a} while in front (h > 0), within `window` (`never` after it: the caller looks again
// then). Entering from behind, the sphere passes through: it is inside the solid until it
// leaves it, and only a later entry from the front is a contact. Whether a centre inside
// the solid came in from behind or missed a contact is not recorded: inside is passing
// (REFERENCE, one-sided triangles). So the flight is followed through three states, each
// lasting until an instant computed exactly:
//   behind (h <= 0, outside): no contact until h rises through 0 (first_contact on the
//     1D gap −h); the centre is then inside the solid, or in front;
//   in front (h > 0, outside): the first contact with the front face or the rim is a
//     contact, unless h falls through 0 first (the centre then went round the rim
//     without touching it, behind the plane);
//   inside: no contact until the centre leaves the solid (certified steps on a² − d²,
//     convex_time.hpp); it is then behind or in front by the sign of h.
// h has a monotone rate, so it crosses 0 at most twice a flight, and the centre is inside
// only after crossing upwards: the states change a few times at most.
//
// A mesh is one surface: a sphere passing through one triangle of it meets the next
// triangle's rim, at their shared edge or corner, from inside the surface, and must pass
// on. `passing_elsewhere(x, q)` says whether a centre at x is passing through another
// one-sided triangle holding the point q; a front contact at q is then an entry from
// inside, and the search goes on in the inside state.
template <int D, class Motion, class Elsewhere>
double one_sided_triangle_time(const Motion& motion, const Triangle<D>& tri,
                               const ParticleState<D>& q, double a, double window,
                               const Elsewhere& passing_elsewhere) {
    const double scale = norm(tri.centre) + tri.radius;
    const double acc = motion.along(tri.normal);
    auto inside = [&](const Vec<D>& x) { return passing_through(tri, x, a); };
    enum State { behind, front, in };
    auto side = [&](const Vec<D>& x) {
        return inside(x) ? in : tri.height(x) > 0.0 ? front : behind;
    };
    ParticleState<D> p = q; // the flight at tau, stamped 0
    double tau = 0.0;
    State state = side(q.x);
    auto move_by = [&](double dt) {
        tau += dt;
        p.x = motion.position(q, tau), p.v = motion.velocity(q, tau);
    };
    for (int k = 0; k < one_sided_search_states; ++k) {
        if (!(tau < window)) return never;
        const double h = tri.height(p.x), u = dot(p.v, tri.normal);
        switch (state) {
        case behind: {
            const double up = motion.first_contact(-h, -u, -acc);
            if (up == never) return never;
            move_by(up);
            state = inside(p.x) ? in : front;
            break;
        }
        case front: {
            const double contact = std::min(triangle_face_time(motion, tri, p, a, true),
                                            triangle_rim_time(motion, tri, p, a, window - tau));
            const double down = motion.first_contact(h, u, acc);
            if (contact > down) {
                move_by(down);
                state = behind;
                break;
            }
            if (!(tau + contact <= window)) return never;
            move_by(contact);
            if (!passing_elsewhere(p.x, tri.nearest(p.x).point)) return tau;
            state = in; // entering from inside the surface: passing on
            break;
        }
        case in: {
            // (at rest it never leaves: the steps would run to overflow)
            if (norm2(p.v) == 0.0 && norm2(motion.acceleration(p.v)) == 0.0) return never;
            auto nearest = [&](const Vec<D>& x) { return tri.nearest(x).point; };
            const double out = convex_time_stepped<-1>(motion, nearest, scale, p, a, window - tau);
            if (out == never) return never;
            move_by(out);
            state = side(p.x);
            break;
        }
        }
    }
    // Not reached in practice. The time returned is not a contact: the engine's check of
    // the contact distance then stops the run as broken rather than let it go on.
    return tau;
}
template <int D, class Motion>
double one_sided_triangle_time(const Motion& motion, const Triangle<D>& tri,
                               const ParticleState<D>& q, double a, double window) {
    return one_sided_triangle_time(motion, tri, q, a, window,
                                   [](const Vec<D>&, const Vec<D>&) { return false; });
}

// The earliest contact with any part of the triangle.
template <int D, class Motion>
double triangle_time(const Motion& motion, const Triangle<D>& tri, const ParticleState<D>& q,
                     double a, double window) {
    if (tri.one_sided) return one_sided_triangle_time(motion, tri, q, a, window);
    return std::min(triangle_face_time(motion, tri, q, a),
                    triangle_rim_time(motion, tri, q, a, window));
}

} // namespace choc
