// Finite walls in 3D: a triangle, two-sided, the building block of vessels (funnels,
// hoppers, hourglasses, silos) and of meshes read from STL files.
//
// A sphere of radius a must keep its centre outside the slab-and-rounded-rim solid
// {y : dist(y, triangle) < a}. Its boundary is made of pieces of three kinds:
//   - the two faces: |h| = a with the projection of y inside the triangle (h the signed
//     distance to the triangle's plane);
//   - the three edges: the cylinders of radius a around them, where y projects onto the
//     edge between its end points;
//   - the three vertices: the spheres of radius a around them.
// The triangle is convex, so the distance to it, d(y) = |y - nearest(y)|, has
// d²/2 convex with a gradient y - nearest(y) that is 1-Lipschitz: the curved flights'
// contact search (triangle_time.hpp) bounds its second derivative with that.
//
// Two-sided for the reason segments are (segment.hpp): thin plates are met from either side.
// A one-sided triangle is a wall on its normal's side only: a sphere coming from behind
// passes through it (triangle_time.hpp says how the search follows it).
// Where triangles of a mesh share an edge, a sphere crossing the edge touches the edge of
// the next triangle at the instant it leaves the face of the last, with the same normal
// (the nearest point moves continuously): a flat mesh feels like a flat wall.
#pragma once

#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace choc {

template <int D>
struct Triangle {
    // The part of the triangle nearest to a point: its face, an edge (k from vertex k to
    // vertex k + 1 mod 3) or a vertex.
    enum Part : int { face = 0, edge0 = 1, vertex0 = 4 };

    std::array<Vec<D>, 3> vertex;
    Vec<D> normal;                  // unit, (v1 - v0) x (v2 - v0): h > 0 on its side
    std::array<Vec<D>, 3> tangent;  // unit, along edge k (vertex k -> vertex k + 1)
    std::array<Vec<D>, 3> inward;   // unit, in the plane, perpendicular to edge k, inwards
    std::array<double, 3> length{}; // of edge k
    Vec<D> centre;                  // of the vertices; every point of the triangle lies
    double radius = 0.0;            // within `radius` of it
    double restitution = 1.0;
    // One-sided: a wall on the normal's side only; from behind, spheres pass through
    // (triangle_time.hpp).
    bool one_sided = false;
    // The flag's word filled: checkpoints copy triangles byte for byte, which must hold no
    // undefined padding.
    std::array<std::uint8_t, 7> unused{};

    static Triangle through(const Vec<D>& p0, const Vec<D>& p1, const Vec<D>& p2,
                            double restitution) {
        static_assert(D == 3, "triangles are 3D walls");
        Triangle t;
        t.vertex = {p0, p1, p2};
        const Vec<D> n = cross(p1 - p0, p2 - p0);
        t.normal = n * (1.0 / norm(n));
        for (int k = 0; k < 3; ++k) {
            const Vec<D> e = t.vertex[(k + 1) % 3] - t.vertex[k];
            t.length[k] = norm(e);
            t.tangent[k] = e * (1.0 / t.length[k]);
            t.inward[k] = cross(t.normal, t.tangent[k]);
        }
        t.centre = (p0 + p1 + p2) * (1.0 / 3.0);
        for (const auto& v : t.vertex) t.radius = std::max(t.radius, norm(v - t.centre));
        t.restitution = restitution;
        return t;
    }

    // Twice the area over the longest edge squared: 0 for three points on a line, sqrt(3)/2
    // for an equilateral triangle. A triangle too thin to have a plane of its own is refused.
    static double shape(const Vec<D>& p0, const Vec<D>& p1, const Vec<D>& p2) {
        const double longest = std::max({norm2(p1 - p0), norm2(p2 - p1), norm2(p0 - p2)});
        return longest > 0.0 ? norm(cross(p1 - p0, p2 - p0)) / longest : 0.0;
    }

    // Signed distance of x from the triangle's plane.
    double height(const Vec<D>& x) const { return dot(x - vertex[0], normal); }
    // Whether x projects onto the triangle (on its edges included).
    bool over(const Vec<D>& x) const {
        for (int k = 0; k < 3; ++k)
            if (dot(x - vertex[k], inward[k]) < 0.0) return false;
        return true;
    }
    // ... or but for round-off: within face_round_off_ulps of x's coordinates outside an
    // edge. A centre on the bisector of a crease of two faces projects onto their shared
    // edge, and by round-off it may lie outside either: it touches both faces. (Taken for
    // a rim there, one of the two was left out of a group, or of a glide along the crease,
    // and a sphere rolling along a valley was met by each face in turn at one instant for
    // ever: scan case 11607331221862812016.) A glide's end puts the centre farther past
    // the edge than this (leave_edge_clearance_ulps).
    bool over_face(const Vec<D>& x) const {
        double size = 0.0;
        for (int a = 0; a < D; ++a) size = std::max(size, std::abs(x[a]));
        const double slack = face_round_off_ulps * std::numeric_limits<double>::epsilon() * size;
        for (int k = 0; k < 3; ++k)
            if (dot(x - vertex[k], inward[k]) < -slack) return false;
        return true;
    }

    struct Nearest {
        Vec<D> point;
        int part = face; // face, edge0 + k or vertex0 + k
    };
    // The point of the triangle nearest to x. Outside the face's prism the nearest point
    // lies on the boundary, so it is the nearest of the three edges' nearest points (each
    // the projection onto the edge's line clamped to the edge).
    Nearest nearest(const Vec<D>& x) const {
        if (over(x)) return {x - normal * height(x), face};
        Nearest best;
        double best_d2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            const double s = dot(x - vertex[k], tangent[k]);
            Nearest n;
            if (s <= 0.0)
                n = {vertex[k], vertex0 + k};
            else if (s >= length[k])
                n = {vertex[(k + 1) % 3], vertex0 + (k + 1) % 3};
            else
                n = {vertex[k] + tangent[k] * s, edge0 + k};
            const double d2 = norm2(x - n.point);
            if (k == 0 || d2 < best_d2) best = n, best_d2 = d2;
        }
        return best;
    }
    double distance(const Vec<D>& x) const {
        const Nearest n = nearest(x);
        return n.part == face ? std::abs(height(x)) : norm(x - n.point);
    }
    double distance_squared(const Vec<D>& x) const {
        const Nearest n = nearest(x);
        if (n.part == face) {
            const double h = height(x);
            return h * h;
        }
        return norm2(x - n.point);
    }

    // The plane tangent to the triangle's rim at the contact of a particle centred at x, as
    // a Wall (normal towards x, offset so that the centre's distance is distance(x)):
    //   face: n = sign(h) normal, the side x is on;  edge or vertex: n = (x - q)/|x - q|,
    //   q the nearest point. A contact is then a wall collision with that plane.
    Wall<D> contact_plane(const Vec<D>& x) const {
        Wall<D> w;
        w.restitution = restitution;
        const Nearest n = nearest(x);
        if (n.part == face) {
            w.normal = height(x) >= 0.0 ? normal : -normal;
        } else {
            const Vec<D> r = x - n.point;
            w.normal = r * (1.0 / norm(r));
        }
        w.offset = dot(n.point, w.normal);
        return w;
    }

    // Whether a centre that stays in the box [lo, hi] can come within `reach` of the
    // triangle: the separating-axis test of the triangle against the box grown by `reach`
    // on every side (the box's three axes, the normal and the nine products of an edge
    // with an axis). The grown box holds every point within `reach` of the box, so the test
    // is conservative: false only when no contact is possible.
    bool may_reach(const Vec<D>& lo, const Vec<D>& hi, double reach) const {
        Vec<D> centre, half;
        for (int a = 0; a < D; ++a)
            centre[a] = 0.5 * (lo[a] + hi[a]), half[a] = 0.5 * (hi[a] - lo[a]) + reach;
        std::array<Vec<D>, 3> v;
        for (int k = 0; k < 3; ++k) v[k] = vertex[k] - centre;
        // apart along `axis`: the triangle's extent and the box's radius do not overlap
        auto apart = [&](const Vec<D>& axis) {
            const double p0 = dot(v[0], axis), p1 = dot(v[1], axis), p2 = dot(v[2], axis);
            double r = 0.0;
            for (int a = 0; a < D; ++a) r += half[a] * std::abs(axis[a]);
            // a margin of round-off: never call apart what merely touches
            r *= 1.0 + separating_axis_margin;
            return std::min({p0, p1, p2}) > r || std::max({p0, p1, p2}) < -r;
        };
        for (int a = 0; a < D; ++a) {
            Vec<D> e{};
            e[a] = 1.0;
            if (apart(e)) return false;
        }
        if (apart(normal)) return false;
        if constexpr (D == 3)
            for (int k = 0; k < 3; ++k)
                for (int a = 0; a < D; ++a) {
                    Vec<D> e{};
                    e[a] = 1.0;
                    const Vec<D> axis = cross(tangent[k], e);
                    if (norm2(axis) > degenerate_axis_squared && apart(axis)) return false;
                }
        return true;
    }
};

} // namespace choc
