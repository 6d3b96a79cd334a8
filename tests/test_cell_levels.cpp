// Cell levels for size-disperse particles (cell_levels.hpp): the wide block of a grid and
// its layers, the plan of the levels (which species, how wide, how far a larger particle
// reaches into a finer grid, when a small box merges them), the covering property the
// engine's correctness rests on, and the engine with two grids against the engine with one.
#include <choc/init/initial_state.hpp>
#include <choc/kernel/cell_levels.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/kernel/overlap.hpp>
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>

#include <doctest/doctest.h>

#include "test_box.hpp"

// GCC 12 warns of a memcpy overlap inside std::string's operator+ once the oracle's
// builders are inlined here (a known false positive, GCC bug 105329).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#include "oracle_systems.hpp"
#pragma GCC diagnostic pop

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace choc;

namespace {

// A cell of a stencil as the image it stands for: its coordinates in the unwrapped lattice
// of cells (a shift of +-L adds +-n cells on that axis).
template <int D>
std::array<int, D> image(const Cells<D>& cells, const Box<D>& box, std::uint32_t cell,
                         const Vec<D>& shift) {
    auto c = cells.coords(cell);
    for (int a = 0; a < D; ++a)
        c[a] += static_cast<int>(std::lround(shift[a] / box.length[a])) * cells.counts()[a];
    return c;
}

template <int D>
std::set<std::array<int, D>> images(const Cells<D>& cells, const Box<D>& box,
                                    const typename Cells<D>::WideStencil& s) {
    std::set<std::array<int, D>> out;
    for (int k = 0; k < s.size; ++k) {
        REQUIRE(s.cell[static_cast<std::size_t>(k)] < cells.size());
        out.insert(image(cells, box, s.cell[static_cast<std::size_t>(k)],
                         s.edge ? s.shift()[k] : Vec<D>{}));
    }
    CHECK(out.size() == static_cast<std::size_t>(s.size)); // no image twice
    return out;
}

// The images within `reach` of cell c on every axis (on a walled axis, inside the grid).
template <int D>
std::set<std::array<int, D>> expected_block(const Cells<D>& cells, const Box<D>& box,
                                            std::array<int, D> c, const std::array<int, D>& reach) {
    std::set<std::array<int, D>> out;
    std::array<int, D> o;
    for (int a = 0; a < D; ++a) o[a] = -reach[a];
    for (;;) {
        std::array<int, D> q;
        bool inside = true;
        for (int a = 0; a < D; ++a) {
            q[a] = c[a] + o[a];
            inside = inside && (box.periodic[a] || (q[a] >= 0 && q[a] < cells.counts()[a]));
        }
        if (inside) out.insert(q);
        int a = 0;
        while (a < D && ++o[a] > reach[a]) o[a] = -reach[a], ++a;
        if (a == D) break;
    }
    return out;
}

// Every cell's block is the images within reach, and the layer after a step into a cell
// is the part of its block at offset dir * reach on the axis stepped along.
template <int D>
void check_blocks(const Box<D>& box, double width, const std::array<int, D>& reach) {
    const Cells<D> cells(box, width, 0);
    typename Cells<D>::WideStencil s;
    for (std::uint32_t c = 0; c < cells.size(); ++c) {
        cells.block(c, reach, -1, 0, s);
        const auto here = cells.coords(c);
        CHECK(images<D>(cells, box, s) == expected_block<D>(cells, box, here, reach));
        for (int axis = 0; axis < D; ++axis)
            for (const int dir : {-1, 1}) {
                if (!cells.open(c, axis, dir)) continue;
                bool wrapped = false;
                const std::uint32_t to = cells.step(c, axis, dir, wrapped);
                cells.block(to, reach, axis, dir, s);
                // the images of `to`'s block at offset dir * reach on the axis: the ones the
                // step brought within reach (those at any other offset already were)
                const auto t = cells.coords(to);
                std::set<std::array<int, D>> want;
                for (const auto& q : expected_block<D>(cells, box, t, reach))
                    if (q[axis] - t[axis] == dir * reach[axis]) want.insert(q);
                CHECK(images<D>(cells, box, s) == want);
            }
    }
}

template <int D>
CellLevels<D> plan(const Box<D>& box, std::vector<double> diameter, std::vector<std::size_t> count,
                   double ratio = default_level_ratio) {
    return CellLevels<D>(box, diameter, count, ratio);
}

} // namespace

TEST_CASE("wide blocks: every image within reach once, and the layer a step adds") {
    check_blocks<2>(make_box<2>({20.0, 13.0}, {true, true}), 1.0, {3, 2});
    check_blocks<2>(make_box<2>({9.0, 12.0}, {false, true}), 1.0, {4, 1});
    check_blocks<3>(make_box<3>({9.0, 7.0, 11.0}, {true, false, true}), 1.0, {2, 3, 1});
    check_blocks<3>(make_box<3>({7.0, 7.0, 7.0}, {true, true, true}), 1.0, {3, 3, 3});
}

TEST_CASE(
    "levels: one for one size or close sizes; two for 1:10, with the widths the proof needs") {
    const auto box = make_box<3>({100.0, 100.0, 100.0}, {true, true, true});
    CHECK(plan<3>(box, {1.0}, {1000}).single());
    CHECK(plan<3>(box, {1.0, 1.9}, {1000, 10}).single());
    CHECK(plan<3>(box, {1.0, 10.0}, {1000, 10}, 0.0).single()); // asked for one grid
    const auto one = plan<3>(box, {1.0, 1.9}, {1000, 10});
    CHECK(one.min_width(0) == 1.9);
    CHECK(one.listed(0) == 1010);

    // species given in any order: levels by size
    const auto two = plan<3>(box, {10.0, 1.0, 1.5}, {10, 1000, 500});
    REQUIRE(two.size() == 2);
    CHECK(two.of_species() == std::vector<std::uint8_t>{1, 0, 0});
    CHECK(two.min_width(0) == 1.5);
    CHECK(two.listed(0) == 1500);
    CHECK(two.listed(1) == 10);
    const Cells<3> fine(box, two.min_width(0), two.listed(0), Cells<3>::NoLists{});
    for (int a = 0; a < 3; ++a) {
        // the largest contact distance of the two levels, (1.5 + 10) / 2, in fine cells
        CHECK(two.reach(0, 1)[a] == static_cast<int>(std::ceil(5.75 / fine.width()[a])));
        CHECK(two.min_width(1) >= 10.0);
        CHECK(two.min_width(1) >= (two.reach(0, 1)[a] + 1) * fine.width()[a]);
    }
    // three sizes, three levels
    CHECK(plan<3>(box, {1.0, 3.0, 9.0}, {1000, 100, 10}).size() == 3);
}

TEST_CASE("levels: a box too small for a coarse grid of three cells merges the levels") {
    // 1:3 in a box of 9.05: the coarse cells must be 3 fine ones (reach 2, plus one)
    // wide, a hair over 9.05 / 3: one grid, as before levels (the box allows it: 3 x 3 < 9.05)
    CHECK(plan<3>(make_box<3>({9.05, 9.05, 9.05}, {true, true, true}), {1.0, 3.0}, {100, 3})
              .single());
    CHECK(plan<3>(make_box<3>({9.05, 9.05, 9.05}, {false, false, false}), {1.0, 3.0}, {100, 3})
              .size() == 2); // walled axes need no three cells
    CHECK(
        plan<3>(make_box<3>({12.0, 12.0, 12.0}, {true, true, true}), {1.0, 3.0}, {100, 3}).size() ==
        2);
}

// What the engine's correctness rests on: two particles of different levels closer than
// their contact distance are near (fine cells at most the reach apart), and every particle
// near a fine one is in the coarse grid's 3^D cells around the fine one's position.
TEST_CASE("levels: close pairs are near, and near coarse particles are around a fine one") {
    const auto box = make_box<3>({40.0, 37.0, 43.0}, {true, true, false});
    const auto levels = plan<3>(box, {1.0, 8.0}, {20000, 20});
    REQUIRE(levels.size() == 2);
    const Cells<3> fine(box, levels.min_width(0), levels.listed(0), Cells<3>::NoLists{});
    const Cells<3> coarse(box, levels.min_width(1), levels.listed(1), Cells<3>::NoLists{});
    const auto reach = levels.reach(0, 1);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    typename Cells<3>::Stencil near;
    int checked = 0;
    for (int k = 0; k < 20000; ++k) {
        Vec<3> small, large;
        for (int a = 0; a < 3; ++a) small[a] = box.length[a] * u(rng);
        // a point within the largest near distance, (reach + 1) fine cells, of it
        Vec<3> d;
        for (int a = 0; a < 3; ++a) d[a] = (2 * u(rng) - 1) * (reach[a] + 1) * fine.width()[a];
        large = small + d;
        bool inside = true;
        for (int a = 0; a < 3; ++a) {
            if (box.periodic[a]) large[a] -= box.length[a] * std::floor(large[a] / box.length[a]);
            inside = inside && large[a] >= 0.0 && large[a] < box.length[a];
        }
        if (!inside) continue;
        const auto cs = fine.coords(fine.cell_at(small)), cl = fine.coords(fine.cell_at(large));
        bool is_near = true, is_close = norm(d) < 4.5;
        for (int a = 0; a < 3; ++a) {
            int diff = std::abs(cs[a] - cl[a]);
            if (box.periodic[a]) diff = std::min(diff, fine.counts()[a] - diff);
            is_near = is_near && diff <= reach[a];
        }
        if (is_close) CHECK(is_near);
        if (!is_near) continue;
        ++checked;
        coarse.around(coarse.cell_at(small), near);
        const std::uint32_t held = coarse.cell_at(large);
        bool found = false;
        for (int c = 0; c < near.size; ++c) found = found || near.cell[c] == held;
        CHECK(found);
    }
    CHECK(checked > 1000);
}

namespace {

// A 3D mixture of diameters 1 and `ratio` in a periodic box: the engine with the default
// levels, and with one grid, run for the same collisions.
const char* mixture_toml = R"(
dimension = 3
[box]
packing_fraction = 0.25
boundary = "periodic"
[[species]]
name = "small"
count = 3000
radius = 0.5
mass = 1.0
[[species]]
name = "large"
count = 12
radius = 3.0
mass = 216.0
[init]
lattice = "random"
seed = 11
[run]
collisions = 1
)";

} // namespace

TEST_CASE("levels: the engine with two grids follows the engine with one") {
    const Config config = parse_config(mixture_toml, "levels.toml");
    auto settings = engine_settings(config);
    auto run = [&](double ratio, std::size_t grids, std::uint64_t collisions) {
        auto start = make_initial_state<3>(config);
        settings.level_ratio = ratio;
        settings.maintain_every = 5000; // renumbering by levels, often
        Engine<3> e(std::move(start.box), std::move(start.particles), settings);
        CHECK(e.grids() == grids);
        e.run(never, collisions, ~std::uint64_t{0});
        REQUIRE(e.tally().collisions == collisions);
        return e;
    };
    // A few collisions per particle: round-off differences between the two (a pair seen
    // from either side) stay far below the tolerance before chaos could amplify them.
    const std::uint64_t collisions = 6000;
    const auto levels = run(default_level_ratio, 2, collisions);
    const auto one = run(0.0, 1, collisions);
    CHECK(levels.time() == doctest::Approx(one.time()).epsilon(1e-9));
    const auto a = levels.snapshot(levels.time()), b = one.snapshot(one.time());
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, norm(levels.box().minimum_image(a.state[i].x - b.state[i].x)) +
                                    norm(a.state[i].v - b.state[i].v));
    CHECK(worst < 1e-7);
    CHECK(max_overlap(levels.box(), a, levels.time()) <= levels.contact_tolerance());
    // what the levels are for: far fewer pairs looked at
    CHECK(levels.tally().pair_predictions < one.tally().pair_predictions);
}

// The oracle's size-disperse families (tests/oracle_systems.hpp, `levels`) exist to run
// the engine with two grids against the plain reference: most of their systems must get
// them (a box too small for a coarse grid of three cells falls back to one).
TEST_CASE("levels: the oracle's size-disperse systems mostly run with two grids") {
    int two3 = 0, two2 = 0;
    const int systems = 40;
    for (int k = 0; k < systems; ++k) {
        const int n = 16 + (k * 37) % 185;
        const auto s3 = oracle::levels<3>(1000 + static_cast<std::uint64_t>(k), n);
        const auto s2 = oracle::levels<2>(1000 + static_cast<std::uint64_t>(k), n);
        two3 += cell_levels_of(s3.box, s3.particles, s3.settings.level_ratio).size() == 2;
        two2 += cell_levels_of(s2.box, s2.particles, s2.settings.level_ratio).size() == 2;
    }
    MESSAGE("two grids: 3D ", two3, " of ", systems, ", 2D ", two2, " of ", systems);
    CHECK(two3 >= 3 * systems / 4);
    CHECK(two2 >= 3 * systems / 4);
}
