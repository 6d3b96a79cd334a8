// Whether coplanar triangles cover a region of their plane: what lets a cell of the grid
// take a flat patch of a mesh as one plane (triangle_cells.hpp).
//
// A centre that stays in a box B meets a plane's triangles only where it comes within a of
// the plane, so the region that matters is the shadow of B ∩ {|h| <= a} on the plane
// (`shadow`): a convex polygon, the hull of the projected vertices of that polytope (the
// box's corners inside the slab and the points where its edges cross h = ±a).
//
// The triangles are subtracted from the polygon one at a time (`farthest_uncovered`). A
// convex piece minus a triangle is at most three convex pieces: the part outside its first
// edge, the part inside the first and outside the second, the part inside both and outside
// the third; what is inside all three is covered. What is left at the end, convex pieces,
// is the uncovered part, and what a patch needs to know of it is whether its points are
// all within a round-off gap of the triangles (a sphere over a point a gap g from them is
// met by them at sqrt(h² + g²) rather than |h|). Everything is 2D, in coordinates of the plane
// about a point near the region, so that round-off is of the region's size, not of the mesh's
// coordinates.
#pragma once

#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace choc::plane_cover {

using Point = std::array<double, 2>;
using Polygon = std::vector<Point>; // convex, counter-clockwise

// Twice the signed area of o, a, b: positive when b is left of the line from o to a.
inline double turn(const Point& o, const Point& a, const Point& b) {
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

inline double area(const Polygon& p) {
    double twice = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) {
        const Point& a = p[k];
        const Point& b = p[(k + 1) % p.size()];
        twice += a[0] * b[1] - a[1] * b[0];
    }
    return 0.5 * twice;
}

// The convex hull, counter-clockwise (Andrew's monotone chain; points on an edge dropped).
inline Polygon convex_hull(std::vector<Point> p) {
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    if (p.size() < 3) return p;
    Polygon h(2 * p.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < p.size(); ++i) { // lower chain
        while (k >= 2 && turn(h[k - 2], h[k - 1], p[i]) <= 0.0) --k;
        h[k++] = p[i];
    }
    for (std::size_t i = p.size() - 1, lower = k + 1; i-- > 0;) { // upper chain
        while (k >= lower && turn(h[k - 2], h[k - 1], p[i]) <= 0.0) --k;
        h[k++] = p[i];
    }
    h.resize(k - 1); // the last point is the first
    return h;
}

// The part of the convex polygon p on the left of the directed line from a to b (left) or
// on its right (!left), the line moved `slack` (a distance) to the other side: one pass of
// Sutherland-Hodgman.
inline Polygon clip(const Polygon& p, const Point& a, const Point& b, bool left,
                    double slack = 0.0) {
    Polygon out;
    const double sign = left ? 1.0 : -1.0;
    // turn() is the distance from the line times |b - a|
    const double shift = slack * std::hypot(b[0] - a[0], b[1] - a[1]);
    for (std::size_t k = 0; k < p.size(); ++k) {
        const Point& x = p[k];
        const Point& y = p[(k + 1) % p.size()];
        const double sx = sign * turn(a, b, x) + shift, sy = sign * turn(a, b, y) + shift;
        if (sx >= 0.0) out.push_back(x);
        if ((sx > 0.0 && sy < 0.0) || (sx < 0.0 && sy > 0.0)) {
            const double f = sx / (sx - sy);
            out.push_back({x[0] + f * (y[0] - x[0]), x[1] + f * (y[1] - x[1])});
        }
    }
    return out;
}

// The distance from a 2D point to a counter-clockwise triangle (0 inside it).
inline double distance(const Point& x, const std::array<Point, 3>& t) {
    if (turn(t[0], t[1], x) >= 0.0 && turn(t[1], t[2], x) >= 0.0 && turn(t[2], t[0], x) >= 0.0)
        return 0.0;
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 3; ++k) {
        const Point &a = t[k], &b = t[(k + 1) % 3];
        const double ex = b[0] - a[0], ey = b[1] - a[1];
        const double s =
            std::clamp(((x[0] - a[0]) * ex + (x[1] - a[1]) * ey) / (ex * ex + ey * ey), 0.0, 1.0);
        const double dx = x[0] - a[0] - s * ex, dy = x[1] - a[1] - s * ey;
        best = std::min(best, dx * dx + dy * dy);
    }
    return std::sqrt(best);
}

// How far from a triangle a point of the convex piece can be: the distance to a convex set
// is convex, so its largest value over the piece is at a vertex.
inline double farthest(const Polygon& piece, const std::array<Point, 3>& t) {
    double far = 0.0;
    for (const Point& x : piece) far = std::max(far, distance(x, t));
    return far;
}

// The distance from the piece's farthest vertex to the nearest triangle if that is more
// than `close`, else at most `close` (the search stops at a triangle within it).
inline double farthest_vertex(const Polygon& piece,
                              const std::vector<std::array<Point, 3>>& triangles, double close) {
    double far = 0.0;
    for (const Point& x : piece) {
        double d = std::numeric_limits<double>::infinity();
        for (const auto& t : triangles)
            if ((d = std::min(d, distance(x, t))) <= close) break;
        if (d > close) return d;
        far = std::max(far, d);
    }
    return far;
}

// The piece's halves, split across its longest extent (between its two farthest vertices).
inline std::array<Polygon, 2> halves(const Polygon& piece) {
    std::size_t i = 0, j = 0;
    double longest = -1.0;
    for (std::size_t a = 0; a < piece.size(); ++a)
        for (std::size_t b = a + 1; b < piece.size(); ++b) {
            const double dx = piece[b][0] - piece[a][0], dy = piece[b][1] - piece[a][1];
            if (dx * dx + dy * dy > longest) longest = dx * dx + dy * dy, i = a, j = b;
        }
    const Point mid{0.5 * (piece[i][0] + piece[j][0]), 0.5 * (piece[i][1] + piece[j][1])};
    // the line through mid perpendicular to the diameter
    const Point across{mid[0] - (piece[j][1] - piece[i][1]), mid[1] + (piece[j][0] - piece[i][0])};
    return {clip(piece, mid, across, true), clip(piece, mid, across, false)};
}

// How far the points of a convex piece lie from the union of the (counter-clockwise)
// triangles, as farthest_uncovered answers it: a triangle within `close` of all of it
// bounds it (the distance to a triangle is convex: its largest value over the piece is at
// a vertex); else the piece is halved until each half has one, up to `budget` halvings
// (then +inf). A vertex farther than `close` from every triangle ends the search at once
// with its distance: the piece is then not covered, which is all a caller needs to know.
inline double farthest_by_halves(const Polygon& piece,
                                 const std::vector<std::array<Point, 3>>& triangles, double close,
                                 int& budget) {
    if (const double d = farthest_vertex(piece, triangles, close); d > close) return d;
    for (const auto& t : triangles)
        if (const double far = farthest(piece, t); far <= close) return far;
    if (--budget < 0) return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (const Polygon& half : halves(piece))
        if (!half.empty())
            worst = std::max(worst, farthest_by_halves(half, triangles, close, budget));
    return worst;
}

// Whether the triangles (either orientation) cover `region`, up to gaps of `close`: an
// answer r <= close means that every point of the region lies within r of a triangle; an
// answer above `close` that some point lies farther than `close` (or that the region was
// cut too finely to tell, or has no area: +infinity).
//
// Each triangle that overlaps a piece cuts it along its edges: the part beyond an edge's
// line goes on as a piece, the rest is cut by the next edge, and what is inside all three
// is covered. A part is only ever dropped when its points all lie within `close` of the
// triangle that cut it, by the true distance (convex: checked at its vertices): the part
// inside, and the sliver round-off leaves beyond an edge two triangles share. Points
// beyond a line by less than `snap` of the region's size (round-off of the cut points,
// ~1e-16 of it) stay on the inside, so that round-off makes no sliver of no area that no
// one triangle holds; they are still dropped only by that distance check. What is left
// at the end is uncovered, or within `close` of the union but of no one triangle:
// farthest_by_halves settles it. Past `most_pieces` at once, or `most_halvings`, the
// answer is +infinity: a region cut so finely is not one a patch should stand for.
inline double farthest_uncovered(const Polygon& region, std::vector<std::array<Point, 3>> triangles,
                                 double close, std::size_t most_pieces = plane_cover_pieces,
                                 int most_halvings = plane_cover_halvings,
                                 double snap = plane_cover_snap) {
    if (region.size() < 3 || !(area(region) > 0.0)) return std::numeric_limits<double>::infinity();
    for (auto& t : triangles)
        if (turn(t[0], t[1], t[2]) < 0.0) std::swap(t[1], t[2]); // counter-clockwise
    // a corner of the region beyond every triangle: not covered, and no cutting needed
    if (const double d = farthest_vertex(region, triangles, close); d > close) return d;
    double size = 0.0;
    for (const Point& x : region)
        for (const Point& y : region) size = std::max(size, std::hypot(x[0] - y[0], x[1] - y[1]));
    const double slack = snap * size;
    std::vector<Polygon> pieces{region}, next;
    double worst = 0.0; // the farthest point of the parts dropped as close
    auto settle = [&](Polygon part, const std::array<Point, 3>& t) {
        if (part.empty()) return;
        const double far = farthest(part, t);
        if (far <= close)
            worst = std::max(worst, far);
        else
            next.push_back(std::move(part));
    };
    for (const auto& t : triangles) {
        next.clear();
        for (Polygon piece : pieces) {
            // a triangle that does not overlap the piece leaves it whole (cutting it along
            // the triangle's edges anyway would only multiply the pieces)
            Polygon common = piece;
            for (int k = 0; k < 3 && !common.empty(); ++k)
                common = clip(common, t[k], t[(k + 1) % 3], true);
            if (common.size() < 3 || !(area(common) > 0.0)) {
                next.push_back(std::move(piece));
                continue;
            }
            for (int k = 0; k < 3 && !piece.empty(); ++k) {
                const Point &a = t[k], &b = t[(k + 1) % 3];
                const double beyond = slack * std::hypot(b[0] - a[0], b[1] - a[1]);
                if (std::any_of(piece.begin(), piece.end(),
                                [&](const Point& x) { return turn(a, b, x) < -beyond; }))
                    settle(clip(piece, a, b, false), t);
                piece = clip(piece, a, b, true, slack);
            }
            settle(std::move(piece), t); // inside the triangle, but for the snap
        }
        if (next.size() > most_pieces) return std::numeric_limits<double>::infinity();
        std::swap(pieces, next);
        if (pieces.empty()) break;
    }
    int budget = most_halvings;
    for (const Polygon& piece : pieces)
        worst = std::max(worst, farthest_by_halves(piece, triangles, close, budget));
    return worst;
}

// The vertices of the polytope B ∩ {|dot(x, n) - offset| <= half_width}, B the box
// [lo, hi] (none when they do not meet): the box's corners inside the slab, and the
// points where its edges cross the slab's two faces.
inline std::vector<Vec<3>> box_in_slab(const Vec<3>& lo, const Vec<3>& hi, const Vec<3>& n,
                                       double offset, double half_width) {
    std::array<Vec<3>, 8> corner;
    std::array<double, 8> h;
    for (int k = 0; k < 8; ++k) {
        for (int a = 0; a < 3; ++a) corner[k][a] = (k >> a) & 1 ? hi[a] : lo[a];
        h[k] = dot(corner[k], n) - offset;
    }
    std::vector<Vec<3>> out;
    for (int k = 0; k < 8; ++k)
        if (std::abs(h[k]) <= half_width) out.push_back(corner[k]);
    for (int k = 0; k < 8; ++k)
        for (int a = 0; a < 3; ++a) {
            const int j = k | (1 << a);
            if (j == k) continue; // each edge once: from its corner with bit a clear
            for (const double level : {-half_width, half_width}) {
                if ((h[k] - level) * (h[j] - level) >= 0.0) continue; // not crossed inside
                const double f = (level - h[k]) / (h[j] - h[k]);
                out.push_back(corner[k] + (corner[j] - corner[k]) * f);
            }
        }
    return out;
}

// Coordinates in a plane with unit normal n, about the point `origin`.
struct PlaneFrame {
    Vec<3> origin, u, w; // u, w: unit, perpendicular to each other and to n

    PlaneFrame(const Vec<3>& n, const Vec<3>& o) : origin(o) {
        // the axis least aligned with n, made perpendicular to it
        int least = 0;
        for (int a = 1; a < 3; ++a)
            if (std::abs(n[a]) < std::abs(n[least])) least = a;
        Vec<3> e{};
        e[least] = 1.0;
        u = e - n * dot(e, n);
        u = u * (1.0 / norm(u));
        w = cross(n, u);
    }
    Point operator()(const Vec<3>& x) const {
        const Vec<3> r = x - origin;
        return {dot(r, u), dot(r, w)};
    }
};

} // namespace choc::plane_cover
