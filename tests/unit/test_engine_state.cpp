// Engine::save / Engine::restore: an engine saved at any point and restored goes on exactly
// as the original would have, to the bit, and a damaged state is refused.
//
// Each system runs once straight through to a collision count; then again, stopped at a
// split point (an event count, or a time that is not an event's), saved, restored into a
// new engine, and run on to the same count. The final positions, velocities, clocks and
// counters must be equal to the bit. The systems cover what the state holds: 2D and 3D,
// a mixture, walls and segments, a field, epsilon > 0 with groups, TC clocks, and splits
// on both sides of the maintenance steps (renumbering and rebasing of the clock).
#include <choc/init/initial_state.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>

#include <doctest/doctest.h>

#include "state_hash.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace test_engine_state {

namespace {

template <int D, class Motion>
using EngineOf = choc::Engine<D, choc::DefaultCalendar, Motion>;

template <int D, class Motion>
EngineOf<D, Motion> start(const choc::Config& config, Motion motion) {
    auto s = choc::make_initial_state<D>(config);
    return EngineOf<D, Motion>(std::move(s.box), std::move(s.particles),
                               choc::engine_settings(config), motion);
}

template <class E>
void check_same(const E& a, const E& b) {
    CHECK(state_hash(a.snapshot(a.time())) == state_hash(b.snapshot(b.time())));
    CHECK(a.time() == b.time());
    CHECK(a.tally().collisions == b.tally().collisions);
    CHECK(a.tally().wall_collisions == b.tally().wall_collisions);
    CHECK(a.tally().crossings == b.tally().crossings);
    CHECK(a.tally().groups == b.tally().groups);
    CHECK(a.tally().virial == b.tally().virial);
    CHECK(a.kinetic_integral() == b.kinetic_integral());
    choc::ArchiveWriter wa, wb;
    a.save(wa);
    b.save(wb);
    CHECK(wa.bytes() == wb.bytes());
}

// Runs the system to `total` collisions straight, and split at each of `splits` (event
// budgets from the start), checking the split runs against the straight one.
// The time of the first simultaneous group (epsilon > 0) after `after` events, before the
// run's `total` collisions; none if there is none.
template <int D, class Motion>
std::optional<double> group_time(const choc::Config& config, Motion motion, std::uint64_t after,
                                 std::uint64_t total) {
    auto e = start<D>(config, motion);
    e.run(choc::never, total, after);
    const auto groups = e.tally().groups;
    while (e.tally().groups == groups && e.tally().collisions < total) e.run(choc::never, total, 1);
    if (e.tally().groups == groups) return std::nullopt;
    return e.time(); // the group's first event: its members' times lie within epsilon after
}

template <int D, class Motion>
void check_splits(const std::string& toml, Motion motion, std::uint64_t total,
                  std::initializer_list<std::uint64_t> splits, std::vector<double> split_times) {
    const choc::Config config =
        choc::parse_config(std::string(toml) + "[run]\ncollisions = 1\n", "state.toml");
    auto straight = start<D>(config, motion);
    straight.run(choc::never, total, ~std::uint64_t{0});
    REQUIRE(straight.tally().collisions == total);

    auto continue_from = [&](const EngineOf<D, Motion>& first) {
        choc::ArchiveWriter out;
        first.save(out);
        choc::ArchiveReader in(out.bytes());
        auto second = EngineOf<D, Motion>::restore(in, choc::engine_settings(config), motion);
        CHECK(in.done());
        CHECK(second.time() == first.time()); // the clock as the caller saw it
        second.run(choc::never, total, ~std::uint64_t{0});
        check_same(straight, second);
    };
    for (const std::uint64_t events : splits) {
        CAPTURE(events);
        auto first = start<D>(config, motion);
        first.run(choc::never, total, events);
        continue_from(first);
    }
    // a stop at a time between events moves the clock there: the restored run must too
    if (config.epsilon > 0.0) {
        // and inside a group's epsilon window: just before its first event, and halfway
        // through the window after the group step
        auto t = group_time<D>(config, motion, total / 3, total);
        if (!t) t = group_time<D>(config, motion, 0, total);
        REQUIRE(t.has_value());
        split_times.push_back(*t - 0.25 * config.epsilon);
        split_times.push_back(*t + 0.5 * config.epsilon);
    }
    for (const double split_time : split_times) {
        CAPTURE(split_time);
        auto first = start<D>(config, motion);
        REQUIRE(first.run(split_time, total, ~std::uint64_t{0}) == EngineOf<D, Motion>::Stop::time);
        continue_from(first);
    }
}

} // namespace

TEST_CASE("engine state: 3D fluid, split before and after maintenance steps") {
    const char* toml = R"(
dimension = 3
[box]
packing_fraction = 0.45
[[species]]
name = "A"
count = 500
[init]
lattice = "fcc"
seed = 3
)";
    // maintenance every max(4 N, 65536) events: splits before, at and after the first
    check_splits<3>(toml, choc::Ballistic<3>{}, 120000, {1, 777, 65535, 65536, 65537, 100001},
                    {2.345678});
}

TEST_CASE("engine state: 2D mixture in a walled box, inelastic with TC") {
    const char* toml = R"(
dimension = 2
[box]
packing_fraction = 0.5
boundary = "wall"
[[species]]
name = "big"
count = 200
radius = 0.5
mass = 1.0
[[species]]
name = "small"
count = 200
radius = 0.3
mass = 0.4
[collisions]
restitution = 0.95
tc = 1e-4
[init]
lattice = "random"
seed = 5
)";
    check_splits<2>(toml, choc::Ballistic<2>{}, 100000, {3, 40000, 70001}, {1.5});
}

TEST_CASE("engine state: 2D hourglass, segments, gravity, epsilon groups, TC") {
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
)";
    choc::Vec<2> g;
    g[1] = -5.0;
    check_splits<2>(toml, choc::Field<2>(g, 0.0), 80000, {5, 30011, 65536, 70000}, {2.0});
}

TEST_CASE("engine state: 3D spheres under gravity and drag between walls, epsilon > 0") {
    const char* toml = R"(
dimension = 3
[box]
size = [8.0, 8.0, 12.0]
boundary = ["periodic", "periodic", "wall"]
[[species]]
name = "A"
count = 150
[[species]]
name = "B"
count = 50
radius = 0.35
mass = 0.5
[collisions]
restitution = 0.9
epsilon = 1e-6
contact_gap = 1e-6
[field]
gravity = [0.0, 0.0, -1.0]
drag = 0.05
[init]
lattice = "random"
seed = 13
)";
    choc::Vec<3> g;
    g[2] = -1.0;
    check_splits<3>(toml, choc::Field<3>(g, 0.05), 40000, {2, 12345, 33333}, {0.7});
}

TEST_CASE("engine state: a damaged state is refused, never misread") {
    const char* toml = R"(
dimension = 2
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 30
[init]
lattice = "square"
seed = 1
)";
    const choc::Config config =
        choc::parse_config(std::string(toml) + "[run]\ncollisions = 1\n", "state.toml");
    auto engine = start<2>(config, choc::Ballistic<2>{});
    engine.run(choc::never, 200, ~std::uint64_t{0});
    choc::ArchiveWriter out;
    engine.save(out);
    const std::string& bytes = out.bytes();
    // every truncation fails with ArchiveError (a count that no longer fits, or a tag or
    // value cut short); none reads past the end or succeeds
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        CAPTURE(n);
        const std::string cut = bytes.substr(0, n);
        choc::ArchiveReader in(cut);
        CHECK_THROWS_AS((void)choc::Engine<2>::restore(in, choc::engine_settings(config), {}),
                        choc::ArchiveError);
    }
    // and the whole of it reads back, to its last byte
    choc::ArchiveReader whole(bytes);
    CHECK_NOTHROW((void)choc::Engine<2>::restore(whole, choc::engine_settings(config), {}));
    CHECK(whole.done());
}

} // namespace test_engine_state
