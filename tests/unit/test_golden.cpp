// Golden runs: fixed configurations whose final state is pinned bit for bit, so that a
// change claiming "runs unchanged to the bit" is checked against the commit that pinned
// the hashes, not only against itself.
//
// The runs use only +, -, *, / and sqrt on doubles (no drag: exp and log may differ between
// C libraries), all correctly rounded by IEEE 754, so the hashes do not depend on the
// build type or the sanitizers. A change that alters trajectories (a different round-off
// in a prediction, another tie-break in the calendar) changes them: update the constants
// below and say why in the commit message.
#include <choc/init/initial_state.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>

#include <doctest/doctest.h>

#include "state_hash.hpp"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>

namespace test_golden {

namespace {

struct GoldenResult {
    std::uint64_t hash;
    choc::Tally tally;
    std::size_t grids; // cell grids: one per level of sizes
};

template <int D, class Motion>
GoldenResult golden_result(const std::string& toml, Motion motion, std::uint64_t collisions) {
    const choc::Config config = choc::parse_config(toml, "golden.toml");
    auto start = choc::make_initial_state<D>(config);
    choc::Engine<D, choc::DefaultCalendar, Motion> engine(
        std::move(start.box), std::move(start.particles), choc::engine_settings(config), motion);
    engine.run(choc::never, collisions, ~std::uint64_t{0});
    REQUIRE(engine.tally().collisions == collisions);
    const std::uint64_t h = state_hash(engine.snapshot(engine.time()));
    std::printf("golden hash: 0x%016llx\n", static_cast<unsigned long long>(h));
    return {h, engine.tally(), engine.grids()};
}

template <int D, class Motion>
std::uint64_t golden_run(const std::string& toml, Motion motion, std::uint64_t collisions) {
    return golden_result<D>(toml, motion, collisions).hash;
}

} // namespace

TEST_CASE("golden: dense 3D fluid from fcc, 300k collisions through several maintenance steps") {
    const char* toml = R"(
dimension = 3
[box]
packing_fraction = 0.45
[[species]]
name = "A"
count = 864
[init]
lattice = "fcc"
seed = 3
[run]
collisions = 300000
)";
    CHECK(golden_run<3>(toml, choc::Ballistic<3>{}, 300000) == 0x00830b155760f3caull);
}

TEST_CASE("golden: 2D binary mixture, walled box, inelastic with TC, 200k collisions") {
    const char* toml = R"(
dimension = 2
[box]
packing_fraction = 0.55
boundary = "wall"
[[species]]
name = "big"
count = 300
radius = 0.5
mass = 1.0
[[species]]
name = "small"
count = 300
radius = 0.3
mass = 0.4
[collisions]
restitution = 0.95
tc = 1e-4
[init]
lattice = "random"
seed = 5
[run]
collisions = 200000
)";
    CHECK(golden_run<2>(toml, choc::Ballistic<2>{}, 200000) == 0xf67dcc56711a1b38ull);
}

TEST_CASE("golden: 2D discs under gravity in a walled box, 100k collisions") {
    const char* toml = R"(
dimension = 2
[box]
size = [30.0, 30.0]
boundary = "wall"
[[species]]
name = "A"
count = 400
[field]
gravity = [0.0, -1.0]
[init]
lattice = "square"
seed = 7
[run]
collisions = 100000
)";
    choc::Vec<2> g;
    g[1] = -1.0;
    CHECK(golden_run<2>(toml, choc::Field<2>(g, 0.0), 100000) == 0x5f8b82ff6344b9a9ull);
}

// The simultaneous step and the obstacles: a small hourglass (two funnel segments, their
// faces and end points), gravity, inelastic discs with TC, and epsilon > 0 with a contact
// gap wide enough that resting discs form groups. The runs above never enter the group
// step, the touching search or the segment code; this one does, and says so.
TEST_CASE(
    "golden: 2D hourglass with segments, gravity, TC and simultaneous groups, 150k collisions") {
    const char* toml = R"(
dimension = 2
[box]
size = [20.0, 40.0]
boundary = "wall"
[[species]]
name = "grain"
count = 150
[collisions]
restitution = 0.9
tc = 1e-4
epsilon = 1e-9
contact_gap = 1e-6
[field]
gravity = [0.0, -5.0]
[[walls]]
from = [0.0, 25.0]
to = [8.5, 15.0]
restitution = 0.9
[[walls]]
from = [20.0, 25.0]
to = [11.5, 15.0]
restitution = 0.9
[init]
lattice = "random"
region = { low = [0.0, 26.0], high = [20.0, 40.0] }
seed = 11
[run]
collisions = 150001
)";
    choc::Vec<2> g;
    g[1] = -5.0;
    // (150,001: the step that reaches 150,000 resolves a group of two collisions)
    const GoldenResult r = golden_result<2>(toml, choc::Field<2>(g, 0.0), 150001);
    CHECK(r.tally.groups > 0);
    CHECK(r.tally.wall_collisions > 0);
    CHECK(r.hash == 0x9a61539bf472071eull);
}

// Size-disperse mixtures, where each size has its own cell grid (cell_levels.hpp): small
// particles finding large ones in the coarse grid, large ones scanning the fine grid's
// block within reach, crossings of both grids, renumbering by levels. 3D periodic 1:6, and
// 2D 1:8 in a walled box under gravity with inelastic collisions and simultaneous groups
// (the touching search over the levels).
TEST_CASE("golden: 3D size-disperse mixture (1:6), two cell grids, 150k collisions") {
    const char* toml = R"(
dimension = 3
[box]
packing_fraction = 0.3
boundary = "periodic"
[[species]]
name = "small"
count = 6000
radius = 0.5
[[species]]
name = "large"
count = 20
radius = 3.0
mass = 216.0
[init]
lattice = "random"
seed = 4
[run]
collisions = 150000
)";
    const GoldenResult r = golden_result<3>(toml, choc::Ballistic<3>{}, 150000);
    CHECK(r.grids == 2);
    CHECK(r.hash == 0x7fb1787d7503ad72ull);
}

TEST_CASE("golden: 2D size-disperse mixture (1:8) under gravity with groups, 150k collisions") {
    const char* toml = R"(
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
count = 12
radius = 2.0
mass = 4.0
[collisions]
restitution = 0.9
tc = 1e-4
epsilon = 1e-9
contact_gap = 1e-6
[field]
gravity = [0.0, -1.0]
[init]
lattice = "random"
seed = 8
[run]
collisions = 150000
)";
    choc::Vec<2> g;
    g[1] = -1.0;
    const GoldenResult r = golden_result<2>(toml, choc::Field<2>(g, 0.0), 150000);
    CHECK(r.grids == 2);
    CHECK(r.tally.groups > 0);
    CHECK(r.hash == 0xe703d4de7fe51490ull);
}

} // namespace test_golden
