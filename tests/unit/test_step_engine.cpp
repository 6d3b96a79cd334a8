// The time-stepped engine (step_engine.hpp): an isolated collision that a step straddles
// comes out as the event-driven engine's (pairs, walls, segments; straight flights,
// gravity, drag); its grid finds every close pair; a checkpoint continues to the bit; and
// as the step shrinks its pressure and collision rate approach the EDMD values.
#include <choc/kernel/engine.hpp>
#include <choc/kernel/step_engine.hpp>
#include <choc/run/config.hpp>
#include <choc/run/simulation.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>
#include <utility>

namespace test_step_engine {

using namespace choc;

namespace {

// Positions and velocities of two runs of the same particles agree to `tolerance` times
// the scale (the box's edge; speeds of order one).
template <int D>
void check_same_state(const Particles<D>& a, const Particles<D>& b, double scale) {
    // The stepped engine takes a flight forward to the step's end, back to the contact
    // and forward again: each a few operations on coordinates of size `scale`, so
    // round-off of some ulp of it. 1e-12 leaves a margin of a thousand.
    const double tolerance = 1e-12 * scale;
    REQUIRE(a.size() == b.size());
    for (std::uint32_t i = 0; i < a.size(); ++i) {
        INFO("particle " << i);
        CHECK(norm(a.state[i].x - b.state[i].x) <= tolerance);
        CHECK(norm(a.state[i].v - b.state[i].v) <= tolerance);
    }
}

// The same start run to time T by the event-driven engine and by the stepped one with a
// single step [0, T], T chosen after the contact but while the two still overlap and
// approach: the state at T and the collision counts agree.
template <int D, class M>
void check_one_step(const Box<D>& box, const Particles<D>& p, EngineSettings settings, M motion,
                    double T, std::uint64_t pair_collisions, std::uint64_t wall_collisions) {
    Engine<D, DefaultCalendar, M> exact(box, p, settings, motion);
    exact.run(T, ~std::uint64_t{0}, ~std::uint64_t{0});
    settings.dt = T;
    settings.passes = 1;
    StepEngine<D, M> stepped(box, p, settings, motion);
    REQUIRE(stepped.run(T, ~std::uint64_t{0}, ~std::uint64_t{0}) == StepEngine<D, M>::Stop::time);
    CHECK(stepped.stepping().steps == 1);
    CHECK(exact.tally().collisions == pair_collisions);
    CHECK(exact.tally().wall_collisions == wall_collisions);
    CHECK(stepped.tally().collisions == pair_collisions);
    CHECK(stepped.tally().wall_collisions == wall_collisions);
    // the virial is r.dp at contact: the same when the contact is found exactly
    CHECK(stepped.tally().virial == doctest::Approx(exact.tally().virial).epsilon(1e-12));
    double longest = 0.0;
    for (int a = 0; a < D; ++a) longest = std::max(longest, box.length[a]);
    check_same_state(exact.snapshot(T), stepped.snapshot(T), longest);
}

Box<3> periodic_cube(double L) {
    Box<3> box;
    box.length = Vec<3>{{L, L, L}};
    box.periodic = {true, true, true};
    return box;
}

// Two species of different radius and mass, approaching obliquely: contact near t = 0.66,
// closest approach (centres 0.25 apart) near t = 1.5. A step must end while they still
// overlap and approach (before about 1.2): one that ends after they have passed that
// close misses the collision, as the model does.
Particles<3> oblique_pair() {
    Particles<3> p;
    p.table = SpeciesTable({{"small", 0.4, 1.0}, {"large", 0.7, 2.5}});
    p.add(Vec<3>{{3.0, 5.0, 5.0}}, Vec<3>{{1.0, 0.2, 0.0}}, 0);
    p.add(Vec<3>{{6.0, 5.3, 5.1}}, Vec<3>{{-1.0, 0.0, 0.1}}, 1);
    return p;
}

} // namespace

TEST_CASE("a pair collision straddled by one step comes out as in EDMD") {
    EngineSettings settings;
    settings.restitution = 0.7;
    SUBCASE("straight flights") {
        check_one_step(periodic_cube(10.0), oblique_pair(), settings, Ballistic<3>{}, 1.0, 1, 0);
    }
    SUBCASE("gravity") {
        check_one_step(periodic_cube(10.0), oblique_pair(), settings,
                       Field<3>(Vec<3>{{0.0, -0.4, -1.0}}, 0.0), 1.0, 1, 0);
    }
    SUBCASE("gravity and drag") {
        check_one_step(periodic_cube(10.0), oblique_pair(), settings,
                       Field<3>(Vec<3>{{0.0, -0.4, -1.0}}, 0.3), 1.15, 1, 0);
    }
    SUBCASE("across a periodic edge") {
        Particles<3> p = oblique_pair();
        for (auto& s : p.state) s.x[0] -= 4.5; // the first starts beyond x = 0
        for (auto& s : p.state) s.x[0] += s.x[0] < 0.0 ? 10.0 : 0.0;
        check_one_step(periodic_cube(10.0), p, settings, Ballistic<3>{}, 1.0, 1, 0);
    }
}

TEST_CASE("a wall collision under gravity straddled by one step comes out as in EDMD") {
    Box<2> box;
    box.length = Vec<2>{{10.0, 10.0}};
    box.periodic = {true, false};
    add_box_walls(box, 0.8);
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    p.add(Vec<2>{{5.0, 1.7}}, Vec<2>{{0.4, -0.3}}, 0); // lands near t = 0.96
    check_one_step(box, p, EngineSettings{}, Field<2>(Vec<2>{{0.0, -2.0}}, 0.0), 1.2, 0, 1);
    check_one_step(box, p, EngineSettings{}, Field<2>(Vec<2>{{0.0, -2.0}}, 0.5), 1.2, 0, 1);
}

TEST_CASE("segment collisions straddled by one step come out as in EDMD") {
    Box<2> box;
    box.length = Vec<2>{{10.0, 10.0}};
    box.periodic = {true, true};
    box.segments.push_back(Segment<2>::between(Vec<2>{{3.0, 4.0}}, Vec<2>{{7.0, 5.0}}, 0.9));
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    SUBCASE("its face") {
        p.add(Vec<2>{{5.0, 7.0}}, Vec<2>{{0.3, -1.0}}, 0);
        check_one_step(box, p, EngineSettings{}, Ballistic<2>{}, 2.2, 0, 1);
        check_one_step(box, p, EngineSettings{}, Field<2>(Vec<2>{{0.0, -1.0}}, 0.2), 1.4, 0, 1);
    }
    SUBCASE("its end point") {
        p.add(Vec<2>{{8.5, 4.6}}, Vec<2>{{-1.0, 0.1}}, 0);
        check_one_step(box, p, EngineSettings{}, Ballistic<2>{}, 1.3, 0, 1);
    }
}

TEST_CASE("the stepped grid finds every pair closer than a cell, across periodic edges") {
    // Against all N^2 / 2 pairs: a box periodic on two axes and walled on the third,
    // particles anywhere in it (some beyond the walls, as a step can leave them).
    Box<3> box;
    box.length = Vec<3>{{6.0, 7.5, 5.0}};
    box.periodic = {true, true, false};
    Particles<3> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int i = 0; i < 300; ++i)
        p.add(Vec<3>{{6.0 * u(rng), 7.5 * u(rng), 5.4 * u(rng) - 0.2}}, Vec<3>{}, 0);
    std::set<std::pair<std::uint32_t, std::uint32_t>> close;
    for (std::uint32_t i = 0; i < p.size(); ++i)
        for (std::uint32_t j = i + 1; j < p.size(); ++j) {
            Vec<3> r = p.state[i].x - p.state[j].x;
            for (int a = 0; a < 2; ++a)
                r[a] -= box.length[a] * std::nearbyint(r[a] / box.length[a]);
            if (norm(r) < 1.0) close.insert({i, j});
        }
    StepGrid<3> grid(box, 1.0, p.size());
    grid.build(p);
    std::set<std::pair<std::uint32_t, std::uint32_t>> found;
    grid.each_pair([&](std::uint32_t i, std::uint32_t j, const Vec<3>& r) {
        const std::pair<std::uint32_t, std::uint32_t> pair{std::min(i, j), std::max(i, j)};
        CHECK(found.insert(pair).second);                 // once each
        if (norm(r) < 1.0) CHECK(close.count(pair) == 1); // the nearest image
    });
    for (const auto& pair : close) CHECK(found.count(pair) == 1);
    // and each_neighbour sees the same neighbours of a particle as each_pair
    for (std::uint32_t i = 0; i < p.size(); i += 37) {
        std::set<std::uint32_t> around;
        grid.each_neighbour(i, p.state[i].x, [&](std::uint32_t j, const Vec<3>& r) {
            around.insert(j);
            if (norm(r) < 1.0) CHECK(close.count({std::min(i, j), std::max(i, j)}) == 1);
        });
        for (const auto& pair : close)
            if (pair.first == i || pair.second == i)
                CHECK(around.count(pair.first == i ? pair.second : pair.first) == 1);
    }
}

TEST_CASE("a stepped run continued from its saved state is the same to the bit") {
    Box<3> box = periodic_cube(8.0);
    Particles<3> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    std::mt19937_64 rng(5);
    std::normal_distribution<double> gauss;
    for (int x = 0; x < 6; ++x)
        for (int y = 0; y < 6; ++y)
            for (int z = 0; z < 6; ++z)
                p.add(Vec<3>{{x * 1.3 + 0.5, y * 1.3 + 0.5, z * 1.3 + 0.5}},
                      Vec<3>{{gauss(rng), gauss(rng), gauss(rng)}}, 0);
    EngineSettings settings;
    settings.dt = 0.01;
    settings.passes = 2;
    StepEngine<3> whole(box, p, settings);
    whole.run(0.505, ~std::uint64_t{0}, ~std::uint64_t{0}); // stops between two steps
    ArchiveWriter out;
    whole.save(out);
    const std::string bytes = out.bytes();
    ArchiveReader in(bytes);
    StepEngine<3> continued = StepEngine<3>::restore(in, settings);
    whole.run(1.0, ~std::uint64_t{0}, ~std::uint64_t{0});
    continued.run(1.0, ~std::uint64_t{0}, ~std::uint64_t{0});
    CHECK(whole.tally().collisions > 100);
    CHECK(continued.tally().collisions == whole.tally().collisions);
    CHECK(continued.tally().virial == whole.tally().virial);
    CHECK(continued.kinetic_integral() == whole.kinetic_integral());
    const auto a = whole.snapshot(1.0), b = continued.snapshot(1.0);
    for (std::uint32_t i = 0; i < a.size(); ++i) {
        CHECK(a.state[i].x == b.state[i].x);
        CHECK(a.state[i].v == b.state[i].v);
    }
    // every binary rule conserves energy and momentum wherever it is applied
    CHECK(whole.energy_error() < 1e-13);
    whole.check_conservation();
}

TEST_CASE("as the step shrinks, Z and the collision rate approach the EDMD run beside it") {
    // 500 spheres at eta = 0.30 (mean free time about 0.1), one pass per step. The errors
    // measured here (seeds 1-3, t = 20): collisions found 0.54, 0.84, 0.96 of EDMD's and Z
    // 2.41, 3.34, 3.85 against 3.99 at dt = 0.1, 0.05, 0.025. Two runs that part after a
    // few collisions differ by chance by about 1 / sqrt(collisions) (1.4 % here, t = 10)
    // and Z by a few Z_err (0.02): each step's error must exceed the next one's by 0.05
    // (rate) and 0.1 (Z), and the smallest step be within 8 % and 0.3.
    const std::string text = R"(
dimension = 3
[box]
packing_fraction = 0.30
[[species]]
name = "A"
count = 500
[init]
seed = 1
[run]
time = 10.0
equilibrate = 1.0
integrator = "timestep"
passes = 1
)";
    double last_rate = 2.0, last_z = 10.0;
    for (const double dt : {0.1, 0.05, 0.025}) {
        INFO("dt = " << dt);
        RunOptions options;
        options.quiet = true;
        options.files = false;
        Simulation run(parse_config(text, "trend.toml", {"run.dt=" + std::to_string(dt)}), options);
        REQUIRE(run.advance() == StepEnd::reached);
        const Summary s = run.summary();
        REQUIRE(s.timestep);
        REQUIRE(s.timestep->edmd);
        const auto& edmd = *s.timestep->edmd;
        CHECK(edmd.sim_time == s.sim_time);
        const double rate_error =
            1.0 - static_cast<double>(s.collisions) / static_cast<double>(edmd.collisions);
        const double z_error = *edmd.Z - *s.Z;
        CHECK(rate_error < last_rate - 0.05);
        CHECK(z_error < last_z - 0.1);
        last_rate = rate_error;
        last_z = z_error;
        CHECK(s.timestep->energy_error < 1e-12);
        CHECK(s.timestep->steps == static_cast<std::uint64_t>(std::llround(10.0 / dt)));
    }
    CHECK(std::abs(last_rate) < 0.08);
    CHECK(std::abs(last_z) < 0.3);
}

TEST_CASE("the stepped integrator's config keys") {
    const std::string base = R"(
dimension = 3
[box]
packing_fraction = 0.1
[[species]]
name = "A"
count = 100
[run]
time = 1
)";
    auto error_of = [&](const std::vector<std::string>& overrides) -> std::string {
        try {
            parse_config(base, "t.toml", overrides);
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    };
    CHECK(error_of({"run.integrator=\"timestep\""}).find("run.dt") != std::string::npos);
    CHECK(error_of({"run.dt=0.1"}).find("run.dt") != std::string::npos);
    CHECK(error_of({"run.integrator=\"leapfrog\""}).find("run.integrator") != std::string::npos);
    CHECK(error_of({"run.integrator=\"timestep\"", "run.dt=0"}).find("run.dt") !=
          std::string::npos);
    CHECK(error_of({"run.integrator=\"timestep\"", "run.dt=0.1", "run.passes=0"})
              .find("run.passes") != std::string::npos);
    CHECK(error_of({"run.integrator=\"timestep\"", "run.dt=0.1", "run.passes=1001"})
              .find("run.passes") != std::string::npos);
    CHECK(error_of({"run.integrator=\"timestep\"", "run.dt=0.1", "collisions.epsilon=0.01"})
              .find("collisions.epsilon") != std::string::npos);
    const Config c = parse_config(base, "t.toml", {"run.integrator=\"timestep\"", "run.dt=0.1"});
    CHECK(c.integrator == Integrator::timestep);
    CHECK(c.dt == 0.1);
    CHECK(c.passes == default_passes);
    CHECK(c.compare_edmd);
}

TEST_CASE("a stepped run with nothing left to happen stops instead of stepping for ever") {
    // A run limited by collisions alone would never reach its limit: every particle at
    // rest and no field, as the event-driven engine's Stop::no_events.
    Particles<3> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    p.add(Vec<3>{{2.0, 2.0, 2.0}}, Vec<3>{}, 0);
    p.add(Vec<3>{{5.0, 5.0, 5.0}}, Vec<3>{}, 0);
    EngineSettings settings;
    settings.dt = 0.1;
    StepEngine<3> engine(periodic_cube(8.0), p, settings);
    CHECK(engine.run(never, 1, 1000) == StepEngine<3>::Stop::no_events);
    // with a time limit it steps to it
    CHECK(engine.run(1.0, 1, ~std::uint64_t{0}) == StepEngine<3>::Stop::time);
    CHECK(engine.stepping().steps == 10);
}

} // namespace test_step_engine
