// Enskog's transport coefficients (lib/choc/observers/enskog.hpp): the dilute limits,
// independent values at one density, and how they scale with the units.
#include <doctest/doctest.h>

#include <choc/observers/enskog.hpp>

#include <cmath>
#include <initializer_list>
#include <numbers>

namespace test_enskog {

namespace {
using choc::enskog::Fluid;
const double root_pi = std::sqrt(std::numbers::pi);
} // namespace

TEST_CASE("the dilute limit is Boltzmann's first Sonine value (sigma = m = kT = 1)") {
    // At n = 1e-6, g = 1 + O(n) and the collisional terms are O(n): relative 1e-5 suffices.
    const double n = 1e-6;
    const Fluid f3{3, n, 1.0, 1.0, 1.0}, f2{2, n, 1.0, 1.0, 1.0};
    CHECK(choc::enskog::diffusion(f3) * n == doctest::Approx(3.0 / 8.0 / root_pi).epsilon(1e-5));
    CHECK(choc::enskog::shear_viscosity(f3) ==
          doctest::Approx(1.016 * 5.0 / 16.0 / root_pi).epsilon(1e-5));
    CHECK(choc::enskog::thermal_conductivity(f3) ==
          doctest::Approx(1.025 * 75.0 / 64.0 / root_pi).epsilon(1e-5));
    CHECK(choc::enskog::diffusion(f2) * n == doctest::Approx(0.5 / root_pi).epsilon(1e-5));
    CHECK(choc::enskog::shear_viscosity(f2) == doctest::Approx(0.5 / root_pi).epsilon(1e-5));
    CHECK(choc::enskog::thermal_conductivity(f2) == doctest::Approx(2.0 / root_pi).epsilon(1e-5));
}

TEST_CASE("contact values agree with the simpler equations of state") {
    // Carnahan-Starling's g = (1 - eta/2) / (1 - eta)^3 is within 0.3 % of Hansen-Goos's Z
    // in the fluid; Henderson's g = (1 - 7 phi / 16) / (1 - phi)^2 is about 1 % high at 0.6.
    for (const double eta : {0.1, 0.2, 0.3, 0.4, 0.45}) {
        const double cs = (1.0 - eta / 2.0) / std::pow(1.0 - eta, 3);
        CHECK(choc::enskog::contact_value(3, eta) == doctest::Approx(cs).epsilon(0.005));
    }
    for (const double phi : {0.1, 0.3, 0.5, 0.6}) {
        const double henderson = (1.0 - 7.0 * phi / 16.0) / ((1.0 - phi) * (1.0 - phi));
        CHECK(choc::enskog::contact_value(2, phi) == doctest::Approx(henderson).epsilon(0.015));
    }
}

TEST_CASE("Enskog's D at n = 0.5, computed by hand with Carnahan-Starling") {
    // eta = pi / 12 = 0.2618; g_CS = 0.86910 / 0.73820^3 = 2.16046; D_0 = 3 / (8 n) / sqrt(pi)
    // = 0.423142; D_E = D_0 / g = 0.195856. Within 0.5 %: Hansen-Goos against Carnahan-Starling.
    // (Simulations give D = 0.247 here, Lue 2005: 1.26 times Enskog.)
    const Fluid f{3, 0.5, 1.0, 1.0, 1.0};
    CHECK(choc::enskog::fraction(f) == doctest::Approx(std::numbers::pi / 12.0).epsilon(1e-14));
    CHECK(choc::enskog::diffusion(f) == doctest::Approx(0.195856).epsilon(0.005));
}

TEST_CASE("the coefficients scale with the units at a fixed packing fraction") {
    // sigma -> 2 sigma (n -> n / 8 in 3D, n / 4 in 2D), m -> 4 m, kT -> 9 kT: D scales as
    // sigma sqrt(kT / m) = 3, eta as sqrt(m kT) / sigma^(d-1), lambda as sqrt(kT / m) /
    // sigma^(d-1). Round-off only.
    for (const int d : {2, 3}) {
        const Fluid base{d, 0.6, 1.0, 1.0, 1.0};
        const Fluid scaled{d, d == 3 ? 0.6 / 8.0 : 0.6 / 4.0, 2.0, 4.0, 9.0};
        const double area = d == 3 ? 4.0 : 2.0; // sigma^(d-1)
        CHECK(choc::enskog::diffusion(scaled) ==
              doctest::Approx(3.0 * choc::enskog::diffusion(base)).epsilon(1e-12));
        CHECK(choc::enskog::shear_viscosity(scaled) ==
              doctest::Approx(6.0 / area * choc::enskog::shear_viscosity(base)).epsilon(1e-12));
        CHECK(
            choc::enskog::thermal_conductivity(scaled) ==
            doctest::Approx(1.5 / area * choc::enskog::thermal_conductivity(base)).epsilon(1e-12));
    }
}

TEST_CASE("the Yeh-Hummer correction is xi kT / (6 pi eta L)") {
    // 2.837297 / (6 pi) = 0.150523...; it falls as 1 / L and grows with kT / eta.
    CHECK(choc::enskog::yeh_hummer(1.0, 1.0, 1.0) == doctest::Approx(0.1505233).epsilon(1e-6));
    CHECK(choc::enskog::yeh_hummer(2.0, 0.5, 10.0) ==
          doctest::Approx(4.0 * choc::enskog::yeh_hummer(1.0, 1.0, 10.0)).epsilon(1e-14));
}

TEST_CASE("viscosity and conductivity at a finite density: Enskog's brackets, term by term") {
    // The brackets typed out here apart from the code (sigma = m = kT = 1), with the code's
    // contact value (checked above): a wrong constant in either shows. Round-off only.
    const double pi = std::numbers::pi;
    {
        const Fluid f{3, 6.0 * 0.3 / pi, 1.0, 1.0, 1.0}; // eta = 0.3, b rho = 1.2
        const double g = choc::enskog::contact_value(3, 0.3);
        CHECK(choc::enskog::shear_viscosity(f) ==
              doctest::Approx(1.016 * 5.0 / 16.0 / root_pi *
                              (1.0 / g + 0.8 * 1.2 + 0.7614 * g * 1.44))
                  .epsilon(1e-12));
        CHECK(choc::enskog::thermal_conductivity(f) ==
              doctest::Approx(1.025 * 75.0 / 64.0 / root_pi *
                              (1.0 / g + 1.2 * 1.2 + 0.7575 * g * 1.44))
                  .epsilon(1e-12));
    }
    {
        const Fluid f{2, 4.0 * 0.5 / pi, 1.0, 1.0, 1.0}; // phi = 0.5
        const double g = choc::enskog::contact_value(2, 0.5);
        CHECK(choc::enskog::shear_viscosity(f) ==
              doctest::Approx(0.5 / root_pi * (1.0 / g + 1.0 + (1.0 + 8.0 / pi) * 0.25 * g))
                  .epsilon(1e-12));
        CHECK(choc::enskog::thermal_conductivity(f) ==
              doctest::Approx(2.0 / root_pi * (1.0 / g + 1.5 + (2.25 + 4.0 / pi) * 0.25 * g))
                  .epsilon(1e-12));
        CHECK(choc::enskog::diffusion(f) ==
              doctest::Approx(1.0 / (2.0 * (2.0 / pi)) / root_pi / g).epsilon(1e-12));
    }
}

} // namespace test_enskog
