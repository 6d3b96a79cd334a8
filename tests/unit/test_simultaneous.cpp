// Simultaneous collisions in the kernel (collisions.epsilon > 0): the three-disc example
// of the seed model, agreement with the group rule, and conservation on a lattice start
// where many collisions happen at exactly the same instant.
#include <choc/kernel/engine.hpp>
#include <choc/kernel/group_rule.hpp>
#include <choc/kernel/overlap.hpp>

#include <doctest/doctest.h>

#include <array>
#include <cmath>

namespace test_simultaneous {

using namespace choc;

namespace {

Box<2> periodic_square(double L) {
    Box<2> box;
    box.length = Vec<2>{{L, L}};
    box.periodic = {true, true};
    return box;
}

// A disc of radius 1 at speed 1 towards two touching discs at rest, all of mass 1: disc
// 0 at (6, 10 + b), discs 1 and 2 at (10, 10) and (12, 10). Disc 0 meets disc 1 first,
// at t = 4 - sqrt(4 - b^2), while 1 and 2 touch.
Particles<2> three_discs(double b) {
    Particles<2> p;
    p.table = SpeciesTable({{"A", 1.0, 1.0}});
    p.add(Vec<2>{{6.0, 10.0 + b}}, Vec<2>{{1.0, 0.0}}, 0);
    p.add(Vec<2>{{10.0, 10.0}}, Vec<2>{}, 0);
    p.add(Vec<2>{{12.0, 10.0}}, Vec<2>{}, 0);
    return p;
}

// Velocities after the first collision (t = 3, long before disc 2 could come round the
// periodic box to anything).
std::array<Vec<2>, 3> after_impact(double b, double e, double epsilon) {
    EngineSettings settings;
    settings.restitution = e;
    settings.epsilon = epsilon;
    Engine<2> engine(periodic_square(20.0), three_discs(b), settings);
    REQUIRE(engine.run(3.0, ~0ull, 1000) == Engine<2>::Stop::time);
    const auto p = engine.snapshot(3.0);
    return {p.state[0].v, p.state[1].v, p.state[2].v};
}

} // namespace

TEST_CASE("three discs, b = 0: sequential with epsilon = 0, simultaneous with epsilon > 0") {
    // Exact results of the seed: the binary rule twice (Newton's cradle) gives (0, 0, 1);
    // the group rule gives (-1/3, 2/3, 2/3) for e = 1 and (0, 1/2, 1/2) for e = 1/2. The
    // engine reaches them through a handful of flops: round-off, hence 1e-12.
    SUBCASE("epsilon = 0, e = 1: Newton's cradle") {
        const auto v = after_impact(0.0, 1.0, 0.0);
        CHECK(v[0][0] == doctest::Approx(0.0).epsilon(1e-12));
        CHECK(v[1][0] == doctest::Approx(0.0).epsilon(1e-12));
        CHECK(v[2][0] == doctest::Approx(1.0).epsilon(1e-12));
    }
    SUBCASE("epsilon > 0, e = 1") {
        const auto v = after_impact(0.0, 1.0, 1e-9);
        CHECK(std::abs(v[0][0] + 1.0 / 3.0) < 1e-12);
        CHECK(std::abs(v[1][0] - 2.0 / 3.0) < 1e-12);
        CHECK(std::abs(v[2][0] - 2.0 / 3.0) < 1e-12);
        for (const auto& u : v) CHECK(std::abs(u[1]) < 1e-12);
    }
    SUBCASE("epsilon > 0, e = 1/2") {
        const auto v = after_impact(0.0, 0.5, 1e-9);
        CHECK(std::abs(v[0][0]) < 1e-12);
        CHECK(std::abs(v[1][0] - 0.5) < 1e-12);
        CHECK(std::abs(v[2][0] - 0.5) < 1e-12);
    }
}

TEST_CASE("three discs, b = 0.5: the kernel's group equals the group rule's answer") {
    // At impact disc 0 is at (10 - sqrt(4 - b^2), 10 + b): the contact normals are known
    // in closed form, so the group rule can be asked directly.
    const double b = 0.5;
    const Vec<2> x0{{10.0 - std::sqrt(4.0 - b * b), 10.0 + b}};
    const Vec<2> x1{{10.0, 10.0}}, x2{{12.0, 10.0}};
    auto unit = [](Vec<2> r) { return r * (1.0 / norm(r)); };
    const std::array<GroupBody<2>, 3> bodies{
        {{Vec<2>{{1.0, 0.0}}, 1.0}, {Vec<2>{}, 1.0}, {Vec<2>{}, 1.0}}};
    for (const double e : {1.0, 0.5}) {
        CAPTURE(e);
        const std::array<GroupContact<2>, 2> contacts{
            {{0, 1, unit(x0 - x1), e}, {1, 2, unit(x1 - x2), e}}};
        const auto expected = resolve_group<2>(bodies, contacts);
        const auto v = after_impact(b, e, 1e-9);
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 2; ++a)
                CHECK(std::abs(v[k][a] - expected.velocities[k][a]) < 1e-12);
        // and it is not the sequential answer: the touching disc 2 moved at once
        CHECK(v[2][0] > 0.1);
    }
}

namespace {

// Discs on a square lattice with velocities in a period-4 pattern per column and per
// row, (+s, 0, -s, 0): columns 0 and 2 reach column 1 at exactly the same instant, and
// likewise for rows, so three-body (and larger) events are exact ties.
Particles<2> symmetric_lattice(int n, double spacing) {
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    const std::array<double, 4> pattern{1.0, 0.0, -1.0, 0.0};
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            p.add(Vec<2>{{(x + 0.5) * spacing, (y + 0.5) * spacing}},
                  Vec<2>{{pattern[x % 4], 0.5 * pattern[y % 4]}}, 0);
    return p;
}

double kinetic(const Particles<2>& p) {
    double k = 0.0;
    for (const auto& s : p.state) k += 0.5 * norm2(s.v);
    return k;
}

} // namespace

TEST_CASE("a lattice with exactly simultaneous collisions conserves and never overlaps") {
    // 16 x 16 discs of diameter 1 at spacing 1.5 (area fraction 0.35). Each collision
    // conserves energy and momentum to ~1e-16 relative; over 2e4 collisions the errors
    // add up like a random walk (~1e-14), so 1e-10 has a wide margin yet catches any loss.
    // Overlap: positions are exact to round-off, 1e-9 is the contract.
    for (const double epsilon : {0.0, 1e-9}) {
        CAPTURE(epsilon);
        EngineSettings settings;
        settings.epsilon = epsilon;
        const auto start = symmetric_lattice(16, 1.5);
        Engine<2> engine(periodic_square(24.0), start, settings);
        const double k0 = kinetic(engine.particles());
        while (engine.run(never, 20000, 1u << 16) == Engine<2>::Stop::budget) {
        }
        REQUIRE(engine.tally().collisions >= 20000);
        const auto end = engine.snapshot(engine.time());
        CHECK(std::abs(kinetic(end) - k0) / k0 < 1e-10);
        Vec<2> momentum;
        for (const auto& s : end.state) momentum += s.v;
        CHECK(norm(momentum) < 1e-10 * std::sqrt(2.0 * k0 * end.size()));
        CHECK(engine.tally().max_overlap <= 1e-9);
        CHECK(max_overlap(engine.box(), end, engine.time()) <= 1e-9);
        // the group path was taken, and only then
        if (epsilon > 0.0)
            CHECK(engine.tally().groups > 0);
        else
            CHECK(engine.tally().groups == 0);
    }
}

} // namespace test_simultaneous
