// Finite walls in 2D: a segment from `from` to `to`, two-sided, with its two end points as
// obstacles of their own. A disc of radius a must keep its centre outside the capsule
// {y : dist(y, segment) < a}; the capsule's boundary is two flat pieces (|h| = a with the
// projection inside the segment) and two half circles (|y - p| = a around each end p).
//
// Two-sided because funnels and hourglasses are built from thin plates: particles may
// meet either face (a one-sided segment would let a particle that got around its end pass
// straight through it from behind).
//
// The engine numbers obstacles after the plane walls (obstacle.hpp): obstacle
// walls.size() + 3k + part is segment k's faces (part 0), its `from` end (1) or its `to`
// end (2).
#pragma once

#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <algorithm>
#include <cmath>

namespace choc {

template <int D>
struct Segment {
    enum Part : int { face = 0, from_end = 1, to_end = 2 };

    Vec<D> from, to;
    Vec<D> tangent; // unit, from -> to
    Vec<D> normal;  // unit, the tangent turned by +90° (2D only): h > 0 on its side
    double length = 0.0;
    double restitution = 1.0;

    static Segment between(const Vec<D>& from, const Vec<D>& to, double restitution) {
        static_assert(D == 2, "segments are 2D walls");
        Segment s;
        s.from = from;
        s.to = to;
        s.length = norm(to - from);
        s.tangent = (to - from) * (1.0 / s.length);
        s.normal = Vec<D>{{-s.tangent[1], s.tangent[0]}};
        s.restitution = restitution;
        return s;
    }

    // Position of x's projection along the segment (0 at `from`, `length` at `to`).
    double along(const Vec<D>& x) const { return dot(x - from, tangent); }
    // Signed distance of x from the segment's line.
    double height(const Vec<D>& x) const { return dot(x - from, normal); }
    const Vec<D>& end(int part) const { return part == from_end ? from : to; }

    // The part of the segment nearest to x: the face when x projects inside it.
    int nearest_part(const Vec<D>& x) const {
        const double s = along(x);
        return s < 0.0 ? from_end : s > length ? to_end : face;
    }
    double distance(const Vec<D>& x) const {
        const int part = nearest_part(x);
        return part == face ? std::abs(height(x)) : norm(x - end(part));
    }

    // The plane tangent to the obstacle `part` at the contact of a particle centred at x,
    // as a Wall (normal towards x, offset so that distance(x) is the centre's distance):
    //   face: n = sign(h) normal, the side x is on;   end p: n = (x - p)/|x - p|.
    // A contact with either is then a wall collision with that plane.
    Wall<D> contact_plane(int part, const Vec<D>& x) const {
        Wall<D> w;
        w.restitution = restitution;
        if (part == face) {
            w.normal = height(x) >= 0.0 ? normal : -normal;
            w.offset = dot(from, w.normal);
        } else {
            const Vec<D> r = x - end(part);
            w.normal = r * (1.0 / norm(r));
            w.offset = dot(end(part), w.normal);
        }
        return w;
    }

    // Whether a centre that stays in the box [lo, hi] can come within `reach` of the
    // segment: a separating-axis test on the box grown by `reach` against the segment
    // (axes x, y and the normal). Conservative: false only when no contact is possible.
    bool may_reach(const Vec<D>& lo, const Vec<D>& hi, double reach) const {
        for (int a = 0; a < D; ++a)
            if (std::max(from[a], to[a]) < lo[a] - reach ||
                std::min(from[a], to[a]) > hi[a] + reach)
                return false;
        double h_min = never_height, h_max = -never_height;
        for (int corner = 0; corner < (1 << D); ++corner) {
            Vec<D> c;
            for (int a = 0; a < D; ++a) c[a] = (corner >> a) & 1 ? hi[a] : lo[a];
            const double h = height(c);
            h_min = std::min(h_min, h);
            h_max = std::max(h_max, h);
        }
        return h_min <= reach && h_max >= -reach;
    }

  private:
    static constexpr double never_height = 1e308;
};

} // namespace choc
