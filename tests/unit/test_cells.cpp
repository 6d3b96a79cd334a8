// The linked-cell grid: neighbour lists and their periodic shifts, the layer of new
// neighbours after a crossing, membership bookkeeping, and cell-crossing times.
#include <choc/kernel/cells.hpp>

#include <doctest/doctest.h>

#include "test_box.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace test_cells {

using namespace choc;

namespace {

// One cell of a Stencil with its shift.
template <int D>
struct Neighbour {
    std::uint32_t cell;
    Vec<D> shift;
};

template <int D>
std::vector<Neighbour<D>> listed(const typename Cells<D>::Stencil& s) {
    std::vector<Neighbour<D>> out;
    for (int k = 0; k < s.size; ++k) out.push_back({s.cell[k], s.shift()[k]});
    return out;
}

template <int D>
std::vector<Neighbour<D>> neighbours_of(const Cells<D>& cells, std::uint32_t c) {
    typename Cells<D>::Stencil s;
    cells.around(c, s);
    return listed<D>(s);
}

template <int D>
std::vector<Neighbour<D>> layer_of(const Cells<D>& cells, std::uint32_t c, int axis, int dir) {
    typename Cells<D>::Stencil s;
    cells.layer(c, axis, dir, s);
    return listed<D>(s);
}

// Where a neighbour's image sits in the unwrapped lattice of cells: its coordinates plus
// the shift in whole box lengths times the cell count. Shifts are exactly 0 or +-L, so
// the rounding only turns an exact +-1.0 into an int.
template <int D>
std::array<int, D> image_coords(const Cells<D>& cells, const Box<D>& box, const Neighbour<D>& nb) {
    auto c = cells.coords(nb.cell);
    for (int a = 0; a < D; ++a)
        c[a] += static_cast<int>(std::lround(nb.shift[a] / box.length[a])) * cells.counts()[a];
    return c;
}

// A uniformly random point inside cell `c` (strictly inside: kept 1e-9 widths from the
// faces so that floor(x / width) cannot round onto the next cell).
template <int D>
Vec<D> point_in(const Cells<D>& cells, std::uint32_t c, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(1e-9, 1.0 - 1e-9);
    const auto k = cells.coords(c);
    Vec<D> x;
    for (int a = 0; a < D; ++a) x[a] = (k[a] + u(rng)) * cells.width()[a];
    return x;
}

// Number of neighbour cells a cell has: per axis 3 offsets, fewer at a walled edge
// (2 in an outer cell, 1 when the axis has a single cell).
template <int D>
int expected_neighbour_count(const Cells<D>& cells, const Box<D>& box, std::uint32_t c) {
    const auto k = cells.coords(c);
    int count = 1;
    for (int a = 0; a < D; ++a) {
        const int n = cells.counts()[a];
        if (box.periodic[a]) {
            count *= 3;
            continue;
        }
        int m = 0;
        for (int o = -1; o <= 1; ++o) m += k[a] + o >= 0 && k[a] + o < n;
        count *= m;
    }
    return count;
}

// around() of every cell: the right count, distinct cells, the cell itself with no
// shift, each neighbour one step away on every axis (through the shift), and walled axes
// never shifted.
template <int D>
void check_neighbours(const Box<D>& box, double min_width) {
    const Cells<D> cells(box, min_width, 0);
    for (std::uint32_t c = 0; c < cells.size(); ++c) {
        const auto nbs = neighbours_of(cells, c);
        REQUIRE(static_cast<int>(nbs.size()) == expected_neighbour_count(cells, box, c));
        std::set<std::uint32_t> distinct;
        bool self = false;
        for (const auto& nb : nbs) {
            distinct.insert(nb.cell);
            REQUIRE(nb.cell < cells.size());
            const auto here = cells.coords(c);
            const auto there = image_coords(cells, box, nb);
            for (int a = 0; a < D; ++a) {
                CHECK(std::abs(there[a] - here[a]) <= 1);
                if (!box.periodic[a]) CHECK(nb.shift[a] == 0.0);
                // a shift is used exactly when the step leaves the grid
                const bool outside = there[a] < 0 || there[a] >= cells.counts()[a];
                CHECK((nb.shift[a] != 0.0) == outside);
            }
            if (nb.cell == c) {
                self = true;
                CHECK(nb.shift == Vec<D>{});
            }
        }
        CHECK(distinct.size() == nbs.size());
        CHECK(self);
    }
}

} // namespace

TEST_CASE("neighbours: 27 (3D) or 9 (2D) distinct cells in a periodic grid, shifts at edges") {
    // 3 per axis is the smallest allowed grid: there every cell is every other's neighbour
    check_neighbours(make_box<3>({6.0, 6.0, 6.0}, {true, true, true}), 2.0);
    check_neighbours(make_box<3>({10.0, 7.0, 13.0}, {true, true, true}), 2.0); // 5 x 3 x 6
    check_neighbours(make_box<2>({6.0, 6.0}, {true, true}), 2.0);
    check_neighbours(make_box<2>({11.0, 8.5}, {true, true}), 2.0); // 5 x 4
    const Cells<3> cells(make_box<3>({10.0, 7.0, 13.0}, {true, true, true}), 2.0, 0);
    for (std::uint32_t c = 0; c < cells.size(); ++c) CHECK(neighbours_of(cells, c).size() == 27);
    const Cells<2> flat(make_box<2>({11.0, 8.5}, {true, true}), 2.0, 0);
    for (std::uint32_t c = 0; c < flat.size(); ++c) CHECK(neighbours_of(flat, c).size() == 9);
}

TEST_CASE("neighbours: across the periodic edge, x_j + shift lies next to the corner cell") {
    std::mt19937_64 rng(3);
    const auto box = make_box<3>({10.0, 7.0, 13.0}, {true, true, true});
    const Cells<3> cells(box, 2.0, 0);
    const std::uint32_t corner = cells.flat({0, 0, 0});
    for (const auto& nb : neighbours_of(cells, corner)) {
        for (int trial = 0; trial < 50; ++trial) {
            const Vec<3> xi = point_in(cells, corner, rng);
            const Vec<3> xj = point_in(cells, nb.cell, rng) + nb.shift;
            // two points in adjacent cells are less than two widths apart on every axis;
            // the shift is an exact box length, so the difference is exact to round-off
            for (int a = 0; a < 3; ++a) CHECK(std::abs(xj[a] - xi[a]) < 2.0 * cells.width()[a]);
        }
    }
    // The far corner appears with the shift -L on every axis (it sits below 0 from here).
    const std::uint32_t far = cells.flat({4, 2, 5});
    const auto nbs = neighbours_of(cells, corner);
    const auto it = std::find_if(nbs.begin(), nbs.end(), [&](auto& nb) { return nb.cell == far; });
    REQUIRE(it != nbs.end());
    CHECK(it->shift == Vec<3>{{-10.0, -7.0, -13.0}});
}

namespace {

// Random pairs closer than the minimum cell width: the partner's cell is among the
// neighbours of the particle's cell, and x_j + shift - x_i is the separation we built.
template <int D>
void check_close_pairs(const Box<D>& box, double min_width, unsigned seed) {
    const Cells<D> cells(box, min_width, 0);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_real_distribution<double> step(-min_width, min_width);
    int found = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        Vec<D> xi, r;
        for (int a = 0; a < D; ++a) xi[a] = u(rng) * box.length[a];
        for (int a = 0; a < D; ++a) r[a] = step(rng);
        if (norm(r) >= min_width) continue;
        Vec<D> xj = xi + r;
        bool inside = true;
        for (int a = 0; a < D; ++a) {
            if (box.periodic[a])
                xj[a] -= std::floor(xj[a] / box.length[a]) * box.length[a];
            else
                inside = inside && xj[a] >= 0.0 && xj[a] < box.length[a];
        }
        if (!inside) continue; // behind a wall: not a partner
        ++found;
        const auto nbs = neighbours_of(cells, cells.cell_at(xi));
        const std::uint32_t cj = cells.cell_at(xj);
        const auto it =
            std::find_if(nbs.begin(), nbs.end(), [&](auto& nb) { return nb.cell == cj; });
        REQUIRE(it != nbs.end());
        // folding and unfolding by L costs a few ulp of L: 1e-12 of the box is ample
        const Vec<D> seen = xj + it->shift - xi;
        for (int a = 0; a < D; ++a) CHECK(std::abs(seen[a] - r[a]) <= 1e-12 * box.length[a]);
    }
    CHECK(found > 1000); // enough pairs were tried
}

} // namespace

TEST_CASE("neighbours: every pair closer than the cell width is found, with the minimum image") {
    // The property the engine relies on: a partner within one largest diameter of a
    // particle sits in one of its neighbour cells, seen at the minimum image.
    check_close_pairs(make_box<3>({10.0, 7.0, 13.0}, {true, true, true}), 2.0, 11);
    check_close_pairs(make_box<3>({10.0, 7.0, 13.0}, {true, false, true}), 2.0, 12);
    check_close_pairs(make_box<3>({6.0, 6.0, 6.0}, {true, true, true}), 2.0, 13);
    check_close_pairs(make_box<2>({11.0, 8.5}, {true, true}), 2.0, 14);
    check_close_pairs(make_box<2>({11.0, 8.5}, {false, true}), 2.0, 15);
}

TEST_CASE("neighbours: walled axes have fewer neighbours at the edges, and no shifts") {
    // all walled, 5 x 4 x 3 cells: corner 2*2*2 = 8, edge 2*2*3 = 12, face 2*3*3 = 18,
    // interior 27 (the 3D counts); the 2D analogues are 4, 6 and 9
    const auto box3 = make_box<3>({10.0, 8.0, 6.0}, {false, false, false});
    const Cells<3> c3(box3, 2.0, 0);
    CHECK(neighbours_of(c3, c3.flat({0, 0, 0})).size() == 8);
    CHECK(neighbours_of(c3, c3.flat({4, 3, 2})).size() == 8);
    CHECK(neighbours_of(c3, c3.flat({2, 0, 0})).size() == 12);
    CHECK(neighbours_of(c3, c3.flat({2, 1, 0})).size() == 18);
    CHECK(neighbours_of(c3, c3.flat({2, 1, 1})).size() == 27);
    const auto box2 = make_box<2>({10.0, 8.0}, {false, false});
    const Cells<2> c2(box2, 2.0, 0);
    CHECK(neighbours_of(c2, c2.flat({0, 0})).size() == 4);
    CHECK(neighbours_of(c2, c2.flat({4, 3})).size() == 4);
    CHECK(neighbours_of(c2, c2.flat({2, 0})).size() == 6);
    CHECK(neighbours_of(c2, c2.flat({0, 2})).size() == 6);
    CHECK(neighbours_of(c2, c2.flat({2, 2})).size() == 9);
    // every cell against the product rule, walled and mixed, including a walled axis
    // with a single cell (length below two widths) and one with two
    check_neighbours(box3, 2.0);
    check_neighbours(box2, 2.0);
    check_neighbours(make_box<3>({10.0, 3.0, 4.5}, {true, false, false}), 2.0); // 5 x 1 x 2
    check_neighbours(make_box<3>({6.0, 7.0, 9.0}, {false, true, false}), 2.0);
    check_neighbours(make_box<2>({10.0, 3.0}, {true, false}), 2.0);
    check_neighbours(make_box<2>({3.9, 8.0}, {false, true}), 2.0);
}

namespace {

// layer(cell, axis, dir) after entering `cell` from its neighbour at -dir on `axis`:
// 3^(D-1) cells on a periodic grid, and exactly the neighbours of the new cell that were
// not neighbours of the old one. Compared as images (cell plus shift, in the unwrapped
// lattice, with the entered cell shifted back by a whole box when the step wrapped), which
// is right for any grid of at least 3 cells; and, when `by_id` (every periodic axis has at
// least 4 cells, so no cell is adjacent from both sides), also as plain cell ids.
template <int D>
void check_new_layer(const Box<D>& box, double min_width, bool by_id) {
    const Cells<D> cells(box, min_width, 0);
    for (std::uint32_t c = 0; c < cells.size(); ++c) {
        for (int axis = 0; axis < D; ++axis) {
            for (int dir : {-1, 1}) {
                const auto k = cells.coords(c);
                const int back = k[axis] - dir;
                const int n = cells.counts()[axis];
                if (!box.periodic[axis] && (back < 0 || back >= n)) continue; // no such entry
                bool wrapped = false;
                const std::uint32_t prev = cells.step(c, axis, -dir, wrapped);
                CHECK(wrapped == (back < 0 || back >= n));

                const auto layer = layer_of(cells, c, axis, dir);
                const auto now_nbs = neighbours_of(cells, c);
                const auto old_nbs = neighbours_of(cells, prev);
                // each layer entry is one of the new cell's neighbours, with the same shift
                for (const auto& l : layer) {
                    const auto it = std::find_if(now_nbs.begin(), now_nbs.end(), [&](auto& nb) {
                        return nb.cell == l.cell && nb.shift == l.shift;
                    });
                    CHECK(it != now_nbs.end());
                }
                // images: the old cell's neighbours seen from the new cell's frame
                std::set<std::array<int, D>> old_images, now_images, layer_images;
                for (const auto& nb : old_nbs) {
                    auto im = image_coords(cells, box, nb);
                    if (wrapped) im[axis] -= dir * n; // prev sits one box behind, seen from c
                    old_images.insert(im);
                }
                for (const auto& nb : now_nbs) now_images.insert(image_coords(cells, box, nb));
                for (const auto& l : layer) layer_images.insert(image_coords(cells, box, l));
                std::set<std::array<int, D>> expected;
                std::set_difference(now_images.begin(), now_images.end(), old_images.begin(),
                                    old_images.end(), std::inserter(expected, expected.end()));
                CHECK(layer_images == expected);
                CHECK(layer_images.size() == layer.size());
                if (by_id) {
                    std::set<std::uint32_t> now_ids, old_ids, layer_ids, expected_ids;
                    for (const auto& nb : now_nbs) now_ids.insert(nb.cell);
                    for (const auto& nb : old_nbs) old_ids.insert(nb.cell);
                    for (const auto& l : layer) layer_ids.insert(l.cell);
                    std::set_difference(now_ids.begin(), now_ids.end(), old_ids.begin(),
                                        old_ids.end(),
                                        std::inserter(expected_ids, expected_ids.end()));
                    CHECK(layer_ids == expected_ids);
                }
                // the count: 3 per other axis (fewer at walls), none beyond a wall ahead
                int count = 1;
                for (int a = 0; a < D; ++a) {
                    if (a == axis) {
                        const int ahead = k[a] + dir;
                        count *= box.periodic[a] || (ahead >= 0 && ahead < n) ? 1 : 0;
                    } else if (box.periodic[a]) {
                        count *= 3;
                    } else {
                        int m = 0;
                        for (int o = -1; o <= 1; ++o)
                            m += k[a] + o >= 0 && k[a] + o < cells.counts()[a];
                        count *= m;
                    }
                }
                CHECK(static_cast<int>(layer.size()) == count);
            }
        }
    }
}

} // namespace

TEST_CASE("layer: the 3^(D-1) cells adjacent to the new cell and not to the old one") {
    check_new_layer(make_box<3>({10.0, 8.0, 12.0}, {true, true, true}), 2.0, true); // 5 x 4 x 6
    check_new_layer(make_box<2>({10.0, 8.0}, {true, true}), 2.0, true);
    // 3 cells on an axis: the cell ahead was adjacent to the old one through the other
    // side, so only the image comparison applies
    check_new_layer(make_box<3>({6.0, 6.0, 8.0}, {true, true, true}), 2.0, false);
    check_new_layer(make_box<2>({6.0, 10.0}, {true, true}), 2.0, false);
    // walls: fewer cells at edges, none ahead of the outermost cell
    check_new_layer(make_box<3>({10.0, 8.0, 6.0}, {false, false, false}), 2.0, true);
    check_new_layer(make_box<3>({10.0, 8.0, 6.0}, {true, false, true}), 2.0, false);
    check_new_layer(make_box<2>({10.0, 8.0}, {false, true}), 2.0, true);
    // periodic grid: exactly 9 (3D) and 3 (2D) every time
    const Cells<3> c3(make_box<3>({10.0, 8.0, 12.0}, {true, true, true}), 2.0, 0);
    for (std::uint32_t c = 0; c < c3.size(); ++c)
        for (int axis = 0; axis < 3; ++axis)
            for (int dir : {-1, 1}) CHECK(layer_of(c3, c, axis, dir).size() == 9);
    const Cells<2> c2(make_box<2>({10.0, 8.0}, {true, true}), 2.0, 0);
    for (std::uint32_t c = 0; c < c2.size(); ++c)
        for (int axis = 0; axis < 2; ++axis)
            for (int dir : {-1, 1}) CHECK(layer_of(c2, c, axis, dir).size() == 3);
}

namespace {

// The grid's members of every cell against a brute-force map particle -> cell.
template <int D>
void check_membership(const Cells<D>& cells, const std::map<std::uint32_t, std::uint32_t>& where) {
    std::vector<std::multiset<std::uint32_t>> expected(cells.size());
    for (const auto& [i, c] : where) expected[c].insert(i);
    for (std::uint32_t c = 0; c < cells.size(); ++c) {
        const std::multiset<std::uint32_t> got(cells.begin(c), cells.end(c));
        REQUIRE(got == expected[c]);
    }
    for (const auto& [i, c] : where) REQUIRE(cells.cell_of(i) == c);
}

} // namespace

TEST_CASE("insert, remove and move keep cell membership consistent") {
    // 3 x 3 cells for 300 particles: ~33 per cell on average and up to all of them in one,
    // far beyond the initial capacity of 8, so the storage grows several times.
    const auto box = make_box<2>({6.0, 6.0}, {true, true});
    const std::uint32_t n = 300;
    Cells<2> cells(box, 2.0, n);
    std::map<std::uint32_t, std::uint32_t> where;
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<std::uint32_t> any_cell(0, static_cast<std::uint32_t>(8));
    std::uniform_int_distribution<std::uint32_t> any_particle(0, n - 1);

    SUBCASE("all in one cell, then spread out") {
        for (std::uint32_t i = 0; i < n; ++i) {
            cells.insert(i, 4);
            where[i] = 4;
            if (i % 7 == 0) check_membership(cells, where);
        }
        check_membership(cells, where);
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t to = any_cell(rng);
            cells.move(i, to);
            where[i] = to;
        }
        check_membership(cells, where);
    }

    SUBCASE("random moves, removals and re-insertions") {
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t c = any_cell(rng);
            cells.insert(i, c);
            where[i] = c;
        }
        check_membership(cells, where);
        std::vector<std::uint32_t> out; // removed particles, waiting to come back
        std::uniform_int_distribution<int> op(0, 9);
        for (int step = 0; step < 20000; ++step) {
            const int o = op(rng);
            const std::uint32_t i = any_particle(rng);
            if (o == 0 && where.count(i)) { // remove
                cells.remove(i);
                where.erase(i);
                out.push_back(i);
            } else if (o == 1 && !out.empty()) { // insert a removed one again
                const std::uint32_t j = out.back();
                out.pop_back();
                const std::uint32_t c = any_cell(rng);
                cells.insert(j, c);
                where[j] = c;
            } else if (where.count(i)) { // move, sometimes to the cell it is in
                const std::uint32_t c = o == 2 ? where[i] : any_cell(rng);
                cells.move(i, c);
                where[i] = c;
            }
            if (step % 97 == 0) check_membership(cells, where);
        }
        check_membership(cells, where);
    }
}

namespace {

// Every list in its order, and every particle's place in it.
template <int D>
std::vector<std::vector<std::uint32_t>> lists_of(const Cells<D>& cells, std::uint32_t n) {
    std::vector<std::vector<std::uint32_t>> out(cells.size());
    for (std::uint32_t c = 0; c < cells.size(); ++c) out[c].assign(cells.begin(c), cells.end(c));
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto& l = out[cells.cell_of(i)];
        REQUIRE(l[cells.slot_of(i)] == i);
    }
    return out;
}

} // namespace

TEST_CASE("unmove: moves undone in reverse order leave every list as it was, order included") {
    // (GroupStep's crossings made ahead inside a window, then undone: group_step.hpp)
    const auto box = make_box<2>({6.0, 6.0}, {true, true});
    const std::uint32_t n = 60; // ~7 a cell: the first and the last of a list both move
    Cells<2> cells(box, 2.0, n);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::uint32_t> any_cell(0, 8), any_particle(0, n - 1);
    for (std::uint32_t i = 0; i < n; ++i) cells.insert(i, any_cell(rng));
    for (int trial = 0; trial < 200; ++trial) {
        const auto before = lists_of(cells, n);
        struct Move {
            std::uint32_t i, from, slot;
        };
        std::vector<Move> done;
        for (int m = 0; m < 1 + trial % 6; ++m) { // the same particle may move again
            const std::uint32_t i =
                trial % 4 == 0 && !done.empty() ? done.back().i : any_particle(rng);
            std::uint32_t to = any_cell(rng);
            if (to == cells.cell_of(i)) to = (to + 1) % 9;
            done.push_back({i, cells.cell_of(i), cells.slot_of(i)});
            cells.move(i, to);
        }
        for (auto m = done.rbegin(); m != done.rend(); ++m) cells.unmove(m->i, m->from, m->slot);
        REQUIRE(lists_of(cells, n) == before);
        // and on from there: a few ordinary moves, so that the next trial starts elsewhere
        for (int m = 0; m < 5; ++m) cells.move(any_particle(rng), any_cell(rng));
    }
}

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Crossing time straight from the definition: on each axis with motion, the face ahead at
// (k + 1) w or k w is reached after (face - x) / v, unless the cell is the outermost one
// on a walled axis; the earliest wins, and nothing happens before `now`.
template <int D>
typename Cells<D>::Crossing direct_crossing(const Cells<D>& cells, const Box<D>& box,
                                            std::uint32_t c, const Vec<D>& x, const Vec<D>& v,
                                            double t0, double now) {
    const auto k = cells.coords(c);
    typename Cells<D>::Crossing best{inf, 0, 0};
    for (int a = 0; a < D; ++a) {
        if (v[a] == 0.0) continue;
        const int dir = v[a] > 0.0 ? 1 : -1;
        const int next = k[a] + dir;
        if (!box.periodic[a] && (next < 0 || next >= cells.counts()[a])) continue;
        const double face = (dir > 0 ? k[a] + 1 : k[a]) * cells.width()[a];
        const double t = std::max(now, t0 + std::max(0.0, (face - x[a]) / v[a]));
        if (t < best.time) best = {t, a, dir};
    }
    return best;
}

template <int D>
void check_crossings(const Box<D>& box, double min_width, unsigned seed) {
    const Cells<D> cells(box, min_width, 0);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> gauss;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<std::uint32_t> any_cell(
        0, static_cast<std::uint32_t>(cells.size() - 1));
    for (int trial = 0; trial < 20000; ++trial) {
        const std::uint32_t c = any_cell(rng);
        const Vec<D> x = point_in(cells, c, rng);
        Vec<D> v;
        for (int a = 0; a < D; ++a) v[a] = trial % 5 == 0 && a == 0 ? 0.0 : gauss(rng);
        const double t0 = 10.0 * u(rng);
        // now usually at t0, sometimes later (states are stored at the particle's own
        // time stamp and predicted from a later clock)
        const double now = trial % 3 == 0 ? t0 + 0.5 * u(rng) : t0;
        const auto got = cells.next_crossing(c, x, v, t0, now);
        const auto want = direct_crossing(cells, box, c, x, v, t0, now);
        CHECK(got.time >= now);
        if (want.time == inf) {
            CHECK(got.time == inf);
            continue;
        }
        // the same arithmetic in a different order at most: a few ulp of t ~ 10, so
        // 1e-12 relative; axis and direction must agree unless two axes tie to that
        // precision (probability ~1e-12 per trial with continuous random inputs)
        REQUIRE(got.time != inf);
        CHECK(std::abs(got.time - want.time) <= 1e-12 * std::max(1.0, want.time));
        CHECK(got.axis == want.axis);
        CHECK(got.dir == want.dir);
        // geometry, when the crossing is not clamped to now: at that time the particle is
        // on the face it leaves through and still inside the cell on the other axes
        // (except moving outward in the outer cell of a walled axis, towards the wall)
        if (got.time == now) continue;
        const auto k = cells.coords(c);
        const Vec<D> at = x + v * (got.time - t0);
        for (int a = 0; a < D; ++a) {
            const double lo = k[a] * cells.width()[a], hi = (k[a] + 1) * cells.width()[a];
            const int next = k[a] + (v[a] > 0.0 ? 1 : -1);
            // positions of order 10, round-off of a few ulp: 1e-12 of the box
            const double tol = 1e-12 * box.length[a];
            if (a == got.axis) {
                CHECK(std::abs(at[a] - (got.dir > 0 ? hi : lo)) <= tol);
            } else if (box.periodic[a] || (next >= 0 && next < cells.counts()[a])) {
                CHECK(at[a] >= lo - tol);
                CHECK(at[a] <= hi + tol);
            }
        }
    }
}

} // namespace

TEST_CASE("next_crossing against a direct computation, periodic and walled") {
    // cell widths differ between the axes (2.1, 2.2, 2.0 and so on) so that a face is
    // placed with the right axis's width
    check_crossings(make_box<3>({10.5, 8.8, 12.0}, {true, true, true}), 2.0, 1);
    check_crossings(make_box<3>({10.5, 8.8, 6.6}, {false, false, false}), 2.0, 2);
    check_crossings(make_box<3>({10.5, 3.0, 6.6}, {true, false, false}), 2.0, 3); // 1 cell in y
    check_crossings(make_box<2>({10.5, 8.8}, {true, true}), 2.0, 4);
    check_crossings(make_box<2>({10.5, 8.8}, {false, true}), 2.0, 5);
}

TEST_CASE("next_crossing: walled outer cells, periodic edges, and never before now") {
    const auto walled = make_box<2>({10.0, 8.0}, {false, false}); // 5 x 4 cells of width 2
    const Cells<2> w(walled, 2.0, 0);
    const std::uint32_t corner = w.flat({4, 3});
    // moving out of the outermost cell on both walled axes: no crossing at all
    CHECK(w.next_crossing(corner, Vec<2>{{9.0, 7.0}}, Vec<2>{{1.0, 2.0}}, 0.0, 0.0).time == inf);
    // outward on x only, inward on y: the y face at 6 after (6 - 7) / -0.5 = 2
    auto cr = w.next_crossing(corner, Vec<2>{{9.0, 7.0}}, Vec<2>{{1.0, -0.5}}, 1.0, 1.0);
    CHECK(cr.time == 3.0); // exact: (6 - 7) / -0.5 = 2 and 1 + 2 = 3 in binary
    CHECK(cr.axis == 1);
    CHECK(cr.dir == -1);
    // the low corner, moving down and left: none; moving right: the face at x = 2
    CHECK(w.next_crossing(0, Vec<2>{{1.0, 1.0}}, Vec<2>{{-1.0, -1.0}}, 0.0, 0.0).time == inf);
    cr = w.next_crossing(0, Vec<2>{{1.0, 1.0}}, Vec<2>{{4.0, -1.0}}, 0.0, 0.0);
    CHECK(cr.time == 0.25); // (2 - 1) / 4, exact
    CHECK(cr.axis == 0);
    CHECK(cr.dir == 1);

    const auto periodic = make_box<2>({10.0, 8.0}, {true, true});
    const Cells<2> p(periodic, 2.0, 0);
    // outward across the periodic edge: the face at L, direction +1
    cr = p.next_crossing(p.flat({4, 3}), Vec<2>{{9.0, 7.0}}, Vec<2>{{1.0, 0.0}}, 0.0, 0.0);
    CHECK(cr.time == 1.0);
    CHECK(cr.axis == 0);
    CHECK(cr.dir == 1);
    cr = p.next_crossing(0, Vec<2>{{1.0, 0.5}}, Vec<2>{{0.0, -1.0}}, 0.0, 0.0);
    CHECK(cr.time == 0.5);
    CHECK(cr.axis == 1);
    CHECK(cr.dir == -1);

    // never before now: a particle a hair past its face (round-off) crosses at once, and
    // so does one whose natural crossing lies before the clock
    cr = p.next_crossing(p.flat({1, 1}), Vec<2>{{4.0 + 1e-15, 3.0}}, Vec<2>{{1.0, 0.0}}, 5.0, 5.0);
    CHECK(cr.time == 5.0);
    CHECK(cr.axis == 0);
    cr = p.next_crossing(p.flat({1, 1}), Vec<2>{{3.0, 3.0}}, Vec<2>{{1.0, 0.0}}, 0.0, 7.0);
    CHECK(cr.time == 7.0);
    CHECK(cr.dir == 1);
    // at rest: never
    CHECK(p.next_crossing(0, Vec<2>{{1.0, 1.0}}, Vec<2>{}, 0.0, 0.0).time == inf);
}

TEST_CASE("a periodic box shorter than three cell widths is rejected") {
    // min width 2: 5.9 gives floor(2.95) = 2 cells, below three
    CHECK_THROWS_AS(Cells<3>(make_box<3>({5.9, 10.0, 10.0}, {true, true, true}), 2.0, 0),
                    PeriodicEdgeTooShort);
    CHECK_THROWS_AS(Cells<3>(make_box<3>({10.0, 10.0, 4.0}, {true, true, true}), 2.0, 0),
                    PeriodicEdgeTooShort);
    CHECK_THROWS_AS(Cells<2>(make_box<2>({10.0, 1.0}, {true, true}), 2.0, 0), PeriodicEdgeTooShort);
    // the facts, for the run layer to word by config key (run/kernel_errors.hpp)
    try {
        Cells<3>(make_box<3>({10.0, 10.0, 4.0}, {true, true, true}), 2.0, 0);
        FAIL("no error");
    } catch (const PeriodicEdgeTooShort& e) {
        CHECK(e.axis == 2);
        CHECK(e.edge == 4.0);
        CHECK(e.min_width == 2.0);
        CHECK(std::string(e.what()).find("box") == std::string::npos); // no config words
    }
    // exactly three widths is enough, and a walled axis may be short
    CHECK_NOTHROW(Cells<3>(make_box<3>({6.0, 6.0, 6.0}, {true, true, true}), 2.0, 0));
    CHECK_NOTHROW(Cells<3>(make_box<3>({10.0, 10.0, 1.5}, {true, true, false}), 2.0, 0));
    CHECK_NOTHROW(Cells<2>(make_box<2>({1.5, 6.0}, {false, true}), 2.0, 0));
}

TEST_CASE("FastDivisor: the quotient of every 32-bit dividend, exactly") {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::uint32_t> any;
    std::vector<std::uint32_t> divisors;
    for (std::uint32_t d = 1; d <= 3000; ++d) divisors.push_back(d);
    for (std::uint32_t d :
         {65535u, 65536u, 65537u, 1u << 31, (1u << 31) + 1, 0xfffffffeu, 0xffffffffu})
        divisors.push_back(d);
    for (int k = 0; k < 200; ++k) divisors.push_back(std::max(any(rng), 1u));
    for (const std::uint32_t d : divisors) {
        const FastDivisor f(d);
        auto check = [&](std::uint32_t x) {
            if (f.quotient(x) != x / d) FAIL_CHECK("d = " << d << ", x = " << x);
        };
        // the extremes, and each side of multiples of d where a floor would slip
        for (const std::uint32_t x : {0u, 1u, d - 1, d, 0xfffffffeu, 0xffffffffu}) check(x);
        const std::uint64_t top = 0xffffffffu;
        for (std::uint64_t q :
             {std::uint64_t{1}, std::uint64_t{2}, top / d, top / d / 2, top / d / 3}) {
            const std::uint64_t x = q * d;
            if (x > top) continue;
            check(static_cast<std::uint32_t>(x));
            if (x > 0) check(static_cast<std::uint32_t>(x - 1));
            if (x < top) check(static_cast<std::uint32_t>(x + 1));
        }
        for (int k = 0; k < 300; ++k) check(any(rng));
    }
}

} // namespace test_cells
