// Flat patches (plane_cover.hpp, triangle_cells.hpp): the cover test against sampling, the
// patches a cell finds (and those it must not: holes, folds, other restitutions, one-sided
// triangles), and the engine with finely meshed flat walls against the same box with plane
// walls in their place, event by event.
#include <choc/kernel/between_chunks.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/kernel/plane_cover.hpp>
#include <choc/kernel/triangle_cells.hpp>

#include <doctest/doctest.h>

#include "mesh_box.hpp"
#include <choc/kernel/engine.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_flat_patches {

using namespace choc;
namespace pc = choc::plane_cover;

namespace {

using V = Vec<3>;
using Tri2 = std::array<pc::Point, 3>;

V vec(double x, double y, double z) {
    return V{{x, y, z}};
}

bool inside(const pc::Polygon& p, const pc::Point& x) {
    for (std::size_t k = 0; k < p.size(); ++k)
        if (pc::turn(p[k], p[(k + 1) % p.size()], x) < 0.0) return false;
    return true;
}

// The distance from x to the union of the triangles, directly.
double distance_to_union(const pc::Point& x, const std::vector<Tri2>& tris) {
    double best = never;
    for (Tri2 t : tris) {
        if (pc::turn(t[0], t[1], t[2]) < 0.0) std::swap(t[1], t[2]);
        best = std::min(best, pc::distance(x, t));
    }
    return best;
}

// The square [lo, hi]² as n x n squares of two triangles.
std::vector<Tri2> tiling(double lo, double hi, int n) {
    std::vector<Tri2> out;
    auto at = [&](int i, int j) {
        return pc::Point{lo + (hi - lo) * i / n, lo + (hi - lo) * j / n};
    };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            out.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
            out.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
        }
    return out;
}

} // namespace

TEST_CASE("the convex hull: counter-clockwise, inner and edge points dropped") {
    const pc::Polygon h = pc::convex_hull(
        {{0, 0}, {2, 0}, {2, 2}, {0, 2}, {1, 1}, {1, 0}, {2, 1}, {0.5, 1.5}, {2, 2}});
    REQUIRE(h.size() == 4);
    for (std::size_t k = 0; k < h.size(); ++k)
        CHECK(pc::turn(h[k], h[(k + 1) % 4], h[(k + 2) % 4]) > 0.0);
}

TEST_CASE("a cover bounds the farthest sampled point; a hole is seen") {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const double close = 1e-6;
    int covered = 0, holed = 0;
    for (int trial = 0; trial < 300; ++trial) {
        // a random convex region inside [-1, 1]²
        std::vector<pc::Point> points(3 + trial % 6);
        for (auto& p : points) p = {u(rng), u(rng)};
        const pc::Polygon region = pc::convex_hull(points);
        if (region.size() < 3) continue;
        // a tiling of [-1.2, 1.2]², from 1 x 1 to 5 x 5 squares, with holes in two thirds of
        // the trials: triangles left out, or shrunk towards their centre (a gap round them)
        std::vector<Tri2> tris = tiling(-1.2, 1.2, 1 + trial % 5);
        const int kind = trial % 3;
        if (kind == 1) {
            tris.erase(tris.begin() + static_cast<std::ptrdiff_t>(rng() % tris.size()));
        } else if (kind == 2) {
            Tri2& t = tris[rng() % tris.size()];
            const double shrink = trial % 2 ? 1e-3 : 1e-9;
            const pc::Point c{(t[0][0] + t[1][0] + t[2][0]) / 3, (t[0][1] + t[1][1] + t[2][1]) / 3};
            for (auto& v : t)
                for (int a = 0; a < 2; ++a) v[a] = c[a] + (v[a] - c[a]) * (1.0 - shrink);
        }
        const double bound = pc::farthest_uncovered(region, tris, close);
        // the farthest point from the triangles, sampled: the region's corners and points in it
        double sampled = 0.0;
        for (const auto& p : region) sampled = std::max(sampled, distance_to_union(p, tris));
        for (int k = 0; k < 4000; ++k) {
            const pc::Point x{u(rng), u(rng)};
            if (inside(region, x)) sampled = std::max(sampled, distance_to_union(x, tris));
        }
        // covered: every point within the answer; not covered: some point beyond `close`
        if (bound <= close) CHECK(sampled <= bound + 1e-12);
        if (kind == 0) {
            // a whole tiling covers: only round-off slivers along its shared edges are left
            CHECK(bound <= close);
            ++covered;
        }
        if (sampled > 1e-4) {
            CHECK(bound > close); // a real hole is seen
            ++holed;
        }
    }
    CHECK(covered > 50);
    CHECK(holed > 50);
}

TEST_CASE("a region no triangle meets is not covered") {
    const pc::Polygon region = pc::convex_hull({{0, 0}, {1, 0}, {1, 1}, {0, 1}});
    CHECK(pc::farthest_uncovered(region, {}, 1e-6) == never);
    CHECK(pc::farthest_uncovered(region, {{pc::Point{5, 5}, {6, 5}, {5, 6}}}, 1e-6) > 1e-6);
}

TEST_CASE("a box within a slab: its shadow holds every sampled point of it") {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    int met = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const V lo = vec(u(rng), u(rng), u(rng));
        const V hi = lo + vec(1.0 + u(rng) * 0.5, 1.0 + u(rng) * 0.5, 1.0 + u(rng) * 0.5);
        V n = vec(u(rng), u(rng), u(rng));
        n = n * (1.0 / norm(n));
        const double offset = dot((lo + hi) * 0.5, n) + u(rng);
        const double half = 0.1 + 0.4 * (u(rng) + 1.0);
        const auto vertices = pc::box_in_slab(lo, hi, n, offset, half);
        for (const V& x : vertices) {
            CHECK(std::abs(dot(x, n) - offset) <= half * (1.0 + 1e-12));
            for (int a = 0; a < 3; ++a) {
                CHECK(x[a] >= lo[a] - 1e-12);
                CHECK(x[a] <= hi[a] + 1e-12);
            }
        }
        const pc::PlaneFrame frame(n, (lo + hi) * 0.5);
        std::vector<pc::Point> shadow;
        for (const V& x : vertices) shadow.push_back(frame(x));
        const pc::Polygon hull = pc::convex_hull(shadow);
        int in_slab = 0;
        for (int k = 0; k < 2000; ++k) {
            V x;
            for (int a = 0; a < 3; ++a) x[a] = lo[a] + (hi[a] - lo[a]) * 0.5 * (u(rng) + 1.0);
            if (std::abs(dot(x, n) - offset) > half) continue;
            ++in_slab;
            // inside the hull, to round-off
            const pc::Point p = frame(x);
            bool in = true;
            for (std::size_t j = 0; j < hull.size(); ++j)
                if (pc::turn(hull[j], hull[(j + 1) % hull.size()], p) < -1e-12) in = false;
            CHECK(in);
        }
        if (in_slab > 0) ++met;
        if (in_slab > 0) CHECK(hull.size() >= 3);
    }
    CHECK(met > 50);
}

// --- Patches in the cells ------------------------------------------------------------------

namespace {

// A walled box 10 x 10 x 6 with a floor at z = 2 over all of it, n x n squares.
Box<3> floor_box(int n) {
    Box<3> box;
    box.length = vec(10.0, 10.0, 6.0);
    box.periodic = {false, false, false};
    add_box_walls(box, 1.0);
    add_quad(box, vec(0, 0, 2), vec(10, 0, 2), vec(10, 10, 2), vec(0, 10, 2), 1.0, n);
    return box;
}

struct Grid {
    Cells<3> cells;
    TriangleCells<3> near;
};

// The engine's lists for spheres of radius 0.5 (cells 1.25 wide, 8 x 8 x 4 of them).
Grid grid_of(const Box<3>& box) {
    Cells<3> cells(box, 1.25, 1, 1);
    const double a = 0.5, reach = a + cell_bounds_round_off * (a + 1.25);
    TriangleCells<3> near(cells, box.triangles, reach, TriangleCells<3>::PatchRadii{a, a});
    return {std::move(cells), std::move(near)};
}

// The cells whose box lies within the reach of the plane z = level.
std::vector<std::uint32_t> cells_by(const Cells<3>& cells, double level, double reach = 0.5) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t c = 0; c < cells.size(); ++c)
        if (cells.bound(c, 2, -1) <= level + reach && cells.bound(c, 2, 1) >= level - reach)
            out.push_back(c);
    return out;
}

std::vector<std::uint32_t> indices(const TriangleCells<3>::Entry* b,
                                   const TriangleCells<3>::Entry* e) {
    std::vector<std::uint32_t> out;
    for (; b != e; ++b) out.push_back(b->index);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_CASE("a finely meshed floor: each cell by it takes all of its triangles as one patch") {
    const Box<3> box = floor_box(20); // squares 0.5 wide, 800 triangles
    const Grid g = grid_of(box);
    const TriangleCells<3> plain(g.cells, box.triangles, 0.5 * (1.0 + 1e-9));
    const auto near = cells_by(g.cells, 2.0);
    REQUIRE(near.size() == 8 * 8 * 2);
    for (const std::uint32_t c : near) {
        CHECK(g.near.patches_end(c) - g.near.patches_begin(c) == 1);
        CHECK(g.near.loose_end(c) == g.near.begin(c)); // nothing loose
        const auto* p = g.near.patches_begin(c);
        CHECK(p->last - p->first == g.near.end(c) - g.near.begin(c));
        CHECK(std::abs(p->normal[2]) == 1.0);
        // the same triangles as the lists without patches
        CHECK(indices(g.near.begin(c), g.near.end(c)) == indices(plain.begin(c), plain.end(c)));
    }
    CHECK(g.near.patches() == near.size());
    CHECK(g.near.in_patches() == g.near.listed());
}

TEST_CASE("the lists call between_chunks, where a hook may stop them (the run's interrupts)") {
    const Box<3> box = floor_box(20);
    const BetweenChunks before = between_chunks_hook.load();
    static int calls;
    static std::string stage;
    calls = 0;
    set_between_chunks([](const char* s) { ++calls, stage = s; });
    const Grid g = grid_of(box); // once among the triangles, once a cell finding patches
    CHECK(calls == 1 + static_cast<int>(g.cells.size()));
    CHECK(stage == "listing the triangles by cell");
    set_between_chunks([](const char*) { throw std::runtime_error("stopped"); });
    CHECK_THROWS_WITH(grid_of(box), "stopped");
    set_between_chunks(before);
}

TEST_CASE("cells over a hole, a fold, another restitution or a one-sided part keep them loose") {
    // each defect spoils the patch of exactly the cells whose shadow meets it; the floor is
    // 20 x 20 squares 0.5 wide, the cells 1.25 wide
    auto loose_cells = [](const Box<3>& box) {
        const Grid g = grid_of(box);
        std::vector<std::uint32_t> out;
        for (const std::uint32_t c : cells_by(g.cells, 2.0))
            if (g.near.patches_begin(c) == g.near.patches_end(c)) out.push_back(c);
        return out;
    };
    // the cells by the floor whose (x, y) square meets the square [x0, x1] x [y0, y1]
    auto cells_over = [](const Box<3>& box, double x0, double x1, double y0, double y1) {
        const Grid g = grid_of(box);
        std::vector<std::uint32_t> out;
        for (const std::uint32_t c : cells_by(g.cells, 2.0))
            if (g.cells.bound(c, 0, -1) < x1 && g.cells.bound(c, 0, 1) > x0 &&
                g.cells.bound(c, 1, -1) < y1 && g.cells.bound(c, 1, 1) > y0)
                out.push_back(c);
        return out;
    };
    SUBCASE("a hole") {
        Box<3> box = floor_box(20);
        // square (i, j) = (5, 5), [2.5, 3] x [2.5, 3], loses its first triangle
        box.triangles.erase(box.triangles.begin() + 2 * (5 * 20 + 5));
        CHECK(loose_cells(box) == cells_over(box, 2.5, 3.0, 2.5, 3.0));
    }
    SUBCASE("a fold of 1e-9") {
        Box<3> box = floor_box(20);
        // the vertex (5, 5, 2) raised: the six triangles round it leave the plane
        for (auto& t : box.triangles)
            for (auto& v : t.vertex)
                if (v == vec(5.0, 5.0, 2.0)) v[2] += 1e-9;
        for (auto& t : box.triangles)
            t = Triangle<3>::through(t.vertex[0], t.vertex[1], t.vertex[2], 1.0);
        CHECK(loose_cells(box) == cells_over(box, 4.5, 5.5, 4.5, 5.5));
    }
    SUBCASE("round-off of the coordinates is no fold") {
        Box<3> box = floor_box(20);
        for (auto& t : box.triangles)
            for (auto& v : t.vertex)
                if (v == vec(5.0, 5.0, 2.0)) v[2] = std::nextafter(2.0, 3.0);
        for (auto& t : box.triangles)
            t = Triangle<3>::through(t.vertex[0], t.vertex[1], t.vertex[2], 1.0);
        CHECK(loose_cells(box).empty());
    }
    SUBCASE("another restitution") {
        Box<3> box = floor_box(20);
        for (int k = 0; k < 2; ++k) box.triangles[2 * (5 * 20 + 5) + k].restitution = 0.5;
        CHECK(loose_cells(box) == cells_over(box, 2.5, 3.0, 2.5, 3.0));
    }
    SUBCASE("a one-sided square") {
        Box<3> box = floor_box(20);
        for (int k = 0; k < 2; ++k) box.triangles[2 * (5 * 20 + 5) + k].one_sided = true;
        const Grid g = grid_of(box);
        CHECK(loose_cells(box) == cells_over(box, 2.5, 3.0, 2.5, 3.0));
        // and it is never in a patch anywhere
        for (std::uint32_t c = 0; c < g.cells.size(); ++c)
            for (const auto* p = g.near.patches_begin(c); p != g.near.patches_end(c); ++p)
                for (std::uint32_t k = p->first; k < p->last; ++k)
                    CHECK(!(g.near.begin(0) + k)->one_sided);
    }
    SUBCASE("a floor that ends inside the box") {
        Box<3> box;
        box.length = vec(10.0, 10.0, 6.0);
        box.periodic = {false, false, false};
        add_quad(box, vec(0, 0, 2), vec(6, 0, 2), vec(6, 10, 2), vec(0, 10, 2), 1.0, 12);
        // the cells reaching past x = 6 (their shadow is not all floor)
        CHECK(loose_cells(box) == cells_over(box, 6.0, 10.0, 0.0, 10.0));
    }
}

namespace {

// The patches of one cell as find_patches made them before issue 41, comparing every
// two-sided entry with every later one (quadratic in the cell's entries): the oracle of the
// keyed search. From the cell's entries as listed (no patches), in their order: the entries
// in the new order, where the loose ones end, and each patch's range and plane.
struct CellPatches {
    std::vector<std::uint32_t> order;
    std::uint32_t loose = 0;
    std::vector<std::array<double, 6>> patches; // first, last, normal, offset
};

bool same_plane_pairwise(const TriangleCells<3>::Entry& s, const TriangleCells<3>::Entry& j,
                         const V& lo, const V& hi, double tolerance) {
    const double sign = dot(s.normal, j.normal) >= 0.0 ? 1.0 : -1.0;
    for (int k = 0; k < 8; ++k) {
        V x;
        for (int a = 0; a < 3; ++a) x[a] = (k >> a) & 1 ? hi[a] : lo[a];
        const double hs = dot(x, s.normal) - s.offset, hj = dot(x, j.normal) - j.offset;
        if (!(std::abs(hs - sign * hj) <= tolerance)) return false;
    }
    return true;
}

CellPatches pairwise_patches(const Cells<3>& cells, std::uint32_t c, const TriangleCells<3>& plain,
                             const std::vector<Triangle<3>>& triangles, double reach, double a) {
    const double margin = reach - a, close = patch_gap_tolerance * a - 2.0 * margin;
    const double tolerance = coplanar_tolerance * a;
    const auto* e = plain.begin(c);
    const auto n = static_cast<std::uint32_t>(plain.end(c) - e);
    V lo, hi, mid, grown_lo, grown_hi;
    for (int k = 0; k < 3; ++k) {
        lo[k] = cells.bound(c, k, -1), hi[k] = cells.bound(c, k, 1);
        grown_lo[k] = lo[k] - margin, grown_hi[k] = hi[k] + margin, mid[k] = 0.5 * (lo[k] + hi[k]);
    }
    std::vector<char> tried(n, 0), patched(n, 0);
    std::vector<std::vector<std::uint32_t>> groups;
    std::vector<std::uint32_t> seeds;
    for (std::uint32_t s = 0; s < n; ++s) {
        if (tried[s] || e[s].one_sided) continue;
        tried[s] = 1;
        const auto slab = pc::box_in_slab(lo, hi, e[s].normal, e[s].offset, a + 2.0 * margin);
        if (slab.empty()) continue;
        std::vector<std::uint32_t> group{s};
        for (std::uint32_t j = s + 1; j < n; ++j)
            if (!tried[j] && !e[j].one_sided &&
                same_plane_pairwise(e[s], e[j], grown_lo, grown_hi, tolerance) &&
                triangles[e[j].index].restitution == triangles[e[s].index].restitution)
                group.push_back(j), tried[j] = 1;
        const pc::PlaneFrame frame(e[s].normal, mid);
        std::vector<pc::Point> shadow;
        for (const auto& x : slab) shadow.push_back(frame(x));
        std::vector<Tri2> flat;
        for (const std::uint32_t j : group) {
            const auto& v = triangles[e[j].index].vertex;
            flat.push_back({frame(v[0]), frame(v[1]), frame(v[2])});
        }
        if (!(pc::farthest_uncovered(pc::convex_hull(shadow), flat, close) <= close)) continue;
        for (const std::uint32_t j : group) patched[j] = 1;
        groups.push_back(group), seeds.push_back(s);
    }
    CellPatches out;
    for (std::uint32_t j = 0; j < n; ++j)
        if (!patched[j]) out.order.push_back(e[j].index);
    out.loose = static_cast<std::uint32_t>(out.order.size());
    for (std::size_t p = 0; p < groups.size(); ++p) {
        const double first = static_cast<double>(out.order.size());
        for (const std::uint32_t j : groups[p]) out.order.push_back(e[j].index);
        const auto& s = e[seeds[p]];
        out.patches.push_back({first, static_cast<double>(out.order.size()), s.normal[0],
                               s.normal[1], s.normal[2], s.offset});
    }
    return out;
}

} // namespace

TEST_CASE("flat patches found by key are those of comparing every pair") {
    // Cells hold at once: a bumpy floor (no two facets coplanar), a flat floor of two
    // restitutions (halves) with one-sided squares, a copy of a flat part turned over (the
    // other orientation, the other restitution), a fan of planes through one point, and the
    // box's walls; the floors 40 x 40 squares 0.25 wide, at z = 1 (bumpy) and z = 3.
    Box<3> box;
    box.length = vec(10.0, 10.0, 6.0);
    box.periodic = {false, false, false};
    add_box_walls(box, 1.0);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> bump(0.0, 0.05);
    const int n = 40;
    std::vector<double> z((n + 1) * (n + 1));
    for (auto& h : z) h = 1.0 + bump(rng);
    const auto at = [&](int i, int j) {
        return vec(10.0 * i / n, 10.0 * j / n, z[static_cast<std::size_t>(i * (n + 1) + j)]);
    };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            box.triangles.push_back(
                Triangle<3>::through(at(i, j), at(i + 1, j), at(i + 1, j + 1), 1.0));
            box.triangles.push_back(
                Triangle<3>::through(at(i, j), at(i + 1, j + 1), at(i, j + 1), 1.0));
        }
    const std::size_t flat_first = box.triangles.size();
    add_quad(box, vec(0, 0, 3), vec(10, 0, 3), vec(10, 10, 3), vec(0, 10, 3), 1.0, n);
    for (std::size_t k = flat_first; k < box.triangles.size(); ++k) {
        const V c = box.triangles[k].centre; // restitution 0.5 for x < 5, one-sided squares
        if (c[0] < 5.0) box.triangles[k].restitution = 0.5;
        if (c[0] > 7.0 && c[0] < 8.0 && c[1] > 7.0 && c[1] < 8.0) box.triangles[k].one_sided = true;
    }
    for (std::size_t k = flat_first; k < flat_first + 200; ++k) { // turned over
        const auto& v = box.triangles[k].vertex;
        box.triangles.push_back(Triangle<3>::through(v[0], v[2], v[1], 1.0));
    }
    const V apex = vec(5.0, 5.0, 4.5);
    for (int k = 0; k < 24; ++k) { // a fan about the vertical through the apex
        const double phi = 2.0 * 3.141592653589793 * k / 24, r = 0.6;
        box.triangles.push_back(Triangle<3>::through(
            apex, apex + vec(r * std::cos(phi), r * std::sin(phi), 0.2),
            apex + vec(r * std::cos(phi + 0.2), r * std::sin(phi + 0.2), -0.2), 1.0));
    }
    const Grid g = grid_of(box);
    const double a = 0.5, reach = a + cell_bounds_round_off * (a + 1.25);
    const TriangleCells<3> plain(g.cells, box.triangles, reach);
    std::size_t patches = 0, loose = 0;
    for (std::uint32_t c = 0; c < g.cells.size(); ++c) {
        CAPTURE(c);
        const CellPatches want = pairwise_patches(g.cells, c, plain, box.triangles, reach, a);
        std::vector<std::uint32_t> order;
        for (const auto* e = g.near.begin(c); e != g.near.end(c); ++e) order.push_back(e->index);
        CHECK(order == want.order);
        CHECK(g.near.loose_end(c) - g.near.begin(c) == want.loose);
        REQUIRE(g.near.patches_end(c) - g.near.patches_begin(c) ==
                static_cast<std::ptrdiff_t>(want.patches.size()));
        const std::uint32_t base = static_cast<std::uint32_t>(g.near.begin(c) - g.near.begin(0));
        for (std::size_t p = 0; p < want.patches.size(); ++p) {
            const auto& got = g.near.patches_begin(c)[p];
            CHECK(got.first - base == want.patches[p][0]);
            CHECK(got.last - base == want.patches[p][1]);
            CHECK((got.normal == vec(want.patches[p][2], want.patches[p][3], want.patches[p][4])));
            CHECK(got.offset == want.patches[p][5]);
        }
        patches += want.patches.size(), loose += want.loose;
    }
    // the case holds both kinds in numbers
    CHECK(patches > 100);
    CHECK(loose > 5000);
}

TEST_CASE("the patch's holder is the triangle under the contact") {
    const Box<3> box = floor_box(20);
    const Grid g = grid_of(box);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int k = 0; k < 2000; ++k) {
        const V x = vec(0.5 + 9.0 * u(rng), 0.5 + 9.0 * u(rng), 2.5);
        std::uint32_t cell = 0;
        for (std::uint32_t c = 0; c < g.cells.size(); ++c) {
            bool in = true;
            for (int a = 0; a < 3; ++a)
                in = in && x[a] >= g.cells.bound(c, a, -1) && x[a] < g.cells.bound(c, a, 1);
            if (in) cell = c;
        }
        REQUIRE(g.near.patches_end(cell) - g.near.patches_begin(cell) == 1);
        const std::uint32_t t = g.near.holder(*g.near.patches_begin(cell), x, box.triangles);
        CHECK(box.triangles[t].distance(x) == doctest::Approx(0.5).epsilon(1e-14));
        CHECK(box.triangles[t].over(x + vec(0, 0, -1e-12)) ==
              true); // its face is under the centre (edges included)
    }
}

// --- The engine on patches against plane walls ------------------------------------------

namespace {

struct Logged : EventLog {
    struct Event {
        double time;
        std::uint32_t a, b;
        bool wall;
    };
    std::vector<Event> events;
    void pair(double t, std::uint32_t a, std::uint32_t b) override {
        events.push_back({t, std::min(a, b), std::max(a, b), false}); // either may log it
    }
    void wall(double t, std::uint32_t a, std::uint32_t w) override {
        events.push_back({t, a, w, true});
    }
};

// The square [lo, hi]² across `axis` at `level`, n x n squares of two triangles, with
// coordinates computed exactly on the axis (the triangles' normals are exactly ±axis, as
// the plane walls' are).
void add_face(std::vector<Triangle<3>>& out, int axis, double level, double lo, double hi, int n) {
    auto at = [&](int i, int j) {
        V p;
        p[axis] = level;
        p[(axis + 1) % 3] = lo + (hi - lo) * i / n;
        p[(axis + 2) % 3] = lo + (hi - lo) * j / n;
        return p;
    };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            out.push_back(Triangle<3>::through(at(i, j), at(i + 1, j), at(i + 1, j + 1), 1.0));
            out.push_back(Triangle<3>::through(at(i, j), at(i + 1, j + 1), at(i, j + 1), 1.0));
        }
}

// A walled box 12 wide holding the cube [1, 11]³: as six plane walls, or with each face
// meshed as n x n squares (a cell by a face sees it as one patch).
Box<3> cube_box(int n) {
    Box<3> box;
    box.length = vec(12.0, 12.0, 12.0);
    box.periodic = {false, false, false};
    add_box_walls(box, 1.0);
    const double lo = 1.0, hi = 11.0;
    for (int a = 0; a < 3; ++a)
        if (n == 0) {
            Wall<3> low, high;
            low.normal[a] = 1.0, low.offset = lo;
            high.normal[a] = -1.0, high.offset = -hi;
            box.walls.push_back(low), box.walls.push_back(high);
        } else {
            add_face(box.triangles, a, lo, lo, hi, n);
            add_face(box.triangles, a, hi, lo, hi, n);
        }
    return box;
}

// The face of the cube a wall event names: 0..5 as (axis, low/high), from a plane wall's
// number (after the box's own six) or a triangle's plane.
int face_of(const Box<3>& box, std::uint32_t w) {
    if (box.triangles.empty()) return static_cast<int>(w) - 6;
    const Triangle<3>& t = box.triangles[w - box.walls.size()];
    for (int a = 0; a < 3; ++a)
        if (std::abs(t.normal[a]) == 1.0) return 2 * a + (t.vertex[0][a] > 6.0);
    return -1; // (never: every triangle lies on a face)
}

// The first `count` events of a gas of 100 spheres in the cube of planes and in the meshed
// cube, side by side: the same collisions at the same times. The two compute a wall
// contact at different instants (a patch's only once the crossing before it is made), so
// their times differ by an ulp or so, and round-off parts any two exact simulations after
// a few collisions a particle (here first after 5.9 to 7.5 events a particle); 4 events a
// particle are compared, each to 1e-9, while a missed, extra or misplaced wall contact
// would change a particle's next event at once.
template <class Motion>
void compare_with_planes(int n, const Motion& motion, unsigned seed, std::size_t count = 400) {
    const Box<3> planes = cube_box(0), mesh = cube_box(n);
    const auto particles = gas_in_mesh(mesh, 100, seed);
    Engine<3, DefaultCalendar, Motion> a(planes, particles, {}, motion),
        b(mesh, particles, {}, motion);
    Logged log_a, log_b;
    a.log_events_to(&log_a);
    b.log_events_to(&log_b);
    while (log_a.events.size() < count) a.run(never, ~0ull, 100);
    while (log_b.events.size() < count) b.run(never, ~0ull, 100);
    std::size_t walls = 0, differ = 0;
    for (std::size_t k = 0; k < count; ++k) {
        const auto& x = log_a.events[k];
        const auto& y = log_b.events[k];
        const bool same = x.wall == y.wall && x.a == y.a &&
                          (x.wall ? face_of(planes, x.b) == face_of(mesh, y.b) : x.b == y.b) &&
                          std::abs(x.time - y.time) <= 1e-9 * (1.0 + x.time);
        if (!same && differ == 0)
            MESSAGE("first difference at event " << k << ": t = " << x.time << ", " << y.time);
        differ += !same;
        walls += x.wall;
    }
    CHECK(differ == 0);
    CHECK(walls > count / 4);
    CHECK(b.tally().max_overlap <= 1e-9);
}

} // namespace

TEST_CASE("a cube of finely meshed faces runs as the cube of plane walls: straight flights") {
    const Grid g = grid_of(cube_box(16));
    CHECK(g.near.patches() > 100); // the faces are patches
    for (const unsigned seed : {21u, 22u, 23u}) compare_with_planes(16, Ballistic<3>{}, seed);
}

TEST_CASE("a cube of finely meshed faces runs as the cube of plane walls: gravity and drag") {
    for (const unsigned seed : {21u, 22u, 23u}) {
        compare_with_planes(16, Field<3>(vec(0.3, -0.2, -1.0), 0.0), seed);
        compare_with_planes(7, Field<3>(vec(0.0, 0.0, -1.0), 0.1), seed);
    }
}

} // namespace test_flat_patches
