// The velocity-distribution observer against samples whose answers are known exactly:
// Maxwell–Boltzmann quantiles, equal speeds, a mass-scaled mixture, the histogram's
// normalisation.
#include <doctest/doctest.h>

#include <choc/kernel/ball_volume.hpp>
#include <choc/observers/maxwell_boltzmann.hpp>
#include <choc/observers/speed_histogram.hpp>
#include <choc/observers/velocity_distribution.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_velocity_distribution {

namespace {

using choc::SpeedSample;

// The speed v with F_MB(v) = p (bisection: F is increasing).
double mb_quantile(int d, double p, double kT, double m) {
    double lo = 0.0, hi = 50.0 * std::sqrt(kT / m);
    for (int k = 0; k < 200; ++k) {
        const double mid = 0.5 * (lo + hi);
        (choc::maxwell_speed_cdf(d, mid, kT, m) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// N speeds at the quantiles (i + 1/2) / N of Maxwell–Boltzmann: the best possible sample.
SpeedSample quantile_sample(int d, std::size_t n, double kT, double m = 1.0) {
    SpeedSample s;
    s.dimension = d;
    s.mass = {m};
    s.count = {n};
    for (std::size_t i = 0; i < n; ++i) {
        s.speed.push_back(mb_quantile(d, (static_cast<double>(i) + 0.5) / n, kT, m));
        s.species.push_back(0);
    }
    return s;
}

// The header line and the rows of numbers of a CSV text.
std::pair<std::string, std::vector<std::vector<double>>> read_csv(const std::string& text) {
    std::istringstream csv(text);
    std::string header, line;
    std::getline(csv, header);
    std::vector<std::vector<double>> rows;
    while (std::getline(csv, line)) {
        std::vector<double> x;
        std::istringstream fields(line);
        for (std::string f; std::getline(fields, f, ',');) x.push_back(std::stod(f));
        rows.push_back(x);
    }
    return {header, rows};
}

} // namespace

TEST_CASE("Maxwell-Boltzmann speed density integrates to its CDF") {
    for (int d : {2, 3}) {
        // Simpson's rule on [0, 2]: error ~ h^4, far below the tolerance.
        const int k = 2000;
        const double h = 2.0 / k, kT = 1.3, m = 0.7;
        double sum = 0.0;
        for (int i = 0; i <= k; ++i) {
            const double w = (i == 0 || i == k) ? 1.0 : (i % 2 ? 4.0 : 2.0);
            sum += w * choc::maxwell_speed_density(d, i * h, kT, m);
        }
        CHECK(sum * h / 3.0 ==
              doctest::Approx(choc::maxwell_speed_cdf(d, 2.0, kT, m)).epsilon(1e-10));
    }
}

TEST_CASE("quantiles of Maxwell-Boltzmann: KS = 1/(2N), kurtosis and H at their limits") {
    for (int d : {2, 3}) {
        CAPTURE(d);
        const std::size_t n = 20000;
        const double kT = 1.7;
        const auto stats = choc::velocity_stats(quantile_sample(d, n, kT));
        // Each sorted speed sits at F = (i + 1/2)/N of MB at kT, so against that CDF the KS
        // distance is exactly 1/(2N). The observer compares with MB at the sample's own
        // temperature, which the truncated tail puts ~1e-4 below kT; that moves F by
        // ~1e-5 at most, so the distance lies between 1/(2N) and 1/N.
        CHECK(stats.ks_distance >= 0.5 / n * (1.0 - 1e-9));
        CHECK(stats.ks_distance < 1.0 / n);
        CHECK(stats.temperature == doctest::Approx(kT).epsilon(1e-3));
        // 5/3 and 2; the sample's tail stops at the quantile 1 - 1/(2N), which lowers
        // <v^4> by a few 1e-4 relative.
        CHECK(stats.kurtosis == doctest::Approx(d == 3 ? 5.0 / 3.0 : 2.0).epsilon(2e-3));
        // H of shells 0.1 sqrt(kT) wide: the shell average of f differs from f by O(h^2),
        // a few 1e-3 at most; Miller–Madow's (M - 1)/(2N) with M ~ 60 shells is 1.5e-3.
        CHECK(stats.H == doctest::Approx(choc::maxwell_h(d, kT, 1.0)).epsilon(3e-3));
    }
}

TEST_CASE("equal speeds: kurtosis 1 and H of one shell") {
    SpeedSample s;
    s.dimension = 3;
    s.mass = {1.0};
    s.count = {100};
    s.speed.assign(100, std::sqrt(3.0)); // kT = 1
    s.species.assign(100, 0);
    const auto stats = choc::velocity_stats(s);
    CHECK(stats.temperature == doctest::Approx(1.0));
    CHECK(stats.kurtosis == doctest::Approx(1.0));
    // Every particle in the shell [17 h, 18 h) with h = 0.1: H = -ln(its volume).
    const double h = choc::h_bin_width;
    CHECK(stats.H ==
          doctest::Approx(-std::log(choc::ball_volume<3>(18 * h) - choc::ball_volume<3>(17 * h))));
    // F_MB(sqrt 3) in 3D is 0.6084; every sample at that speed: D = max(F, 1 - F).
    CHECK(stats.ks_distance ==
          doctest::Approx(choc::maxwell_speed_cdf(3, std::sqrt(3.0), 1.0, 1.0)));
}

TEST_CASE("a mixture is measured in mass-scaled speeds sqrt(m) v") {
    // Species B (m = 4) at the same temperature has speeds half those of A (m = 1): the
    // pooled mass-scaled sample is two copies of A's, with the same statistics.
    const auto a = quantile_sample(3, 5000, 1.0, 1.0);
    SpeedSample mix = a;
    mix.mass = {1.0, 4.0};
    mix.count = {5000, 5000};
    for (double v : a.speed) {
        mix.speed.push_back(v / 2.0);
        mix.species.push_back(1);
    }
    const auto one = choc::velocity_stats(a), two = choc::velocity_stats(mix);
    CHECK(two.temperature == doctest::Approx(one.temperature));
    CHECK(two.kurtosis == doctest::Approx(one.kurtosis));
    CHECK(two.ks_distance == doctest::Approx(one.ks_distance));
    CHECK(two.H == doctest::Approx(one.H));
}

TEST_CASE("nothing moving: every measure is NaN") {
    SpeedSample s;
    s.dimension = 2;
    s.mass = {1.0};
    s.count = {3};
    s.speed.assign(3, 0.0);
    s.species.assign(3, 0);
    const auto stats = choc::velocity_stats(s);
    CHECK(std::isnan(stats.kurtosis));
    CHECK(std::isnan(stats.ks_distance));
    CHECK(std::isnan(stats.H));
}

TEST_CASE("speed histogram: densities integrate to 1, per-species columns for mixtures") {
    auto s = quantile_sample(2, 4000, 1.0, 1.0);
    s.mass = {1.0, 2.0};
    s.count = {2000, 2000};
    for (std::size_t i = 0; i < s.speed.size(); i += 2) s.species[i] = 1;
    const auto [header, rows] = read_csv(choc::speed_histogram_csv(s, {"A", "B"}));
    CHECK(header == "speed_low,speed_high,speed,density,maxwell_boltzmann,density_A,"
                    "maxwell_boltzmann_A,density_B,maxwell_boltzmann_B");
    double total = 0.0, total_a = 0.0, total_b = 0.0;
    for (const auto& x : rows) {
        REQUIRE(x.size() == 9);
        const double width = x[1] - x[0];
        total += x[3] * width;
        total_a += x[5] * width;
        total_b += x[7] * width;
    }
    // sqrt(4000) / 2 = 31 bins over [0, largest speed], every particle counted once.
    CHECK(rows.size() == 31);
    CHECK(total == doctest::Approx(1.0));
    CHECK(total_a == doctest::Approx(1.0));
    CHECK(total_b == doctest::Approx(1.0));
}

TEST_CASE("x-velocity histogram: symmetric range, integrates to 1, Gaussian reference") {
    SpeedSample s;
    s.dimension = 2;
    s.mass = {2.0};
    s.count = {400};
    // v = (+-1, +-1): |v|^2 = 2, kT = m |v|^2 / d = 2; vx takes the values -1 and 1.
    for (int i = 0; i < 400; ++i) {
        s.speed.push_back(std::sqrt(2.0));
        s.vx.push_back(i % 2 ? 1.0 : -1.0);
        s.species.push_back(0);
    }
    const auto [header, rows] = read_csv(choc::component_histogram_csv(s, {"A"}));
    CHECK(header == "vx_low,vx_high,vx,density,maxwell_boltzmann");
    double total = 0.0;
    for (const auto& x : rows) {
        REQUIRE(x.size() == 5);
        total += x[3] * (x[1] - x[0]);
        CHECK(x[4] == doctest::Approx(choc::maxwell_component_density(x[2], 2.0, 2.0)));
    }
    CHECK(rows.size() == 10); // sqrt(400) / 2
    CHECK(rows.front()[0] == doctest::Approx(-1.0));
    CHECK(rows.back()[1] == doctest::Approx(1.0));
    CHECK(total == doctest::Approx(1.0));
}

} // namespace test_velocity_distribution
