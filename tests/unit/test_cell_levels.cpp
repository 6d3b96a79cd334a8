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

namespace test_cell_levels {

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

// Nearness by geometry: cells p and q (unwrapped coordinates) whose boxes come closer than
// sigma (1 + 1e-6) and are at most `reach` apart on every axis.
template <int D>
bool near_cells(const Cells<D>& cells, const std::array<int, D>& p, const std::array<int, D>& q,
                double sigma, const std::array<int, D>& reach) {
    double d2 = 0.0;
    for (int a = 0; a < D; ++a) {
        if (std::abs(q[a] - p[a]) > reach[a]) return false;
        const double w = cells.width()[a];
        // the gap between the intervals [p w, (p + 1) w] and [q w, (q + 1) w]
        const double gap = std::max({0.0, q[a] * w - (p[a] + 1) * w, p[a] * w - (q[a] + 1) * w});
        d2 += gap * gap;
    }
    return d2 < sigma * sigma * (1.0 + 1e-6) * (1.0 + 1e-6);
}

// The images near cell c (on a walled axis, inside the grid).
template <int D>
std::set<std::array<int, D>> expected_near(const Cells<D>& cells, const Box<D>& box,
                                           std::array<int, D> c, double sigma,
                                           const std::array<int, D>& reach) {
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
        if (inside && near_cells<D>(cells, c, q, sigma, reach)) out.insert(q);
        int a = 0;
        while (a < D && ++o[a] > reach[a]) o[a] = -reach[a], ++a;
        if (a == D) break;
    }
    return out;
}

// Every cell's neighbourhood for contact distance sigma is the images near it, each once;
// after a step into a cell, the cells added are those near the new cell and not the old.
template <int D>
void check_neighbourhoods(const Box<D>& box, double width, double sigma) {
    const Cells<D> cells(box, width, 0);
    const Neighbourhood<D> nb(sigma, cells.width().c);
    typename Cells<D>::WideStencil s;
    for (std::uint32_t c = 0; c < cells.size(); ++c) {
        cells.cells_at(c, nb.all, nb.reach, s);
        const auto here = cells.coords(c);
        CHECK(images<D>(cells, box, s) == expected_near<D>(cells, box, here, sigma, nb.reach));
        for (int axis = 0; axis < D; ++axis)
            for (const int dir : {-1, 1}) {
                if (!cells.open(c, axis, dir)) continue;
                bool wrapped = false;
                const std::uint32_t to = cells.step(c, axis, dir, wrapped);
                cells.cells_at(to, nb.after_step(axis, dir), nb.reach, s);
                // in the unwrapped lattice the new cell is `here` moved by dir on the axis
                auto t = here;
                t[axis] += dir;
                const auto now = expected_near<D>(cells, box, t, sigma, nb.reach);
                const auto before = expected_near<D>(cells, box, here, sigma, nb.reach);
                std::set<std::array<int, D>> want;
                for (const auto& q : now)
                    if (!before.count(q)) want.insert(q);
                // the stencil's images are taken from `to` itself: move them to t's frame
                std::set<std::array<int, D>> got;
                const auto to_c = cells.coords(to);
                for (auto q : images<D>(cells, box, s)) {
                    q[axis] += t[axis] - to_c[axis];
                    got.insert(q);
                }
                CHECK(got == want);
            }
    }
}

template <int D>
CellLevels<D> plan(const Box<D>& box, std::vector<double> diameter, std::vector<std::size_t> count,
                   double ratio = default_level_ratio) {
    return CellLevels<D>(box, diameter, count, ratio);
}

} // namespace

TEST_CASE("neighbourhoods: every near image once, and the cells a step brings near") {
    check_neighbourhoods<2>(make_box<2>({20.0, 13.0}, {true, true}), 1.0, 2.6);
    check_neighbourhoods<2>(make_box<2>({9.0, 12.0}, {false, true}), 1.0, 3.5);
    check_neighbourhoods<2>(make_box<2>({31.0, 29.0}, {true, false}), 1.0, 9.3);
    check_neighbourhoods<3>(make_box<3>({9.0, 7.0, 11.0}, {true, false, true}), 1.0, 2.2);
    check_neighbourhoods<3>(make_box<3>({7.0, 7.0, 7.0}, {true, true, true}), 1.0, 3.0);
    check_neighbourhoods<3>(make_box<3>({15.0, 13.0, 14.0}, {true, true, false}), 1.0, 5.5);
}

TEST_CASE("neighbourhoods: a ball of cells, far fewer than the cube within reach at 1:50") {
    // sigma 25.5 (diameters 1 and 50) in unit cells: the cube holds 53^3 = 148,877 cells;
    // the ball of near cells about the volume of the sphere of radius sigma + sqrt(3)
    const Neighbourhood<3> nb(25.5, {1.0, 1.0, 1.0});
    CHECK(nb.reach == std::array<int, 3>{26, 26, 26});
    const double ball = 4.0 / 3.0 * M_PI * std::pow(25.5 + std::sqrt(3.0), 3);
    CHECK(static_cast<double>(nb.all.size()) < ball);
    CHECK(static_cast<double>(nb.all.size()) > 4.0 / 3.0 * M_PI * std::pow(25.5, 3));
    // a step adds about a disc of radius sigma's worth of cells, not a 53 x 53 face
    for (const auto& added : nb.added) CHECK(added.size() < 0.9 * 53 * 53);
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
// their contact distance are near (the offset of their fine cells is in the ball of near
// cells the larger one scans), and every particle
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
        const bool is_close = norm(d) < 4.5; // (1 + 8) / 2
        // the large one's cell as an offset from the small one's (nearest image), and
        // whether the neighbourhood the engine scans holds it
        std::array<int, 3> o;
        for (int a = 0; a < 3; ++a) {
            o[a] = cl[a] - cs[a];
            const int n = fine.counts()[a];
            if (box.periodic[a]) o[a] = o[a] > n / 2 ? o[a] - n : o[a] < -n / 2 ? o[a] + n : o[a];
        }
        const auto& ball = levels.neighbourhood(0, 1).all;
        const bool is_near = std::find(ball.begin(), ball.end(), o) != ball.end();
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

// The engine with the default levels (two grids) and with one grid, run for the same
// collisions from the same state: positions and velocities agree to round-off. A few
// collisions per particle: round-off differences between the two (a pair seen from either
// side, at another instant) stay far below the tolerance before chaos could amplify them.
template <int D, class Motion>
void two_grids_follow_one(const char* toml, Motion motion, std::uint64_t collisions) {
    const Config config = parse_config(toml, "levels.toml");
    auto settings = engine_settings(config);
    auto run = [&](double ratio, std::size_t grids) {
        auto start = make_initial_state<D>(config);
        settings.level_ratio = ratio;
        settings.maintain_every = 5000; // renumbering by levels, often
        Engine<D, DefaultCalendar, Motion> e(std::move(start.box), std::move(start.particles),
                                             settings, motion);
        CHECK(e.grids() == grids);
        e.run(never, collisions, ~std::uint64_t{0});
        REQUIRE(e.tally().collisions == collisions);
        return e;
    };
    const auto levels = run(default_level_ratio, 2);
    const auto one = run(0.0, 1);
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

// 1:12 discs in a walled box under gravity (a coarse particle's ball of fine cells meets
// the walls). The settling layer is dense: differences of round-off grow several
// thousandfold per thousand collisions here (1.7e-11 after 1000 collisions, 9e-8 after 2000), so
// the comparison stops at 1000.
const char* walled_discs_toml = R"(
dimension = 2
[box]
size = [60.0, 60.0]
boundary = "wall"
[[species]]
name = "small"
count = 1500
radius = 0.25
mass = 0.0625
[[species]]
name = "large"
count = 10
radius = 3.0
mass = 9.0
[field]
gravity = [0.0, -1.0]
[init]
lattice = "random"
seed = 5
[run]
collisions = 1
)";

} // namespace

TEST_CASE("levels: the engine with two grids follows the engine with one") {
    two_grids_follow_one<3>(mixture_toml, Ballistic<3>{}, 6000);
    Vec<2> g;
    g[1] = -1.0;
    two_grids_follow_one<2>(walled_discs_toml, Field<2>(g, 0.0), 1000);
}

// The oracle's size-disperse families (tests/soak/oracle_systems.hpp, `levels`) exist to run
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

} // namespace test_cell_levels
