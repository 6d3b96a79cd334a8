// The engine under gravity and drag (Engine<D, Cal, Field<D>>): a ball bouncing on a
// floor, energy bookkeeping in a gas under gravity, and a gas cooled by drag alone.
#include <choc/kernel/engine.hpp>
#include <choc/kernel/overlap.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>

namespace test_fields {

using namespace choc;

namespace {

using FieldEngine = Engine<2, DefaultCalendar, Field<2>>;

Box<2> walled_square(double L, double restitution) {
    Box<2> box;
    box.length = Vec<2>{{L, L}};
    box.periodic = {false, false};
    add_box_walls(box, restitution);
    return box;
}

// Discs of diameter 1 on a square lattice in the lower part of a walled box, random
// velocities.
Particles<2> lattice(int per_row, int rows, double spacing, unsigned seed) {
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> gauss;
    for (int y = 0; y < rows; ++y)
        for (int x = 0; x < per_row; ++x)
            p.add(Vec<2>{{(x + 0.5) * spacing, (y + 0.5) * spacing}},
                  Vec<2>{{gauss(rng), gauss(rng)}}, 0);
    return p;
}

// Kinetic plus potential energy, U = -m g.x.
double energy(const Particles<2>& p, const Vec<2>& g) {
    double e = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i)
        e += p.mass(i) * (0.5 * norm2(p.state[i].v) - dot(g, p.state[i].x));
    return e;
}

} // namespace

TEST_CASE("a ball bouncing on a floor: bounce times and heights follow the geometric series") {
    // Launched from the floor at speed v0 under g, restitution e: bounce k leaves at
    // v_k = e^k v0 and lands 2 v_k / g later, so the k-th landing is at
    // t_k = (2 v0 / g) (1 - e^k) / (1 - e), approaching t_inf = 2 v0 / (g (1 - e)).
    // The times are sums of exact roots, each a few ulp: 1e-12 relative. Besides, each
    // bounce happens where the computed height is within rounding, delta <= ulp(0.5), of
    // contact, and the next flight is measured from that height (Field::first_contact): it
    // ends at contact, delta/v_j early, and lands slower by g delta/v_j^2 relative. Those
    // terms, summed over the flights so far, are allowed on top: they grow as 1/v and
    // 1/v^2, and the last bounces, 1e-15 high and less, follow the series only to
    // round-off (with the slack, bounces 23 to 40 pass; without it they fail).
    const double g = 2.0, v0 = 1.5, e = 0.6;
    const double delta = std::nextafter(0.5, 1.0) - 0.5;
    double time_slack = 0.0, speed_slack = 0.0;
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    p.add(Vec<2>{{5.0, 0.5}}, Vec<2>{{0.0, v0}}, 0); // touching the floor
    FieldEngine engine(walled_square(10.0, e), p, {}, Field<2>(Vec<2>{{0.0, -g}}, 0.0));
    const double t_inf = 2.0 * v0 / (g * (1.0 - e));
    for (int k = 1; k <= 40; ++k) {
        CAPTURE(k);
        // one event at a time (cell crossings too) until the next bounce
        while (engine.tally().wall_collisions < static_cast<std::uint64_t>(k))
            REQUIRE(engine.run(never, ~0ull, 1) == FieldEngine::Stop::budget);
        const double expected = t_inf * (1.0 - std::pow(e, k));
        const double v_before = std::pow(e, k - 1) * v0; // the flight just ended
        time_slack += 2.0 * delta / v_before;
        speed_slack += 2.0 * g * delta / (v_before * v_before);
        CHECK(std::abs(engine.time() - expected) <= 1e-12 * expected + time_slack);
        // just after the bounce: speed e^k v0 upwards, so the next apex is v_k^2 / (2 g)
        const auto s = engine.snapshot(engine.time());
        const double v_k = std::pow(e, k) * v0;
        CHECK(std::abs(s.state[0].v[1] - v_k) <= (1e-10 + speed_slack) * v_k);
        CHECK(s.state[0].x[1] == doctest::Approx(0.5).epsilon(1e-12));
    }
    CHECK(engine.time() < t_inf);
    CHECK(t_inf - engine.time() < 1e-8 * t_inf); // e^40 of the way
}

TEST_CASE("elastic gas under gravity conserves kinetic plus potential energy") {
    // 100 discs in a walled 20 x 20 box, g = (0, -1), e = 1. Each collision and flight
    // is exact to round-off, so 2e4 collisions leave the total energy within 1e-10
    // relative (the errors add like a random walk, ~1e-14), and nothing overlaps.
    const Vec<2> g{{0.0, -1.0}};
    FieldEngine engine(walled_square(20.0, 1.0), lattice(10, 10, 1.6, 1), {}, Field<2>(g, 0.0));
    const double e0 = energy(engine.snapshot(0.0), g);
    while (engine.run(never, 20000, 1u << 16) == FieldEngine::Stop::budget) {
    }
    const auto end = engine.snapshot(engine.time());
    CHECK(std::abs(energy(end, g) - e0) / std::abs(e0) < 1e-10);
    CHECK(engine.tally().max_overlap <= 1e-9);
    CHECK(max_overlap(engine.box(), end, engine.time()) <= 1e-9);
    // the gas stays in the box
    for (const auto& s : end.state) {
        CHECK(s.x[1] >= 0.5 - 1e-9);
        CHECK(s.x[1] <= 19.5 + 1e-9);
    }
}

TEST_CASE("inelastic gas under gravity: the energy lost is exactly the binary-rule loss") {
    // e = 0.8 between discs, elastic walls. Total energy falls only at collisions, by the
    // binary rule's (1 - e^2) mu u^2 / 2, which the tally adds up: both sides agree to
    // round-off of the energy scale.
    const Vec<2> g{{0.0, -1.0}};
    EngineSettings settings;
    settings.restitution = 0.8;
    FieldEngine engine(walled_square(20.0, 1.0), lattice(10, 10, 1.6, 2), settings,
                       Field<2>(g, 0.0));
    const double e0 = energy(engine.snapshot(0.0), g);
    while (engine.run(never, 5000, 1u << 16) == FieldEngine::Stop::budget) {
    }
    const double e1 = energy(engine.snapshot(engine.time()), g);
    CHECK(engine.tally().collision_energy < -1e-3); // it did lose energy
    CHECK(std::abs((e1 - e0) - engine.tally().collision_energy) < 1e-10 * std::abs(e0));
    CHECK(engine.tally().max_overlap <= 1e-9);
}

TEST_CASE("drag alone cools an elastic gas exactly as exp(-2 gamma t)") {
    // Every velocity decays as e^(-γt) between collisions and elastic collisions conserve
    // kinetic energy, so K(t) = K(0) e^(-2γt) whatever the collisions do: to round-off.
    Box<2> box;
    box.length = Vec<2>{{16.0, 16.0}};
    box.periodic = {true, true};
    const double gamma = 0.3;
    FieldEngine engine(box, lattice(10, 10, 1.6, 3), {}, Field<2>(Vec<2>{}, gamma));
    auto kinetic = [](const Particles<2>& p) {
        double k = 0.0;
        for (const auto& s : p.state) k += 0.5 * norm2(s.v);
        return k;
    };
    const double k0 = kinetic(engine.snapshot(0.0));
    for (const double t : {0.5, 2.0, 5.0}) {
        REQUIRE(engine.run(t, ~0ull, ~0ull) == FieldEngine::Stop::time);
        CHECK(kinetic(engine.snapshot(t)) ==
              doctest::Approx(k0 * std::exp(-2 * gamma * t)).epsilon(1e-10));
    }
    CHECK(engine.tally().collisions > 100);
    // and the time integral of K is K0 (1 - e^(-2γt)) / (2γ)
    CHECK(engine.kinetic_integral() ==
          doctest::Approx(k0 * -std::expm1(-2 * gamma * 5.0) / (2 * gamma)).epsilon(1e-10));
}

TEST_CASE("a bouncing ball under the TC model keeps its last inelastic bounce") {
    // v0 = 1.5, g = 2, e = 0.6, tc = 0.01. A landing is elastic when the flight before it
    // (2 v_k / g = v_k here) lasted less than tc: flights 1.5 * 0.6^k are >= 0.01 up to
    // k = 9, so landing 10 is the last inelastic one and the ball then bounces forever at
    // v0 * 0.6^10 = 0.00907. Its energy (kinetic + potential above the floor contact) stays
    // at v*^2 / 2 to round-off, and the run ends at the requested time without a hang.
    const double g = 2.0, v0 = 1.5, e = 0.6;
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    p.add(Vec<2>{{5.0, 0.5}}, Vec<2>{{0.0, v0}}, 0);
    EngineSettings settings;
    settings.tc = 0.01;
    FieldEngine engine(walled_square(10.0, e), p, settings, Field<2>(Vec<2>{{0.0, -g}}, 0.0));
    const double t_inf = 2.0 * v0 / (g * (1.0 - e));
    REQUIRE(engine.run(3.0 * t_inf, ~0ull, 1u << 20) == FieldEngine::Stop::time);
    const auto s = engine.snapshot(3.0 * t_inf);
    const double v_last = v0 * std::pow(e, 10);
    const double energy = 0.5 * norm2(s.state[0].v) + g * (s.state[0].x[1] - 0.5);
    CHECK(energy == doctest::Approx(0.5 * v_last * v_last).epsilon(1e-9));
    // 10 inelastic landings, then one every v_last until 3 t_inf
    const double bounces = 10 + (3.0 * t_inf - t_inf * (1 - std::pow(e, 10))) / v_last;
    CHECK(std::abs(static_cast<double>(engine.tally().wall_collisions) - bounces) <= 1.0);
}

TEST_CASE("a ball bouncing to rest never falls through the floor") {
    // Found by the dissipation checks: after the flights became shorter than the clock's
    // resolution, a landing fired while the ball still left the floor and was reflected
    // into it, |u| shrank by e at every event until u^2 underflowed, no landing was
    // predicted any more, and the ball fell through. Now the clock stops at t_inf (the
    // collapse watch of choc run reports it) and the ball stays on the floor.
    const double g = 1.0, v0 = 1.0, e = 0.5;
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    p.add(Vec<2>{{5.0, 0.5}}, Vec<2>{{0.0, v0}}, 0);
    FieldEngine engine(walled_square(10.0, e), p, {}, Field<2>(Vec<2>{{0.0, -g}}, 0.0));
    const double t_inf = 2.0 * v0 / (g * (1.0 - e));
    CHECK(engine.run(10.0, ~0ull, 200000) == FieldEngine::Stop::budget);
    CHECK(engine.time() == doctest::Approx(t_inf).epsilon(1e-12));
    const auto s = engine.snapshot(engine.time());
    CHECK(s.state[0].x[1] >= 0.5 - 1e-12);
    CHECK(engine.tally().max_overlap <= 1e-12);
    CHECK(std::abs(s.state[0].v[1]) < 1e-6);
}

TEST_CASE("a disc in TC micro-bounces down a tilted plane does not sink into it") {
    // Scan case 14466090374848110308 (issue 40): a disc sliding at 3 down a plane tilted by
    // 37 degrees, 65 from the origin, in elastic TC bounces of normal speed 4.4e-16 (the
    // round-off of its velocity) from a round-off overlap, each flight 5e-15 long and
    // rising 6e-31, so that none could rise out of the overlap while each flight's end
    // rounded about 1.2e-15 deeper (its coordinates' ulp is 1.4e-14), until the contact
    // check stopped the run at 1e-9 of the radius (t = 21.98). Here: the same plane,
    // gravity, velocity and place, from an overlap of 3e-14, for 1e-3.
    const Vec<2> g{{0.0, -0.2145000492252466}};
    Box<2> box = walled_square(126.33074198676374, 1.0);
    Wall<2> plane;
    plane.normal = Vec<2>{{0.4555640680402133, 0.5965226427271166}};
    plane.normal = plane.normal * (1.0 / norm(plane.normal));
    plane.offset = dot(Vec<2>{{40.527472119629635, 33.522955778211994}}, plane.normal);
    box.walls.push_back(plane);
    const Vec<2> seen{{65.646648501379161, 14.968586049564596}};
    const Vec<2> x = seen + plane.normal * (0.5 - 3e-14 - plane.distance(seen));
    REQUIRE(plane.distance(x) - 0.5 < -1e-14); // a round-off overlap, deeper than a flight rises
    REQUIRE(plane.distance(x) - 0.5 > -1e-13);
    const Vec<2> v{{2.3579255769798055, -1.8007466792444637}};
    REQUIRE(std::abs(dot(v, plane.normal)) < 1e-15);
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    p.add(x, v, 0);
    EngineSettings settings;
    settings.tc = 1.0; // every bounce elastic: the micro-bounces go on
    FieldEngine engine(box, p, settings, Field<2>(g, 0.0));
    REQUIRE_NOTHROW(engine.run(1e-3, ~0ull, ~0ull));
    CHECK(engine.tally().wall_collisions > 100);
    CHECK(engine.tally().max_overlap <= 1e-13);
    const auto s = engine.snapshot(1e-3);
    CHECK(plane.distance(s.state[0].x) >= 0.5 - 1e-13);
}

} // namespace test_fields
