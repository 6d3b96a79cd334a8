// Thermal walls (include/choc/kernel/thermal_wall.hpp) and what measures them: the emitted
// velocities have the flux-weighted Maxwellian's moments, a gas closed in thermal walls
// takes their temperature and its energy changes by exactly the heat they gave, the slab
// profiles (lib/choc/observers/axial_profile.hpp) hold what was put in them, and the gap fit
// (gap_fit.hpp) gives back the conductivity of a made-up linear profile.
#include <choc/init/initial_state.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/kernel/kinetic.hpp>
#include <choc/kernel/thermal_wall.hpp>
#include <choc/observers/axial_profile.hpp>
#include <choc/observers/gap_fit.hpp>
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <string>

namespace test_thermal_walls {

using choc::Vec;

TEST_CASE("emitted velocities: Rayleigh normal part, Gaussian tangential part, wall velocity") {
    // A tilted wall, so that the tangential plane is not a coordinate plane.
    choc::Wall<3> wall;
    wall.normal = Vec<3>{1.0, 2.0, -2.0} * (1.0 / 3.0);
    wall.temperature = 2.0;
    // moving in its plane: the draws are those of a wall at rest, shifted by its velocity
    wall.velocity = Vec<3>{2.0, 1.0, 2.0} * (0.7 / 3.0);
    const double m = 0.5, s2 = wall.temperature / m; // T / m
    choc::ThermalEmission<3> emission(11);
    const int n = 200000;
    double vn = 0.0, vn2 = 0.0, vt2 = 0.0;
    Vec<3> vt{};
    bool leaving = true;
    for (int k = 0; k < n; ++k) {
        const Vec<3> v = emission.emit(wall, m) - wall.velocity;
        const double a = dot(v, wall.normal);
        const Vec<3> t = v - wall.normal * a;
        leaving = leaving && a > 0.0;
        vn += a / n, vn2 += a * a / n, vt2 += choc::norm2(t) / n;
        vt += t * (1.0 / n);
    }
    CHECK(leaving);
    // f(v_n) = v_n exp(-v_n^2 / 2 s2) / s2: <v_n> = sqrt(pi s2 / 2), <v_n^2> = 2 s2,
    // var(v_n) = (2 - pi/2) s2, var(v_n^2) = 4 s2^2; each tangential component has variance
    // s2 (<|v_t|^2> = 2 s2, var(|v_t|^2) = 4 s2^2). Five standard errors of n draws:
    const double se = 5.0 / std::sqrt(static_cast<double>(n));
    CHECK(std::abs(vn - std::sqrt(std::numbers::pi * s2 / 2.0)) <
          se * std::sqrt((2.0 - std::numbers::pi / 2.0) * s2));
    CHECK(std::abs(vn2 - 2.0 * s2) < se * 2.0 * s2);
    CHECK(std::abs(vt2 - 2.0 * s2) < se * 2.0 * s2);
    for (int a = 0; a < 3; ++a) CHECK(std::abs(vt[a]) < se * std::sqrt(s2));
}

TEST_CASE("the generator's state goes through an archive whole") {
    choc::Wall<2> wall;
    wall.normal = Vec<2>{0.0, 1.0};
    wall.temperature = 1.0;
    choc::ThermalEmission<2> a(5);
    for (int k = 0; k < 10; ++k) a.emit(wall, 1.0);
    choc::ArchiveWriter out;
    out(a);
    choc::ThermalEmission<2> b(99);
    const std::string bytes = out.bytes();
    choc::ArchiveReader in(bytes);
    in(b);
    for (int k = 0; k < 10; ++k) {
        const Vec<2> va = a.emit(wall, 1.0), vb = b.emit(wall, 1.0);
        CHECK(va[0] == vb[0]);
        CHECK(va[1] == vb[1]);
    }
    const std::string damaged = "\x05\0\0\0\0\0\0\0abcde";
    choc::ArchiveReader bad(damaged);
    CHECK_THROWS_AS(bad(b), choc::ArchiveError);
}

namespace {

choc::Engine<3> closed_box(double wall_temperature) {
    const choc::Config config = choc::parse_config(
        R"(
dimension = 3
[box]
size = [8.0, 8.0, 8.0]
boundary = "wall"
wall_temperature = )" +
            std::to_string(wall_temperature) +
            R"(
[[species]]
name = "A"
count = 150
radius = 0.5
[init]
lattice = "random"
temperature = 0.5
seed = 4
[run]
time = 1
)",
        "thermal.toml");
    auto start = choc::make_initial_state<3>(config);
    auto settings = choc::engine_settings(config);
    settings.maintain_every = 997; // check the energy ledger often
    return choc::Engine<3>(std::move(start.box), std::move(start.particles), settings);
}

double kinetic(const choc::Engine<3>& e) {
    double k = 0.0;
    e.visit(e.time(), [&](std::uint32_t, const auto& p) { k += choc::kinetic_energy(1.0, p.v); });
    return k;
}

} // namespace

TEST_CASE("a gas closed in thermal walls takes their temperature; its energy is their heat") {
    auto e = closed_box(2.0);
    REQUIRE(e.box().walls.size() == 6);
    for (const auto& w : e.box().walls) CHECK(w.temperature == 2.0);
    e.run(60.0, ~std::uint64_t{0}, ~std::uint64_t{0}); // many wall hits per particle
    e.reset_tally();
    const double k0 = kinetic(e);
    const double t0 = e.time();
    e.run(t0 + 200.0, ~std::uint64_t{0}, ~std::uint64_t{0});
    e.check_conservation();
    // Energy changes only at the walls (pairs are elastic): what the gas gained is the sum
    // of the walls' heat, to round-off of the ~1e4 terms added.
    double heat = 0.0;
    for (double q : e.tally().wall_heat) heat += q;
    const double k1 = kinetic(e);
    CHECK(e.tally().wall_collisions > 10000);
    CHECK(std::abs((k1 - k0) - heat) < 1e-9 * k1);
    // The time-averaged temperature: 2/3 of the mean kinetic energy per particle. A gas
    // exchanging energy only with walls at T relaxes to T (this run: 1.991). A wrong law
    // is far off: specular walls keep the start's 0.5; a half-Gaussian normal part instead
    // of the flux-weighted one gives 3/4 of T (the walls then take 2 T_gas per hit and give
    // 3/2 T). 3 % is far outside the average's chance error (a few 1e-3: 150 particles
    // over ~30000 wall hits) and far inside those.
    const double mean_k = e.kinetic_integral() / (e.time() - t0) / 150.0;
    CHECK(std::abs(2.0 / 3.0 * mean_k - 2.0) < 0.03 * 2.0);
}

TEST_CASE("thermal walls need the one-at-a-time rule") {
    const choc::Config config = choc::parse_config(R"(
dimension = 2
[box]
size = [10.0, 10.0]
boundary = "wall"
wall_temperature = 1.0
[[species]]
name = "A"
count = 10
radius = 0.5
[init]
lattice = "random"
[run]
time = 1
)",
                                                   "eps.toml");
    auto start = choc::make_initial_state<2>(config);
    auto settings = choc::engine_settings(config);
    settings.epsilon = 1e-6;
    CHECK_THROWS_AS(choc::Engine<2>(start.box, start.particles, settings), std::invalid_argument);
}

TEST_CASE("slab profiles: density, packing, temperature in the slab's frame, velocity") {
    // Two slabs of width 2 across x in [0, 4), cross-section 3: slab volume 6.
    choc::AxialProfile<2> p(0, 4.0, 3.0, 2, {0.0}, 0.5, 0.0);
    auto visit = [](auto&& f) {
        // slab 0: two particles of mass 1 moving along y at +-1 plus a common drift of 3 in x
        f(Vec<2>{0.5, 0.0}, Vec<2>{3.0, 1.0}, 1.0, 0.25);
        f(Vec<2>{1.5, 2.0}, Vec<2>{3.0, -1.0}, 1.0, 0.25);
        // slab 1: one particle at rest; and one just past the edge (folded into the last)
        f(Vec<2>{3.0, 1.0}, Vec<2>{0.0, 0.0}, 2.0, 0.5);
        f(Vec<2>{4.0, 1.0}, Vec<2>{0.0, 0.0}, 2.0, 0.5);
    };
    p.sample(visit, {1.0});
    p.sample(visit, {3.0});
    const auto r0 = p.row(p.total(), 0), r1 = p.row(p.total(), 1);
    CHECK(r0.density == doctest::Approx(2.0 / 6.0));
    CHECK(r0.packing == doctest::Approx(0.5 / 6.0));
    REQUIRE(r0.temperature);
    // in the frame moving at u = (3, 0): each has m v^2 = 1; T = 2 / (2 * 2)
    CHECK(*r0.temperature == doctest::Approx(0.5));
    CHECK(r0.velocity[0] == doctest::Approx(3.0));
    CHECK(r0.velocity[1] == doctest::Approx(0.0));
    CHECK(r1.density == doctest::Approx(2.0 / 6.0));
    CHECK(*r1.temperature == doctest::Approx(0.0));
    CHECK(p.total().scalars[0] == 3.0);
    CHECK(p.next_time() == 1.0);
}

TEST_CASE("Fourier's fit gives back the conductivity of a linear profile") {
    // Walls at 0 and 10 of a 10-long axis (20 slabs), area 4, sampled every 0.1. Each sample
    // puts one particle of unit mass in each slab with a speed giving T(x) = 2 - 0.1 x, in
    // 1D-like motion along x (T = m v^2 / d with d = 2, the other component 0, alternating
    // sign so the slab's mean velocity is zero over two samples). The walls' heat grows
    // as Q_low = 0.3 t A, Q_high = -0.3 t A: q = 0.3, lambda = -q / (dT/dx) = 3.
    const double step = 0.1, area = 4.0;
    choc::AxialProfile<2> p(0, 10.0, area, 20, {0.0, 0.0}, step, 0.0);
    for (int s = 0; s < 400; ++s) {
        const double sign = s % 2 == 0 ? 1.0 : -1.0;
        const double t = (s + 1) * step; // the heat a sample records is up to its time...
        p.sample(
            [&](auto&& f) {
                for (int k = 0; k < 20; ++k) {
                    const double x = 0.25 + 0.5 * k;
                    const double T = 2.0 - 0.1 * x;
                    // two particles, +v and -v: zero mean velocity in every sample
                    const double v = std::sqrt(2.0 * T);
                    f(Vec<2>{x, 0.0}, Vec<2>{sign * v, 0.0}, 1.0, 0.1);
                    f(Vec<2>{x, 0.0}, Vec<2>{-sign * v, 0.0}, 1.0, 0.1);
                }
            },
            {0.3 * t * area, -0.3 * t * area});
    }
    // ... so over samples whose count is s, the heat is 0.3 (s step) area: exact q
    choc::GapSetup<2> setup{0.0, 10.0,
                            [](const std::vector<double>& q) {
                                return std::array<double, 2>{q[0], q[1]};
                            },
                            [](const auto& row) { return row.temperature; }};
    const auto fit = choc::GapFit<2>(p, setup).result();
    REQUIRE(fit);
    CHECK(fit->fit_from == 2.5);
    CHECK(fit->fit_to == 7.5);
    CHECK(fit->value.gradient == doctest::Approx(-0.1));
    CHECK(fit->value.flux == doctest::Approx(0.3));
    CHECK(fit->value.coefficient == doctest::Approx(3.0));
    CHECK(fit->value.temperature == doctest::Approx(1.5)); // the fitted slabs' mean
    REQUIRE(fit->error);
    CHECK(fit->error->coefficient < 1e-9); // every block says the same
    CHECK(fit->blocks >= choc::AxialProfile<2>::blocks);
}

} // namespace test_thermal_walls
