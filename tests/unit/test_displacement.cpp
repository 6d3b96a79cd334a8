// Mean-squared displacement through periodic boundaries, and the diffusion fit.
#include <doctest/doctest.h>

#include "periodic_cube.hpp"

#include <choc/observers/displacement.hpp>

#include <cmath>
#include <vector>

namespace test_displacement {

TEST_CASE("free flight across periodic edges is unwrapped: MSD = v^2 t^2") {
    const double edge = 10.0;
    const auto box = periodic_cube(edge);
    choc::Particles<3> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}});
    p.add(choc::Vec<3>{{9.5, 1.0, 1.0}}, choc::Vec<3>{{3.0, 0.0, 0.0}}, 0);
    p.add(choc::Vec<3>{{0.5, 5.0, 5.0}}, choc::Vec<3>{{0.0, -2.0, 4.0}}, 0);
    choc::Displacement<3> msd(box, p, 0.0);
    // Steps of 0.25 time units move 0.75, 0.5 and 1.0 along the axes, well below half an edge;
    // the folded positions wrap around the box several times over t = 20.
    for (int k = 1; k <= 80; ++k) {
        const double t = 0.25 * k;
        auto now = p;
        for (auto& s : now.state) s.x = box.wrap(s.x + s.v * t);
        msd.sample(now, t);
        const double expected = 0.5 * (9.0 + 20.0) * t * t;
        REQUIRE(msd.msd() == doctest::Approx(expected).epsilon(1e-12));
    }
    CHECK(msd.largest_step() == doctest::Approx(1.0 / edge));
}

TEST_CASE(
    "positions visited in any order sample as the particles do; with_sample leaves the record") {
    const double edge = 10.0;
    const auto box = periodic_cube(edge);
    choc::Particles<3> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}});
    for (int k = 0; k < 40; ++k)
        p.add(choc::Vec<3>{{0.25 * k, 9.9 - 0.2 * k, 0.1 * k}},
              choc::Vec<3>{{1.0 + 0.1 * k, -0.5, 0.03 * k - 0.6}}, 0);
    choc::Displacement<3> a(box, p, 0.0), b(box, p, 0.0);
    for (int step = 1; step <= 30; ++step) {
        const double t = 0.5 * step;
        auto now = p;
        for (auto& s : now.state) s.x = box.wrap(s.x + s.v * t);
        // the final sample of a summary: the record must not move on to it
        const auto extra = b.with_sample(now, t);
        REQUIRE(extra.times().size() == b.samples().times().size() + 1);
        a.sample(now, t);
        b.sample(
            [&](auto&& f) {
                for (std::size_t i = now.size(); i-- > 0;)
                    f(i, now.state[i].x, now.state[i].species);
            },
            t);
        CHECK(b.msd() == a.msd()); // same sums in the same order: equal to the bit
        CHECK(extra.msd() == a.msd());
        CHECK(extra.msd_samples() == a.samples().msd_samples());
    }
    CHECK(b.largest_step() == a.largest_step());
    // A sample at a time already sampled adds nothing.
    CHECK(b.with_sample(p, 15.0).times().size() == b.samples().times().size());
}

TEST_CASE("diffusion fit: slope / 2d over the second half, error from the group spread") {
    // Groups with MSD_g = 6 D_g t + c_g exactly: the fit returns the size-weighted mean
    // of D_g, and the error formula of standard_error.hpp. Early points (t < 5) are off the
    // line on purpose: the fit must not see them.
    const std::vector<double> dg{0.10, 0.12, 0.08, 0.11}, size{3, 3, 2, 2};
    std::vector<double> times;
    std::vector<std::vector<double>> msd;
    for (int k = 0; k <= 100; ++k) {
        const double t = 0.1 * k;
        times.push_back(t);
        std::vector<double> row;
        for (std::size_t g = 0; g < dg.size(); ++g)
            row.push_back(t < 5.0 ? 100.0 : 6.0 * dg[g] * t + 0.3 * static_cast<double>(g));
        msd.push_back(row);
    }
    const auto fit = choc::diffusion_fit(3, times, msd, size);
    REQUIRE(fit);
    const double mean = (3 * 0.10 + 3 * 0.12 + 2 * 0.08 + 2 * 0.11) / 10.0;
    CHECK(fit->mean == doctest::Approx(mean).epsilon(1e-10));
    double var = 0.0;
    for (std::size_t g = 0; g < dg.size(); ++g)
        var += (size[g] / 10.0) * (size[g] / 10.0) * (dg[g] - mean) * (dg[g] - mean);
    REQUIRE(fit->error);
    CHECK(*fit->error == doctest::Approx(std::sqrt(var * 4.0 / 3.0)).epsilon(1e-10));
    // Too few samples in the window: no estimate.
    CHECK(!choc::diffusion_fit(3, {0.0, 1.0}, {{0.0}, {1.0}}, {1.0}));
}

TEST_CASE("each species' D from its own groups; empty groups are left out") {
    // Two species of 20 and 3 particles with D = 0.1 and 0.4: the samples are made
    // directly, particle i's squared displacement being 6 D_s t. The record's group sizes
    // come from the particles' species; species 1 fills 3 of its 16 groups.
    const auto box = periodic_cube(10.0);
    choc::Particles<3> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}, {"B", 0.5, 1.0}});
    for (int k = 0; k < 23; ++k) p.add(choc::Vec<3>{{0.4 * k, 1.0, 1.0}}, {}, k < 20 ? 0 : 1);
    choc::Displacement<3> record(box, p, 0.0);
    auto samples = record.samples();
    std::vector<std::uint32_t> group(23);
    for (std::uint32_t i = 0; i < 23; ++i) group[i] = (i < 20 ? 0 : 16) + i % 16;
    for (int k = 1; k <= 20; ++k) {
        const double t = 0.5 * k;
        std::vector<double> r2(23);
        for (std::size_t i = 0; i < 23; ++i) r2[i] = 6.0 * (i < 20 ? 0.1 : 0.4) * t;
        // species 0's groups 0 and 1 spread around its D (mean 0.1 over its 20 particles)
        r2[0] *= 1.2, r2[16] *= 1.2, r2[1] *= 0.8, r2[17] *= 0.8;
        samples.add(t, r2, group, 0.0);
    }
    const auto a = samples.diffusion(0), b = samples.diffusion(1), all = samples.diffusion();
    REQUIRE((a && b && all));
    CHECK(a->mean == doctest::Approx(0.1).epsilon(1e-12));
    CHECK(b->mean == doctest::Approx(0.4).epsilon(1e-12));
    // the overall D weighs every particle alike: (20 * 0.1 + 3 * 0.4) / 23
    CHECK(all->mean == doctest::Approx((20 * 0.1 + 3 * 0.4) / 23.0).epsilon(1e-12));
    // species 1's groups have one slope: no spread; species 0's do spread
    CHECK(*b->error == doctest::Approx(0.0).epsilon(1e-12));
    REQUIRE((a->error && all->error));
    CHECK(*a->error > 0.0);
    // the mixture's error: the species' errors combined, not the spread between species
    const double wa = 20.0 / 23.0, wb = 3.0 / 23.0;
    CHECK(*all->error == doctest::Approx(std::sqrt(wa * wa * *a->error * *a->error +
                                                   wb * wb * *b->error * *b->error))
                             .epsilon(1e-12));
}

} // namespace test_displacement
