// The flux integrals behind viscosity, heat conduction and the pressure tensor
// (flux_tally.hpp): one collision's increments against a hand computation, a group's energy
// moment against the particles' own energy changes, and an engine's running sums against
// what its particles and its other tallies say.
#include <choc/init/initial_state.hpp>
#include <choc/kernel/collide.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/kernel/flux_tally.hpp>
#include <choc/kernel/group_rule.hpp>
#include <choc/kernel/kinetic.hpp>
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace test_flux_tally {

using choc::Vec;

namespace {

// |a - b| within tol of max(1, |b|).
bool near(double a, double b, double tol) {
    return std::abs(a - b) <= tol * std::max(1.0, std::abs(b));
}

// The tally of one particle pair colliding at time 2 after flying from time 0.
struct OneCollision {
    choc::FluxTally<3> flux;
    Vec<3> vi{0.7, -0.2, 0.4}, vj{-0.5, 0.3, 0.1};
    Vec<3> vi2, vj2, dp;
    Vec<3> r{0.6, 0.0, 0.8}; // x_i - x_j at contact: unit length (contact distance 1)
    double mi = 1.0, mj = 3.0;

    explicit OneCollision(double e) {
        flux.reset(0.0);
        flux.add(mi, vi, 1.0);
        flux.add(mj, vj, 1.0);
        flux.advance(2.0);
        flux.add(mi, vi, -1.0);
        flux.add(mj, vj, -1.0);
        vi2 = vi, vj2 = vj;
        dp = choc::binary_collision(r, vi2, vj2, mi, mj, e).dp;
        flux.add(mi, vi2, 1.0);
        flux.add(mj, vj2, 1.0);
        flux.contact(r, dp, 0.5 * (vi + vi2), 0.5 * (vj + vj2));
    }
};

} // namespace

TEST_CASE("one elastic collision: the contact adds r (x) dp to G and r dE_i to H") {
    OneCollision c(1.0);
    // By hand: the normal relative speed u = (v_i - v_j).r = 1.2 * 0.6 + 0.3 * 0.8 = 0.96;
    // reduced mass 3/4; dp = -(1 + e) mu u r = -1.44 r.
    CHECK(c.dp[0] == doctest::Approx(-1.44 * 0.6));
    CHECK(c.dp[2] == doctest::Approx(-1.44 * 0.8));
    // i's energy change 1/2 m_i (|v_i'|^2 - |v_i|^2): what crossed the contact to i
    const double dE = 0.5 * c.mi * (choc::norm2(c.vi2) - choc::norm2(c.vi));
    CHECK(dE == doctest::Approx(-0.5 * c.mj * (choc::norm2(c.vj2) - choc::norm2(c.vj))));
    // at t = 2: streaming before over [0, 2], none after; then the contact terms
    const auto at_collision = c.flux.moments(2.0);
    const auto stream = [&](int a, int b) {
        return c.mi * c.vi[a] * c.vi[b] + c.mj * c.vj[a] * c.vj[b];
    };
    const auto ab = choc::FluxTally<3>::axes();
    for (int k = 0; k < 6; ++k) {
        const auto [a, b] = ab[k];
        CHECK(near(at_collision.momentum[k], 2.0 * stream(a, b) + c.r[a] * c.dp[b], 1e-14));
    }
    // xx: 2 (0.49 + 0.75) + 0.6 (-0.864), by hand
    CHECK(at_collision.momentum[0] == doctest::Approx(2.48 - 0.5184).epsilon(1e-14));
    for (int a = 0; a < 3; ++a) {
        const double streaming =
            0.5 * c.mi * choc::norm2(c.vi) * c.vi[a] + 0.5 * c.mj * choc::norm2(c.vj) * c.vj[a];
        CHECK(near(at_collision.energy[a], 2.0 * streaming + c.r[a] * dE, 1e-14));
    }
    // after the collision the new velocities stream
    const auto later = c.flux.moments(3.0);
    for (int k = 0; k < 6; ++k) {
        const auto [a, b] = ab[k];
        const double after = c.mi * c.vi2[a] * c.vi2[b] + c.mj * c.vj2[a] * c.vj2[b];
        CHECK(near(later.momentum[k] - at_collision.momentum[k], after, 1e-14));
    }
    // the trace of G is 2 x (integral of the kinetic energy) plus the collision virial
    const double trace =
        at_collision.momentum[0] + at_collision.momentum[1] + at_collision.momentum[2];
    const double kinetic = choc::kinetic_energy(c.mi, c.vi) + choc::kinetic_energy(c.mj, c.vj);
    CHECK(near(trace, 2.0 * 2.0 * kinetic + choc::dot(c.r, c.dp), 1e-14));
}

TEST_CASE("an inelastic collision carries the mean of the energies given and taken") {
    OneCollision c(0.5);
    const double gained_i = 0.5 * c.mi * (choc::norm2(c.vi2) - choc::norm2(c.vi));
    const double lost_j = -0.5 * c.mj * (choc::norm2(c.vj2) - choc::norm2(c.vj));
    CHECK(gained_i < lost_j); // energy was lost
    const auto g = c.flux.moments(2.0);
    for (int a = 0; a < 3; ++a) {
        const double streaming =
            0.5 * c.mi * choc::norm2(c.vi) * c.vi[a] + 0.5 * c.mj * choc::norm2(c.vj) * c.vj[a];
        CHECK(near(g.energy[a], 2.0 * streaming + c.r[a] * 0.5 * (gained_i + lost_j), 1e-14));
    }
}

TEST_CASE("an elastic group: the contacts' energy moment is the sum of x_k dE_k") {
    // Three discs in a bent chain, all touching; the middle one is hit from both sides.
    const std::vector<Vec<2>> x{{0.0, 0.0}, {1.0, 0.0}, {1.6, 0.8}};
    const std::vector<double> m{1.0, 2.0, 0.5};
    std::vector<choc::GroupBody<2>> bodies{
        {{1.0, 0.3}, m[0]}, {{0.0, 0.0}, m[1]}, {{-0.4, -0.9}, m[2]}};
    std::vector<choc::GroupContact<2>> contacts;
    for (const auto& [a, b] : {std::pair{0u, 1u}, std::pair{2u, 1u}})
        contacts.push_back({a, b, (x[a] - x[b]) * (1.0 / choc::norm(x[a] - x[b])), 1.0});
    const auto result = choc::resolve_group<2>(bodies, contacts);
    REQUIRE(!result.singular);
    choc::FluxTally<2> flux;
    flux.reset(0.0);
    double expected[2] = {0.0, 0.0}, momentum_expected[3] = {0.0, 0.0, 0.0};
    for (std::size_t n = 0; n < contacts.size(); ++n) {
        const auto a = contacts[n].a, b = contacts[n].b;
        const auto mean = [&](std::uint32_t k) {
            return 0.5 * (bodies[k].velocity + result.velocities[k]);
        };
        flux.contact(x[a] - x[b], result.impulses[n], mean(a), mean(b));
        const Vec<2> r = x[a] - x[b];
        momentum_expected[0] += r[0] * result.impulses[n][0];
        momentum_expected[1] += r[1] * result.impulses[n][1];
        momentum_expected[2] += r[0] * result.impulses[n][1];
    }
    double change = 0.0;
    for (std::size_t k = 0; k < 3; ++k) {
        const double dE =
            0.5 * m[k] * (choc::norm2(result.velocities[k]) - choc::norm2(bodies[k].velocity));
        change += dE;
        for (int a = 0; a < 2; ++a) expected[a] += x[k][a] * dE;
    }
    CHECK(std::abs(change) < 1e-14); // elastic
    const auto g = flux.moments(0.0);
    for (int a = 0; a < 2; ++a) CHECK(near(g.energy[a], expected[a], 1e-13));
    for (int k = 0; k < 3; ++k) CHECK(near(g.momentum[k], momentum_expected[k], 1e-14));
    // the contact tensor is symmetric: r (x) dp with dp along r
    const Vec<2> r = x[2] - x[1];
    CHECK(near(r[0] * result.impulses[1][1], r[1] * result.impulses[1][0], 1e-14));
}

namespace {

template <int D>
choc::Engine<D> engine_of(const std::string& toml) {
    const choc::Config config = choc::parse_config(toml + "[run]\ntime = 1\n", "flux.toml");
    auto start = choc::make_initial_state<D>(config);
    auto settings = choc::engine_settings(config);
    settings.maintain_every = 997; // rebase and renumber often
    return choc::Engine<D>(std::move(start.box), std::move(start.particles), settings);
}

// After a run: the streaming sums are those of the particles now, and the trace of G is
// 2 K t plus the virial (the tally's own running sums).
template <int D>
void check_sums(const choc::Engine<D>& engine) {
    const auto* flux = engine.fluxes();
    REQUIRE(flux != nullptr);
    typename choc::FluxTally<D>::Tensor stream{};
    Vec<D> energy{};
    double scale = 0.0; // the size of the terms summed
    const auto ab = choc::FluxTally<D>::axes();
    engine.visit(engine.time(), [&](std::uint32_t, const auto& p) {
        const double m = engine.particles().table.species[p.species].mass;
        for (std::size_t k = 0; k < ab.size(); ++k)
            stream[k] += m * p.v[ab[k].first] * p.v[ab[k].second];
        energy += p.v * (0.5 * m * choc::norm2(p.v));
        scale += m * choc::norm2(p.v) * (1.0 + choc::norm(p.v));
    });
    // a running sum of N-size terms over ~1e5 collisions: round-off far below 1e-10 of them
    for (std::size_t k = 0; k < ab.size(); ++k)
        CHECK(std::abs(flux->streaming()[k] - stream[k]) < 1e-10 * scale);
    for (int a = 0; a < D; ++a)
        CHECK(std::abs(flux->energy_streaming()[a] - energy[a]) < 1e-10 * scale);
    const auto g = *engine.flux_moments();
    double trace = 0.0;
    for (int a = 0; a < D; ++a) trace += g.momentum[a];
    const double expected = 2.0 * engine.kinetic_integral() + engine.tally().virial;
    CHECK(std::abs(trace - expected) < 1e-10 * expected);
}

} // namespace

TEST_CASE("engine: binary collisions keep the flux sums of a 3D mixture") {
    auto engine = engine_of<3>(R"(
dimension = 3
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 150
radius = 0.5
[[species]]
name = "B"
count = 100
radius = 0.35
mass = 0.4
[init]
velocities = "maxwell"
seed = 5
)");
    engine.run(1.0, ~std::uint64_t{0}, ~std::uint64_t{0});
    engine.reset_tally();
    engine.run(6.0, ~std::uint64_t{0}, ~std::uint64_t{0});
    REQUIRE(engine.tally().collisions > 5000);
    check_sums(engine);
}

TEST_CASE("engine: simultaneous groups keep the flux sums (dense 2D, epsilon > 0)") {
    auto engine = engine_of<2>(R"(
dimension = 2
[box]
packing_fraction = 0.6
[[species]]
name = "A"
count = 400
[collisions]
epsilon = 1e-4
[init]
velocities = "maxwell"
seed = 2
)");
    engine.run(4.0, ~std::uint64_t{0}, ~std::uint64_t{0});
    REQUIRE(engine.tally().groups > 0);
    check_sums(engine);
}

TEST_CASE("engine: no flux sums with walls") {
    auto engine = engine_of<2>(R"(
dimension = 2
[box]
packing_fraction = 0.2
boundary = "wall"
[[species]]
name = "A"
count = 50
[init]
velocities = "maxwell"
seed = 2
)");
    CHECK(engine.fluxes() == nullptr);
    CHECK(!engine.flux_moments());
}

} // namespace test_flux_tally
