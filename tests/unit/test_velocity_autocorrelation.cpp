// The velocity autocorrelation (lib/choc/observers/velocity_autocorrelation.hpp): constant
// velocities correlate fully at every lag, an Ornstein–Uhlenbeck process gives back its
// exponential, and a checkpoint continues it exactly.
#include <choc/kernel/archive.hpp>
#include <choc/observers/velocity_autocorrelation.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

namespace test_velocity_autocorrelation {

using choc::Vec;
using Vacf = choc::VelocityAutocorrelation<3>;

namespace {

// visit(f) over the particles' velocities v.
auto visit_of(const std::vector<Vec<3>>& v) {
    return [&v](auto&& f) {
        for (std::size_t i = 0; i < v.size(); ++i) f(i, v[i]);
    };
}

} // namespace

TEST_CASE("constant velocities: C(t) = <|v|^2> / 3 at every lag, lags even within levels") {
    std::vector<Vec<3>> v(40);
    double v2 = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        v[i] = Vec<3>{0.1 * static_cast<double>(i), -0.5, 1.0 / (1.0 + static_cast<double>(i))};
        v2 += choc::norm2(v[i]);
    }
    v2 /= static_cast<double>(v.size());
    Vacf c(v.size(), 0.5, 2.0);
    CHECK(c.next_time() == 2.0);
    for (int s = 0; s < 200; ++s) c.sample_visit(visit_of(v));
    const auto lags = c.lags();
    // level 0: 0 .. 15 steps; level 1: 16 .. 30 by 2; level 2: 32 .. 60 by 4; level 3: 64 ..
    // 120 by 8 (origins only every 8 samples: 200 / 8 = 25 samples, 17 .. 10 origins); level
    // 4: its 13 samples reach k = 12 (lags 128 .. 192 by 16)
    REQUIRE(lags.size() == 16 + 8 + 8 + 8 + 5);
    for (std::size_t k = 0; k < 16; ++k) {
        CHECK(lags[k].lag == 0.5 * static_cast<double>(k));
        CHECK(lags[k].origins == 200 - k);
    }
    CHECK(lags[16].lag == 0.5 * 16);
    CHECK(lags[17].lag == 0.5 * 18);
    CHECK(lags[24].lag == 0.5 * 32);
    CHECK(lags[39].lag == 0.5 * 120);
    CHECK(lags[39].origins == 25 - 15);
    CHECK(lags[40].lag == 0.5 * 128);
    CHECK(lags[40].origins == 13 - 8);
    // groups of 40 particles by m mod 16 differ: C is the groups' mean, each group's mean of
    // |v|^2 / 3; the same at every lag
    for (const auto& l : lags) {
        CHECK(l.value == doctest::Approx(lags[0].value).epsilon(1e-14));
        REQUIRE(l.error);
    }
    double groups = 0.0;
    for (std::size_t g = 0; g < 16; ++g) {
        double sum = 0.0;
        int members = 0;
        for (std::size_t m = g; m < v.size(); m += 16) sum += choc::norm2(v[m]), ++members;
        groups += sum / members / 3.0;
    }
    CHECK(lags[0].value == doctest::Approx(groups / 16.0).epsilon(1e-14));
    CHECK(v2 > 0.0);
}

TEST_CASE("an Ornstein-Uhlenbeck process gives back exp(-t / tau)") {
    // v(s + dt) = a v(s) + sqrt(1 - a^2) xi per component, a = exp(-dt / tau): C(t) =
    // exp(-t / tau) in equilibrium (unit variance per component)
    const std::size_t n = 1024;
    const double dt = 0.1, tau = 2.0, a = std::exp(-dt / tau), b = std::sqrt(1.0 - a * a);
    std::mt19937_64 rng(11);
    std::normal_distribution<double> xi;
    std::vector<Vec<3>> v(n);
    for (auto& x : v) x = Vec<3>{xi(rng), xi(rng), xi(rng)};
    Vacf c(n, dt, 0.0);
    for (int s = 0; s < 3000; ++s) {
        c.sample_visit(visit_of(v));
        for (auto& x : v) x = x * a + Vec<3>{xi(rng), xi(rng), xi(rng)} * b;
    }
    int checked = 0;
    for (const auto& l : c.lags()) {
        if (l.lag > 6.0 * tau) break;
        CHECK(std::abs(l.value - std::exp(-l.lag / tau)) < 4.0 * *l.error + 1e-12);
        ++checked;
    }
    CHECK(checked > 30);
}

TEST_CASE("a checkpoint continues the autocorrelation exactly") {
    std::mt19937_64 rng(3);
    std::normal_distribution<double> xi;
    std::vector<std::vector<Vec<3>>> samples(150, std::vector<Vec<3>>(30));
    for (auto& s : samples)
        for (auto& x : s) x = Vec<3>{xi(rng), xi(rng), xi(rng)};
    Vacf whole(30, 0.25, 0.0), first(30, 0.25, 0.0);
    for (std::size_t s = 0; s < samples.size(); ++s) whole.sample_visit(visit_of(samples[s]));
    for (std::size_t s = 0; s < 77; ++s) first.sample_visit(visit_of(samples[s]));
    choc::ArchiveWriter out;
    out(first);
    choc::ArchiveReader in(out.bytes());
    Vacf second(30, 1.0, 5.0); // step and origin come from the state
    in(second);
    for (std::size_t s = 77; s < samples.size(); ++s) second.sample_visit(visit_of(samples[s]));
    CHECK(second.csv() == whole.csv());
    CHECK(second.next_time() == whole.next_time());
}

TEST_CASE("a checkpoint is refused by an autocorrelation of other particles") {
    std::vector<Vec<3>> v(30, Vec<3>{1.0, 0.0, 0.0});
    Vacf first(30, 0.25, 0.0);
    for (int s = 0; s < 5; ++s) first.sample_visit(visit_of(v));
    choc::ArchiveWriter out;
    out(first);
    Vacf other(20, 0.25, 0.0);
    choc::ArchiveReader in(out.bytes());
    CHECK_THROWS_WITH_AS(in(other), "the state's velocity autocorrelation does not match the run",
                         choc::ArchiveError);
}

} // namespace test_velocity_autocorrelation
