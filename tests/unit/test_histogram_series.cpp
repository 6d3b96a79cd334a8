// The histogram series (output.histogram with every): bins fixed at the first snapshot that
// moves, every particle either in a bin or counted outside, the snapshots' statistics, the
// layout of the CSV, and its checkpoint round trip.
#include <doctest/doctest.h>

#include <choc/kernel/archive.hpp>
#include <choc/observers/histogram_series.hpp>
#include <choc/observers/maxwell_boltzmann.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace test_histogram_series {

namespace {

using choc::HistogramSeries;
using choc::HistogramVariable;
using choc::SpeedSample;

// The value x with cdf(x) = p, by bisection on [lo, hi] (cdf increasing).
template <class Cdf>
double quantile(Cdf cdf, double p, double lo, double hi) {
    for (int k = 0; k < 200; ++k) {
        const double mid = 0.5 * (lo + hi);
        (cdf(mid) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// One species of mass 1, n particles with the given speeds (vx = speed / sqrt(d), so
// that kT = <v^2> / d holds for the components too).
SpeedSample sample_of(int d, const std::vector<double>& speeds) {
    SpeedSample s;
    s.dimension = d;
    s.mass = {1.0};
    s.count = {speeds.size()};
    s.speed = speeds;
    for (double v : speeds) {
        s.vx.push_back(v / std::sqrt(static_cast<double>(d)));
        s.species.push_back(0);
    }
    return s;
}

// Speeds at the quantiles (i + 1/2) / n of Maxwell–Boltzmann in 3D at kT (mass 1).
std::vector<double> mb_speeds(std::size_t n, double kT) {
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(quantile([&](double x) { return choc::maxwell_speed_cdf(3, x, kT, 1.0); },
                             (static_cast<double>(i) + 0.5) / static_cast<double>(n), 0.0,
                             50.0 * std::sqrt(kT)));
    return v;
}

struct Table {
    std::vector<std::vector<double>> snapshots; // the "# " comment table's rows
    std::string snapshot_header, header;
    std::vector<std::vector<double>> rows;
};

std::vector<double> numbers(const std::string& line) {
    std::vector<double> x;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, ',');) x.push_back(std::stod(f));
    return x;
}

Table read(const std::string& text) {
    Table t;
    std::istringstream csv(text);
    std::string line;
    std::getline(csv, line);
    REQUIRE(line.starts_with("# "));
    t.snapshot_header = line.substr(2);
    while (std::getline(csv, line) && line.starts_with("# "))
        t.snapshots.push_back(numbers(line.substr(2)));
    t.header = line;
    while (std::getline(csv, line)) t.rows.push_back(numbers(line));
    return t;
}

// The integral of column c over the bins.
double integral(const Table& t, std::size_t c) {
    double sum = 0.0;
    for (const auto& r : t.rows) sum += r[c] * (r[1] - r[0]);
    return sum;
}

} // namespace

TEST_CASE("speed series: equal speeds relaxing to MB, bins fixed at the first snapshot") {
    const std::size_t n = 400;
    HistogramSeries series(HistogramVariable::speed, {"A"});
    // equal speeds 1 (3D): kT = 1/3; then MB at that kT; then MB at 9 kT (a heated gas)
    series.add(0.0, sample_of(3, std::vector<double>(n, 1.0)));
    series.add(0.5, sample_of(3, mb_speeds(n, 1.0 / 3.0)));
    auto hot = mb_speeds(n, 3.0);
    series.add(1.5, sample_of(3, hot));
    const Table t = read(series.csv());
    CHECK(t.snapshot_header == "snapshot,time,temperature,ks_distance,ks_pvalue,outside");
    CHECK(t.header == "speed_low,speed_high,speed,density_0,maxwell_boltzmann_0,density_1,"
                      "maxwell_boltzmann_1,density_2,maxwell_boltzmann_2");
    REQUIRE(t.snapshots.size() == 3);
    // sqrt(400) / 2 = 10 bins over [0, 6 sqrt(kT / m)] of the first snapshot
    REQUIRE(t.rows.size() == 10);
    CHECK(t.rows.front()[0] == 0.0);
    CHECK(t.rows.back()[1] == doctest::Approx(6.0 * std::sqrt(1.0 / 3.0)).epsilon(1e-14));
    const double top = t.rows.back()[1];
    CHECK(t.snapshots[0][1] == 0.0);
    CHECK(t.snapshots[1][1] == 0.5);
    CHECK(t.snapshots[2][1] == 1.5);
    CHECK(t.snapshots[0][2] == doctest::Approx(1.0 / 3.0).epsilon(1e-14));
    // (a quantile sample's temperature is its distribution's to O(1/n))
    CHECK(t.snapshots[2][2] == doctest::Approx(3.0).epsilon(1e-2));
    // equal speeds: D = the MB CDF's largest step across v = 1, far from any MB sample
    CHECK(t.snapshots[0][3] > 0.4);
    CHECK(t.snapshots[0][4] < 1e-30);
    // the quantile samples are as close to MB as n points can be: D = 1 / (2 n) at the
    // quantiles' kT, a little more at the sample's own (off by O(1/n)); any random sample
    // of MB would give ~0.87 / sqrt(n) = 0.04
    for (std::size_t k : {1u, 2u}) {
        CHECK(t.snapshots[k][3] >= 0.5 / n * (1.0 - 1e-9));
        CHECK(t.snapshots[k][3] < 4.0 / n);
        CHECK(t.snapshots[k][4] > 0.999);
    }
    // nothing outside until the gas is heated; then exactly the speeds beyond the top
    std::size_t beyond = 0;
    for (double v : hot) beyond += v > top;
    REQUIRE(beyond > 0);
    CHECK(t.snapshots[0][5] == 0.0);
    CHECK(t.snapshots[1][5] == 0.0);
    CHECK(t.snapshots[2][5] == static_cast<double>(beyond) / n);
    // each density integrates to 1 - outside (counts over n, exact but for round-off)
    for (std::size_t k = 0; k < 3; ++k)
        CHECK(integral(t, 3 + 2 * k) == doctest::Approx(1.0 - t.snapshots[k][5]).epsilon(1e-12));
    // all of the first snapshot in the bin that holds v = 1
    for (const auto& r : t.rows)
        CHECK(
            r[3] ==
            doctest::Approx(r[0] <= 1.0 && 1.0 < r[1] ? 1.0 / (r[1] - r[0]) : 0.0).epsilon(1e-12));
    // the reference is MB at each snapshot's own temperature
    for (const auto& r : t.rows) {
        CHECK(r[4] == doctest::Approx(choc::maxwell_speed_density(3, r[2], 1.0 / 3.0, 1.0)));
        CHECK(r[8] ==
              doctest::Approx(choc::maxwell_speed_density(3, r[2], t.snapshots[2][2], 1.0)));
    }
}

TEST_CASE("x-velocity series: symmetric bins, Gaussian reference, the components' KS") {
    const std::size_t n = 900;
    HistogramSeries series(HistogramVariable::vx, {"A"});
    // Gaussian quantiles of variance kT = 2 for vx (speeds = sqrt(2) |vx| in 2D keep kT)
    SpeedSample s;
    s.dimension = 2;
    s.mass = {1.0};
    s.count = {n};
    for (std::size_t i = 0; i < n; ++i) {
        const double p = (static_cast<double>(i) + 0.5) / n;
        const double vx = quantile([](double x) { return 0.5 * std::erfc(-x / 2.0); }, p, -50, 50);
        s.vx.push_back(vx);
        s.speed.push_back(std::sqrt(2.0) * std::abs(vx));
        s.species.push_back(0);
    }
    series.add(0.0, s);
    const Table t = read(series.csv());
    CHECK(t.header == "vx_low,vx_high,vx,density_0,maxwell_boltzmann_0");
    REQUIRE(t.rows.size() == 15); // sqrt(900) / 2
    CHECK(t.rows.front()[0] == doctest::Approx(-t.rows.back()[1]).epsilon(1e-14));
    CHECK(t.rows.back()[1] == doctest::Approx(6.0 * std::sqrt(t.snapshots[0][2])).epsilon(1e-14));
    CHECK(t.snapshots[0][2] == doctest::Approx(2.0).epsilon(1e-2));
    CHECK(t.snapshots[0][3] >= 0.5 / n * (1.0 - 1e-9));
    CHECK(t.snapshots[0][3] < 4.0 / n);
    CHECK(t.snapshots[0][4] > 0.999);
    CHECK(t.snapshots[0][5] == 0.0);
    CHECK(integral(t, 3) == doctest::Approx(1.0).epsilon(1e-12));
    for (const auto& r : t.rows)
        CHECK(r[4] ==
              doctest::Approx(choc::maxwell_component_density(r[2], t.snapshots[0][2], 1.0)));
}

TEST_CASE("series: snapshots at rest before the bins are fixed; mixtures per species") {
    HistogramSeries series(HistogramVariable::speed, {"A", "B"});
    SpeedSample s;
    s.dimension = 2;
    s.mass = {1.0, 4.0};
    s.count = {200, 200};
    for (std::size_t i = 0; i < 400; ++i) {
        s.speed.push_back(0.0);
        s.vx.push_back(0.0);
        s.species.push_back(i % 2);
    }
    series.add(0.0, s); // at rest: no bins yet
    for (std::size_t i = 0; i < 400; ++i) s.speed[i] = s.species[i] == 0 ? 2.0 : 1.0;
    series.add(1.0, s);
    const Table t = read(series.csv());
    CHECK(t.snapshot_header ==
          "snapshot,time,temperature,ks_distance,ks_pvalue,outside,outside_A,outside_B");
    CHECK(t.header == "speed_low,speed_high,speed,density_0,maxwell_boltzmann_0,density_A_0,"
                      "maxwell_boltzmann_A_0,density_B_0,maxwell_boltzmann_B_0,density_1,"
                      "maxwell_boltzmann_1,density_A_1,maxwell_boltzmann_A_1,density_B_1,"
                      "maxwell_boltzmann_B_1");
    REQUIRE(t.snapshots.size() == 2);
    CHECK(t.snapshots[0][2] == 0.0);
    CHECK(std::isnan(t.snapshots[0][3]));
    // kT = (200 * 1 * 4 + 200 * 4 * 1) / (2 * 400) = 2: top = 6 sqrt(2 / 1) (the lighter A)
    CHECK(t.snapshots[1][2] == 2.0);
    REQUIRE(t.rows.size() == 10);
    CHECK(t.rows.back()[1] == doctest::Approx(6.0 * std::sqrt(2.0)).epsilon(1e-14));
    // the snapshot at rest: every particle in the first bin, no reference at kT = 0
    CHECK(t.rows[0][3] == doctest::Approx(1.0 / (t.rows[0][1] - t.rows[0][0])));
    CHECK(std::isnan(t.rows[0][4]));
    for (std::size_t c : {3u, 5u, 7u, 9u, 11u, 13u})
        CHECK(integral(t, c) == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("series: a checkpoint's round trip gives the same file") {
    HistogramSeries series(HistogramVariable::speed, {"A"});
    series.add(0.0, sample_of(3, std::vector<double>(100, 1.0)));
    series.add(0.25, sample_of(3, mb_speeds(100, 1.0 / 3.0)));
    choc::ArchiveWriter out;
    out(series);
    HistogramSeries back(HistogramVariable::speed, {"A"});
    choc::ArchiveReader in(out.bytes());
    in(back);
    CHECK(back.csv() == series.csv());
    // and it goes on alike
    series.add(0.5, sample_of(3, mb_speeds(100, 0.5)));
    back.add(0.5, sample_of(3, mb_speeds(100, 0.5)));
    CHECK(back.csv() == series.csv());
    CHECK(back.last_time() == 0.5);
}

TEST_CASE("series: a checkpoint with a damaged dimension or cut short is refused") {
    HistogramSeries series(HistogramVariable::speed, {"A"});
    series.add(0.0, sample_of(3, mb_speeds(100, 1.0 / 3.0)));
    choc::ArchiveWriter out;
    out(series);
    std::string damaged = out.bytes();
    damaged[0] = 4; // the dimension, first
    HistogramSeries back(HistogramVariable::speed, {"A"});
    choc::ArchiveReader in(damaged);
    CHECK_THROWS_WITH_AS(in(back), "the state's histogram series is damaged", choc::ArchiveError);
    const std::string cut = out.bytes().substr(0, out.bytes().size() - 1);
    choc::ArchiveReader short_in(cut);
    CHECK_THROWS_AS(short_in(back), choc::ArchiveError);
}

} // namespace test_histogram_series
