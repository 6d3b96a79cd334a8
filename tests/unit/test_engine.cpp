// The event loop against a brute-force oracle, and the conservation laws over long runs.
#include "boost_calendars.hpp"
#include "reference_calendar.hpp"
#include <choc/kernel/calendar.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/kernel/overlap.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace test_engine {

using namespace choc;

namespace {

// N particles on a simple lattice filling a periodic (or walled) box of edge L, random
// velocities with zero total momentum. Independent of lib/choc/init on purpose.
template <int D>
Particles<D> lattice_gas(int per_axis, double L, std::vector<Species> species, bool walls,
                         unsigned seed) {
    Particles<D> p;
    p.table = SpeciesTable(std::move(species));
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> gauss;
    const double margin = walls ? 0.5 * p.table.largest_diameter() : 0.0;
    const double spacing = (L - 2 * margin) / per_axis;
    const int n = D == 3 ? per_axis * per_axis * per_axis : per_axis * per_axis;
    for (int k = 0; k < n; ++k) {
        Vec<D> x, v;
        int rest = k;
        for (int a = 0; a < D; ++a) {
            x[a] = margin + (rest % per_axis + 0.5) * spacing;
            rest /= per_axis;
            v[a] = gauss(rng);
        }
        p.add(x, v, static_cast<std::uint32_t>(k % p.table.size()));
    }
    Vec<D> total;
    double mass = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
        total += p.state[i].v * p.mass(i);
        mass += p.mass(i);
    }
    for (auto& s : p.state) s.v -= total * (1.0 / mass);
    return p;
}

template <int D>
Box<D> cube(double L, bool walls) {
    Box<D> box;
    for (int a = 0; a < D; ++a) box.length[a] = L, box.periodic[a] = !walls;
    if (walls) add_box_walls(box, 1.0);
    return box;
}

template <int D>
double kinetic(const Particles<D>& p) {
    double k = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) k += 0.5 * p.mass(i) * norm2(p.state[i].v);
    return k;
}

template <int D>
Vec<D> momentum(const Particles<D>& p) {
    Vec<D> m;
    for (std::uint32_t i = 0; i < p.size(); ++i) m += p.state[i].v * p.mass(i);
    return m;
}

// The slow, obviously right simulator: all particles advanced together; the next event
// is the earliest over every pair (every periodic image) and every wall.
template <int D>
struct BruteForce {
    Box<D> box;
    Particles<D> p;
    double e = 1.0;
    double now = 0.0;

    struct Event {
        double t;
        std::uint32_t i, j; // j == i for a wall event (wall index in w)
        std::uint32_t w;
    };

    Event next() const {
        Event best{never, 0, 0, 0};
        const auto n = static_cast<std::uint32_t>(p.size());
        for (std::uint32_t i = 0; i < n; ++i) {
            for (std::uint32_t w = 0; w < box.walls.size(); ++w) {
                const double t = wall_time(box.walls[w], p.state[i].x, p.state[i].v, p.radius(i));
                if (t < best.t) best = {t, i, i, w};
            }
            for (std::uint32_t j = i + 1; j < n; ++j) {
                const double s2 = p.table.pair_sigma2(p.state[i].species, p.state[j].species);
                const Vec<D> v = p.state[i].v - p.state[j].v;
                for (int img = 0; img < (D == 3 ? 27 : 9); ++img) {
                    Vec<D> r = p.state[i].x - p.state[j].x;
                    int code = img;
                    for (int a = 0; a < D; ++a, code /= 3)
                        if (box.periodic[a])
                            r[a] += (code % 3 - 1) * box.length[a];
                        else if (code % 3 != 1)
                            r[a] = never;
                    if (!std::isfinite(r[0]) || (D == 3 && !std::isfinite(r[D - 1]))) continue;
                    if (!std::isfinite(norm2(r))) continue;
                    const double t = pair_time(r, v, s2);
                    if (t < best.t) best = {t, i, j, 0};
                }
            }
        }
        return best;
    }

    Event step() {
        const Event ev = next();
        for (auto& s : p.state) s.x = box.wrap(s.x + s.v * ev.t);
        now += ev.t;
        if (ev.i == ev.j) {
            wall_collision(box.walls[ev.w], p.state[ev.i].v, p.mass(ev.i));
        } else {
            const Vec<D> r = box.minimum_image(p.state[ev.i].x - p.state[ev.j].x);
            binary_collision(r, p.state[ev.i].v, p.state[ev.j].v, p.mass(ev.i), p.mass(ev.j), e);
        }
        return ev;
    }
};

// Runs the engine one pair/wall collision at a time next to the oracle and compares the
// collision sequence: same pair, same time. Chaos amplifies round-off by a factor of a
// few per collision, so over `steps` collisions per ~20 particles the times agree to far
// better than 1e-8 relative while any wrong or missed event shows up as a different pair.
template <int D, class Cal>
Tally agree_with_brute_force(Box<D> box, Particles<D> p, double e, int steps) {
    BruteForce<D> ref{box, p, e};
    Engine<D, Cal> engine(box, p, {e});
    for (int k = 0; k < steps; ++k) {
        const auto ev = ref.step();
        const auto before = engine.tally();
        // advance the engine until it has processed exactly one more collision of any kind
        while (engine.tally().collisions + engine.tally().wall_collisions ==
               before.collisions + before.wall_collisions)
            REQUIRE(engine.run(never, ~0ull, 1) == Engine<D, Cal>::Stop::budget);
        INFO("collision " << k << " at t = " << ref.now);
        CHECK(engine.time() == doctest::Approx(ref.now).epsilon(1e-8));
        if (ev.i == ev.j) {
            CHECK(engine.tally().wall_collisions == before.wall_collisions + 1);
        } else {
            CHECK(engine.tally().collisions == before.collisions + 1);
            // the two collided particles share the same post-collision velocities
            const auto a = engine.snapshot(engine.time()).state[ev.i];
            const auto& b = ref.p.state[ev.i];
            for (int c = 0; c < D; ++c) CHECK(a.v[c] == doctest::Approx(b.v[c]).epsilon(1e-7));
        }
    }
    return engine.tally();
}

} // namespace

TEST_CASE("engine matches a brute-force simulator event by event") {
    SUBCASE("3D periodic, one species") {
        agree_with_brute_force<3, DefaultCalendar>(
            cube<3>(4.0, false), lattice_gas<3>(3, 4.0, {{"A", 0.5, 1.0}}, false, 1), 1.0, 150);
    }
    SUBCASE("3D periodic, denser: stale events renewed by the runner-up candidate") {
        // 125 spheres at packing fraction 0.3: stale predictions are common, and the
        // collision sequence must stay the brute force's when runner-up candidates stand
        // in for new scans
        const Tally t = agree_with_brute_force<3, DefaultCalendar>(
            cube<3>(6.0, false), lattice_gas<3>(5, 6.0, {{"A", 0.5, 1.0}}, false, 6), 1.0, 400);
        CHECK(t.rescans < t.stale); // the runner-up was taken at least once
        CHECK(t.rescans > 0);
    }
    SUBCASE("3D periodic, reference calendar") {
        agree_with_brute_force<3, ReferenceCalendar>(
            cube<3>(4.0, false), lattice_gas<3>(3, 4.0, {{"A", 0.5, 1.0}}, false, 2), 1.0, 150);
    }
    SUBCASE("2D periodic, two species of unequal size and mass") {
        agree_with_brute_force<2, DefaultCalendar>(
            cube<2>(7.0, false),
            lattice_gas<2>(5, 7.0, {{"A", 0.5, 1.0}, {"B", 0.3, 0.2}}, false, 3), 1.0, 150);
    }
    SUBCASE("2D hard walls, inelastic") {
        agree_with_brute_force<2, PairingCalendar>(
            cube<2>(6.0, true), lattice_gas<2>(4, 6.0, {{"A", 0.5, 1.0}}, true, 4), 0.8, 150);
    }
    SUBCASE("3D hard walls, mixture") {
        agree_with_brute_force<3, DefaultCalendar>(
            cube<3>(5.0, true),
            lattice_gas<3>(3, 5.0, {{"A", 0.5, 1.0}, {"B", 0.25, 3.0}}, true, 5), 1.0, 150);
    }
}

// Long elastic runs: energy and momentum are conserved to round-off and nothing overlaps.
// Each collision conserves both to ~1e-16 relative; errors add up like a random walk over
// 1e5 collisions (~1e-16 * sqrt(1e5) ~ 3e-14), so 1e-10 has a wide margin yet catches any
// real loss. Overlaps: contact distances are exact up to round-off of positions O(1e-15)
// amplified by free flight between events; 1e-9 is the tolerance of the runtime overlap
// check (audit.hpp, README "Every run checks itself").
template <int D>
void long_run(int per_axis, double L, std::uint64_t collisions) {
    const auto p = lattice_gas<D>(per_axis, L, {{"A", 0.5, 1.0}}, false, 11);
    Engine<D> engine(cube<D>(L, false), p, {1.0});
    const double k0 = kinetic(engine.particles());
    const Vec<D> p0 = momentum(engine.particles());
    double scale = 0.0; // sum of |m v|, the scale momentum round-off is relative to
    for (std::uint32_t i = 0; i < p.size(); ++i) scale += norm(p.state[i].v) * p.mass(i);
    while (engine.run(never, collisions, 1u << 20) == Engine<D>::Stop::budget) {
    }
    REQUIRE(engine.tally().collisions == collisions);
    CHECK(std::abs(kinetic(engine.particles()) - k0) / k0 < 1e-10);
    CHECK(norm(momentum(engine.particles()) - p0) / scale < 1e-10);
    CHECK(engine.tally().max_overlap <= 1e-9);
    CHECK(max_overlap(engine.box(), engine.particles(), engine.local(engine.time())) <= 1e-9);
}

TEST_CASE("3D: 1e5 collisions at packing fraction 0.3 conserve energy and momentum") {
    // 1000 spheres of diameter 1 at eta = 0.3: L^3 = 1000 pi/6 / 0.3
    long_run<3>(10, std::cbrt(1000 * M_PI / 6 / 0.3), 100000);
}

TEST_CASE("2D: 1e5 collisions at area fraction 0.5 conserve energy and momentum") {
    // 900 discs of diameter 1 at phi = 0.5: L^2 = 900 pi/4 / 0.5
    long_run<2>(30, std::sqrt(900 * M_PI / 4 / 0.5), 100000);
}

TEST_CASE("stopping and resuming does not change the run, bit for bit, across rebasing") {
    // One engine runs 200000 collisions in a single call; the other is stopped at 200
    // intermediate times and after every 777 events on the way. Stops only read the
    // state, so both must end in exactly the same state (several rebases and renumberings
    // happen on the way: 512 particles maintain every 65536 events).
    const double L = std::cbrt(512 * M_PI / 6 / 0.25);
    const auto p = lattice_gas<3>(8, L, {{"A", 0.5, 1.0}}, false, 7);
    Engine<3> a(cube<3>(L, false), p, {1.0}), b(cube<3>(L, false), p, {1.0});
    a.run(never, 200000, ~0ull);
    for (int k = 1; b.tally().collisions < 200000; ++k)
        b.run(k < 200 ? 0.01 * k : never, 200000, 777);
    REQUIRE(a.tally().collisions == b.tally().collisions);
    CHECK(a.tally().events() > 4 * 65536);
    const auto sa = a.snapshot(a.time()), sb = b.snapshot(a.time());
    for (std::uint32_t i = 0; i < p.size(); ++i) {
        CHECK(sa.state[i].x == sb.state[i].x);
        CHECK(sa.state[i].v == sb.state[i].v);
    }
}

TEST_CASE("visit and visit_in_order give each particle as the snapshot does; a retired engine "
          "keeps its particles") {
    // After renumberings (the engine's order is not the caller's), visit must hand every
    // caller index once with the snapshot's position and velocity to the bit. retire()
    // frees the event loop's arrays: the state and the reported memory stay, run() refuses.
    const double L = std::cbrt(512 * M_PI / 6 / 0.3);
    const auto p = lattice_gas<3>(8, L, {{"A", 0.5, 1.0}}, false, 11);
    Engine<3> engine(cube<3>(L, false), p, {1.0});
    engine.run(never, 100000, ~0ull);
    const double t = engine.time();
    bool renumbered = false; // (every 65536 events here)
    for (std::uint32_t i = 0; i < p.size(); ++i) renumbered |= engine.id(i) != i;
    REQUIRE(renumbered);
    const auto snap = engine.snapshot(t);
    std::vector<int> seen(p.size(), 0);
    engine.visit(t, [&](std::uint32_t id, const ParticleState<3>& s) {
        REQUIRE(id < p.size());
        ++seen[id];
        CHECK(s.x == snap.state[id].x);
        CHECK(s.v == snap.state[id].v);
        CHECK(s.species == snap.state[id].species);
    });
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<long>(p.size()));
    std::uint32_t next = 0;
    engine.visit_in_order(t, [&](std::uint32_t id, const ParticleState<3>& s) {
        CHECK(id == next++);
        CHECK(s.x == snap.state[id].x);
    });
    CHECK(next == p.size());
    const std::size_t bytes = engine.memory_bytes();
    engine.retire();
    CHECK(engine.memory_bytes() == bytes);
    const auto after = engine.snapshot(t);
    for (std::uint32_t i = 0; i < p.size(); ++i) CHECK(after.state[i].x == snap.state[i].x);
    CHECK_THROWS_AS(engine.run(never, 200000, ~0ull), std::logic_error);
}

TEST_CASE("time limit: the run stops at the requested time with every event before it done") {
    const double L = std::cbrt(125 * M_PI / 6 / 0.2);
    Engine<3> engine(cube<3>(L, false), lattice_gas<3>(5, L, {{"A", 0.5, 1.0}}, false, 3), {1.0});
    CHECK(engine.run(2.5, ~0ull, ~0ull) == Engine<3>::Stop::time);
    CHECK(engine.time() == 2.5);
    CHECK(engine.tally().collisions > 0);
    CHECK(max_overlap(engine.box(), engine.particles(), engine.local(2.5)) <= 1e-9);
}

TEST_CASE("particles at rest: no events, and the loop says so instead of spinning") {
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    p.add(Vec<2>{{1.0, 1.0}}, Vec<2>{}, 0);
    p.add(Vec<2>{{3.0, 1.0}}, Vec<2>{}, 0);
    Engine<2> engine(cube<2>(5.0, false), p, {1.0});
    CHECK(engine.run(never, 10, 100) == Engine<2>::Stop::no_events);
    CHECK(engine.run(4.0, 10, 100) == Engine<2>::Stop::time);
}

TEST_CASE("inelastic gas: momentum conserved, energy lost, and the tally tracks it") {
    const double L = std::cbrt(343 * M_PI / 6 / 0.2);
    const auto p = lattice_gas<3>(7, L, {{"A", 0.5, 1.0}}, false, 9);
    const double e = 0.9;
    Engine<3> engine(cube<3>(L, false), p, {e});
    const double k0 = kinetic(engine.particles());
    engine.run(never, 3000, ~0ull);
    const double k1 = kinetic(engine.particles());
    CHECK(k1 < k0);
    // the tally integrates the exact per-collision losses: it must track the true energy
    CHECK(engine.tally().kinetic[0] == doctest::Approx(k1).epsilon(1e-10));
    CHECK(norm(momentum(engine.particles())) < 1e-10 * std::sqrt(k0));
}

TEST_CASE("time-limited runs in chunks stay on the clock across time-origin rebasing") {
    // 125 spheres rebase every 65536 events; stopping at many intermediate times makes
    // the loop cross rebases mid-call. Every stop must land exactly on its target and the
    // configuration stay overlap-free (a clock that slipped shows up as huge overlaps).
    const double L = std::cbrt(125 * M_PI / 6 / 0.3);
    Engine<3> engine(cube<3>(L, false), lattice_gas<3>(5, L, {{"A", 0.5, 1.0}}, false, 21), {1.0});
    for (int k = 1; k <= 1000; ++k) {
        const double target = 0.5 * k;
        REQUIRE(engine.run(target, ~0ull, ~0ull) == Engine<3>::Stop::time);
        REQUIRE(engine.time() == target);
    }
    CHECK(engine.tally().events() > 3 * 65536);
    CHECK(engine.tally().max_overlap <= 1e-9);
    CHECK(max_overlap(engine.box(), engine.snapshot(engine.time()), engine.time()) <= 1e-9);
}

TEST_CASE("restitution per pair of species") {
    // Two head-on pairs far apart in a periodic box: A-B with e = 0.5 (from the pair
    // table), A-A elastic. The binary rule makes the normal relative velocity -e times its
    // value; a few flops of round-off, hence 1e-12.
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}, {"B", 0.5, 2.0}});
    p.add(Vec<2>{{2.0, 5.0}}, Vec<2>{{1.0, 0.0}}, 0);  // A, hits B at t = 1
    p.add(Vec<2>{{5.0, 5.0}}, Vec<2>{{-1.0, 0.0}}, 1); // B
    p.add(Vec<2>{{2.0, 15.0}}, Vec<2>{{1.0, 0.0}}, 0); // A, hits A at t = 1
    p.add(Vec<2>{{5.0, 15.0}}, Vec<2>{{-1.0, 0.0}}, 0);
    EngineSettings settings;
    settings.restitution = 1.0;
    settings.pair_restitution = {1.0, 0.5, 0.5, 1.0};
    Engine<2> engine(cube<2>(20.0, false), p, settings);
    REQUIRE(engine.run(1.5, ~0ull, 100) == Engine<2>::Stop::time);
    REQUIRE(engine.tally().collisions == 2);
    const auto s = engine.snapshot(1.5);
    CHECK(std::abs((s.state[0].v[0] - s.state[1].v[0]) - (-0.5 * 2.0)) < 1e-12);
    CHECK(std::abs((s.state[2].v[0] - s.state[3].v[0]) - (-1.0 * 2.0)) < 1e-12);
    // momentum of the A-B pair: 1 * 1 + 2 * (-1) = -1
    CHECK(std::abs(s.state[0].v[0] + 2.0 * s.state[1].v[0] + 1.0) < 1e-12);
}

} // namespace test_engine
