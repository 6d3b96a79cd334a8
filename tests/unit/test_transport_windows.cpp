// Viscosity, heat conduction and the pressure tensor from the flux moments
// (lib/choc/observers/transport_windows.hpp): random walks of known growth give back their
// coefficient, the moments of a fluid drifting as a whole are those of the fluid at rest,
// and the pressure tensor's error is the spread of its window means; a coefficient is read
// at the first lag of its plateau (run/summary_physics.hpp, plateau_lag).
#include <choc/init/initial_state.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/observers/transport_windows.hpp>
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>
#include <choc/run/summary_physics.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

namespace test_transport_windows {

using choc::Vec;

TEST_CASE("random walks of the shear combinations give back eta; of H, lambda") {
    // Each shear combination and each axis of H steps by a Gaussian of variance 2 c dt per
    // sample, so < dM(tau)^2 > = 2 c tau: eta = c / (V kT), lambda = c / (V kT^2).
    const double c_eta = 3.0, c_lambda = 5.0, dt = 0.1, volume = 2.0, kT = 1.5;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> eta_step(0.0, std::sqrt(2.0 * c_eta * dt));
    std::normal_distribution<double> lambda_step(0.0, std::sqrt(2.0 * c_lambda * dt));
    choc::TransportWindows<3> w(dt, 0.0, 1.0, Vec<3>{});
    double xy = 0, xz = 0, yz = 0, p = 0, q = 0; // G's shear combinations
    choc::FluxMoments<3> m{};
    const int samples = 1 << 16;
    for (int k = 0; k < samples; ++k) {
        xy += eta_step(rng), xz += eta_step(rng), yz += eta_step(rng);
        p += eta_step(rng), q += eta_step(rng);
        // G from its combinations: xx - yy = 2 p, xx + yy - 2 zz = 2 sqrt3 q, plus a trace
        // growing steadily like a pressure's (it must not enter eta)
        const double trace = 7.0 * dt * (k + 1), s3 = std::sqrt(3.0);
        m.momentum = {trace + p + q / s3, trace - p + q / s3, trace - 2.0 * q / s3, xy, xz, yz};
        for (int a = 0; a < 3; ++a) m.energy[a] += lambda_step(rng);
        w.sample(m, 0.0);
    }
    const auto eta = w.viscosity(volume, kT);
    const auto lambda = w.conductivity(volume, kT);
    REQUIRE(eta.size() == 16);
    // walks have no correlated start: every lag estimates c; check those with many pairs
    for (std::size_t l = 0; l < 10; ++l) {
        CHECK(std::abs(eta[l].value - c_eta / (volume * kT)) < 4.0 * *eta[l].error);
        CHECK(std::abs(lambda[l].value - c_lambda / (volume * kT * kT)) < 4.0 * *lambda[l].error);
    }
    // five combinations, each pair's estimate a mean of five: about 1 / sqrt(pairs) relative
    CHECK(*eta[0].error < 1.5 * (c_eta / (volume * kT)) / std::sqrt(eta[0].pairs));
    // the pressure tensor: the trace's steady growth is the diagonal, 7 / V
    const auto pressure = w.pressure(m, dt * samples, volume);
    for (int a = 0; a < 3; ++a) CHECK(pressure[a] == doctest::Approx(7.0 / volume).epsilon(0.01));
    const auto error = w.pressure_error(volume);
    REQUIRE(error);
    // xy's window means have the spread of a walk of variance 2 c_eta dt per step: over the
    // windows of length tau, sqrt(2 c / tau) / V, divided by sqrt(number of windows) = sqrt(T /
    // tau), so sqrt(2 c / T) / V whatever the window
    CHECK((*error)[3] ==
          doctest::Approx(std::sqrt(2.0 * c_eta / (dt * samples)) / volume).epsilon(0.35));
}

namespace {

choc::Engine<3> engine_of(double drift) {
    const choc::Config config = choc::parse_config(R"(
dimension = 3
[box]
packing_fraction = 0.25
[[species]]
name = "A"
count = 108
[init]
velocities = "maxwell"
seed = 4
[run]
time = 1
)",
                                                   "drift.toml");
    auto start = choc::make_initial_state<3>(config);
    for (auto& p : start.particles.state) p.v += Vec<3>{drift, -0.5 * drift, 0.25 * drift};
    return choc::Engine<3>(std::move(start.box), std::move(start.particles),
                           choc::engine_settings(config));
}

} // namespace

TEST_CASE("a fluid drifting as a whole has the comoving moments of the fluid at rest") {
    // The same start, one with every velocity shifted by u: the same collisions at the same
    // times (only relative motion matters), so G' and H' agree to round-off. Without the
    // correction the drift adds M u u t to G and far more to H.
    auto rest = engine_of(0.0), moving = engine_of(0.8);
    const double t = 3.0; // a few hundred collisions: trajectories still equal to round-off
    rest.run(t, ~std::uint64_t{0}, ~std::uint64_t{0});
    moving.run(t, ~std::uint64_t{0}, ~std::uint64_t{0});
    REQUIRE(rest.tally().collisions == moving.tally().collisions);
    REQUIRE(rest.tally().collisions > 200);
    const Vec<3> u{0.8, -0.4, 0.2};
    choc::TransportWindows<3> at_rest(0.1, 0.0, 108.0, Vec<3>{}), drifting(0.1, 0.0, 108.0, u);
    const auto m0 = *rest.flux_moments(), m1 = *moving.flux_moments();
    const auto g0 = at_rest.comoving(m0.momentum, t), g1 = drifting.comoving(m1.momentum, t);
    for (int c = 0; c < 6; ++c) CHECK(std::abs(g1[c] - g0[c]) < 1e-9 * std::abs(g0[0]));
    const auto h0 = at_rest.comoving(m0, rest.kinetic_integral(), t);
    const auto h1 = drifting.comoving(m1, moving.kinetic_integral(), t);
    const double scale = std::abs(g0[0]); // ~ N kT t: H's terms are of that size
    for (int a = 0; a < 3; ++a) {
        CHECK(std::abs(h1[a] - h0[a]) < 1e-9 * scale);
        CHECK(std::abs(m1.energy[a] - m0.energy[a]) > 0.01 * scale); // the raw H differs
    }
}

// Lags doubling from 1 (pairs halving from 4096), values v[k], errors growing as sqrt(lag).
std::vector<choc::WindowLag> ladder(const std::vector<double>& v, double error) {
    std::vector<choc::WindowLag> out;
    for (std::size_t k = 0; k < v.size(); ++k)
        out.push_back({std::ldexp(1.0, static_cast<int>(k)), std::uint64_t{4096} >> k, v[k],
                       error * std::sqrt(std::ldexp(1.0, static_cast<int>(k)))});
    return out;
}

TEST_CASE("a coefficient is read where it stops rising beyond its noise") {
    // Still rising past the shortest lag allowed (10): 0.93 at 16, 0.97 at 32, 0.985 at 64,
    // then within the errors (0.0025 sqrt(lag): 0.02 at 64, 0.028 at 128). The first lag of
    // at least 10 (16) reads 7 % low; the plateau starts at 32, whose next lag rises by
    // 0.015 against an error of 0.02.
    const auto rising = ladder({0.2, 0.4, 0.6, 0.8, 0.93, 0.97, 0.985, 0.99, 0.98}, 0.0025);
    const auto chosen = choc::plateau_lag(rising, 10.0);
    REQUIRE(chosen.lag);
    CHECK(chosen.lag->lag == 32.0);
    CHECK(chosen.lag->value == 0.97);
    CHECK(chosen.plateau);
    // A dilute gas: flat from the start within its noise: the first lag of at least 10.
    const auto flat = ladder({0.5, 0.9, 1.0, 1.01, 1.0, 0.99, 1.02, 1.0, 1.01}, 0.01);
    CHECK(choc::plateau_lag(flat, 10.0).lag->lag == 16.0);
    CHECK(choc::plateau_lag(flat, 10.0).plateau);
    // Rising to the last lag with 16 pairs (256 has 16, 512 has 8): the longest, no plateau.
    const auto short_run = ladder({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}, 0.001);
    const auto last = choc::plateau_lag(short_run, 10.0);
    CHECK(last.lag->lag == 256.0);
    CHECK_FALSE(last.plateau);
    // Nothing of at least 10 with 16 pairs: none.
    CHECK_FALSE(choc::plateau_lag(ladder({0.1, 0.2, 0.3}, 0.01), 10.0).lag);
}

} // namespace test_transport_windows
