// The viscosity of a steady shear from its blocks (observers/sliding_shear.hpp): the
// stress, the flow's energy taken off the temperature, and the heating rate.
#include "choc/observers/sliding_shear.hpp"

#include <doctest/doctest.h>

namespace test_sliding_shear {

using namespace choc;

// Blocks of a fluid with stress P and peculiar kT(t) = kT0 + h t: M = P V t_b and
// K = (d/2) N kT(mid) t_b + M_tot gamma^2 L_y^2 / 24 t_b.
TEST_CASE("sliding shear: stress, viscosity, peculiar temperature and heating from blocks") {
    const ShearSetup s{3, 0.2, 1000.0, 10.0, 400.0, 200.0};
    const double P = -0.3, kT0 = 1.1, h = 0.004;
    const double flow = s.mass * s.rate * s.rate * s.length_y * s.length_y / 24.0;
    std::vector<ShearBlock> blocks;
    double t = 0.0;
    for (int b = 0; b < 30; ++b) {
        const double width = b < 20 ? 2.0 : 4.0; // (widths double as the phase goes on)
        const double mid = t + width / 2.0;
        const double noise = (b % 2 == 0 ? 1.0 : -1.0) * 0.01; // alternating: mean 0
        blocks.push_back({(P + noise) * s.volume * width,
                          (1.5 * s.particles * (kT0 + h * mid) + flow) * width, width});
        t += width;
    }
    const auto r = sliding_shear(blocks, s);
    REQUIRE(r);
    CHECK(r->blocks == 30u);
    // the alternating noise cancels over 20 blocks of 2 and 10 of 4 (weighted by length)
    CHECK(r->stress.mean == doctest::Approx(P).epsilon(1e-12));
    CHECK(r->eta.mean == doctest::Approx(-P / s.rate).epsilon(1e-12));
    REQUIRE(r->stress.error);
    CHECK(*r->stress.error > 0.0);
    CHECK(*r->stress.error < 0.01);
    // the length-weighted mean of kT0 + h mid is kT0 + h T / 2 for back-to-back blocks
    CHECK(r->temperature == doctest::Approx(kT0 + h * t / 2.0).epsilon(1e-12));
    CHECK(r->temperature_first == doctest::Approx(kT0 + h * 1.0).epsilon(1e-12));
    REQUIRE(r->heating);
    CHECK(*r->heating == doctest::Approx(h).epsilon(1e-9));
}

TEST_CASE("sliding shear: nothing without a rate or a block") {
    CHECK_FALSE(sliding_shear({}, ShearSetup{3, 0.2, 1.0, 1.0, 1.0, 1.0}));
    CHECK_FALSE(sliding_shear({{1.0, 1.0, 1.0}}, ShearSetup{3, 0.0, 1.0, 1.0, 1.0, 1.0}));
}

} // namespace test_sliding_shear
