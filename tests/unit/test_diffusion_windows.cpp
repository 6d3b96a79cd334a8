// D from many time origins (lib/choc/observers/diffusion_windows.hpp): the pair-of-windows
// estimate is exact for straight flights across periodic edges, unbiased for a random walk
// with an error that shrinks with the run, and continues exactly from a checkpoint.
#include <doctest/doctest.h>

#include "periodic_cube.hpp"

#include <choc/kernel/archive.hpp>
#include <choc/observers/diffusion_windows.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace test_diffusion_windows {

namespace {
constexpr double edge = 10.0;

// Wrapped positions of n walkers: x_i(0) spread over the box, then moved by `step` each.
struct Walkers {
    std::vector<choc::Vec<3>> x;
    explicit Walkers(std::size_t n) : x(n) {
        for (std::size_t i = 0; i < n; ++i)
            x[i] = choc::Vec<3>{{0.37 * i, 9.9 - 0.21 * i, 0.13 * i}};
    }
    auto position(const choc::Box<3>& box) {
        return [this, &box](std::size_t i) { return box.wrap(x[i]); };
    }
};
} // namespace

TEST_CASE("straight flights: D at lag tau is 3 |v|^2 tau / (2 d), across periodic edges") {
    // a = b = v tau: |a + b|^2 - (|a|^2 + |b|^2) / 2 = 3 |v|^2 tau^2.
    const auto box = periodic_cube(edge);
    Walkers w(5);
    const std::vector<choc::Vec<3>> v{{{1.0, 0.0, 0.0}},
                                      {{0.0, -2.0, 0.5}},
                                      {{0.3, 0.3, 0.3}},
                                      {{-1.5, 0.0, 1.0}},
                                      {{0.0, 0.0, 0.0}}};
    const double step = 0.1;
    choc::DiffusionWindows<3> windows(box, 5, step, 0.0, w.position(box));
    for (int k = 1; k <= 256; ++k) { // 2.56 edges at the fastest: many wraps
        for (std::size_t i = 0; i < 5; ++i) w.x[i] += v[i] * step;
        windows.sample(w.position(box));
    }
    double v2 = 0.0;
    for (const auto& vi : v) v2 += choc::norm2(vi) / 5.0;
    const auto lags = windows.lags();
    REQUIRE(lags.size() == 8); // levels 0 .. 7: lags 0.1 .. 12.8 (a pair needs 2 windows)
    for (std::size_t l = 0; l < lags.size(); ++l) {
        const double tau = step * std::ldexp(1.0, static_cast<int>(l));
        CHECK(lags[l].lag == doctest::Approx(tau).epsilon(1e-15));
        CHECK(lags[l].pairs == (256u >> (l + 1)));
        CHECK(lags[l].value == doctest::Approx(3.0 * v2 * tau / 6.0).epsilon(1e-10));
    }
    CHECK(windows.largest_step() == doctest::Approx(0.2 / edge));
}

TEST_CASE("a random walk: D within its error at every lag, the error shrinking with the run") {
    // Steps of variance 2 D step per axis: MSD = 6 D t exactly in expectation, at every lag.
    const auto box = periodic_cube(edge);
    const std::size_t n = 500;
    const double d_true = 0.05, step = 0.01;
    Walkers w(n);
    std::mt19937_64 rng(7);
    std::normal_distribution<double> gauss(0.0, std::sqrt(2.0 * d_true * step));
    choc::DiffusionWindows<3> windows(box, n, step, 0.0, w.position(box));
    std::optional<double> error_at_1024;
    for (int k = 1; k <= 4096; ++k) {
        for (auto& x : w.x)
            for (int a = 0; a < 3; ++a) x[a] += gauss(rng);
        windows.sample(w.position(box));
        if (k == 1024) error_at_1024 = windows.lags()[2].error;
    }
    for (const auto& lag : windows.lags()) {
        if (lag.pairs < 16) continue;
        REQUIRE(lag.error);
        // four standard errors: a fixed seed, and a bound that a wrong estimator (a 2 D t
        // offset, a factor 2) would break by far more at the short lags' small errors
        CHECK(std::abs(lag.value - d_true) < 4.0 * *lag.error);
    }
    // four times as many pairs at lag 4 step: about half the error
    REQUIRE(error_at_1024);
    const double ratio = *windows.lags()[2].error / *error_at_1024;
    CHECK(ratio > 0.35);
    CHECK(ratio < 0.7);
    const auto longest = choc::DiffusionWindows<3>::longest(windows.lags());
    REQUIRE(longest);
    CHECK(longest->pairs >= 16);
    CHECK(longest->lag == doctest::Approx(step * 128)); // 4096 / 256 = 16 pairs
}

TEST_CASE("a checkpoint continues the windows exactly") {
    const auto box = periodic_cube(edge);
    Walkers w(40), u(40);
    std::mt19937_64 rng(3);
    std::normal_distribution<double> gauss(0.0, 0.05);
    choc::DiffusionWindows<3> a(box, 40, 0.01, 0.0, w.position(box));
    std::optional<choc::DiffusionWindows<3>> b;
    for (int k = 1; k <= 300; ++k) {
        for (auto& x : w.x)
            for (int c = 0; c < 3; ++c) x[c] += gauss(rng);
        a.sample(w.position(box));
        if (k == 137) {
            choc::ArchiveWriter out;
            out(a);
            b.emplace(box, 40, 1.0, 5.0, u.position(box)); // other step and origin: restored
            choc::ArchiveReader in(out.bytes());
            in(*b);
        } else if (b) {
            b->sample(w.position(box));
        }
    }
    REQUIRE(b);
    CHECK(b->next_time() == a.next_time());
    const auto la = a.lags(), lb = b->lags();
    REQUIRE(la.size() == lb.size());
    for (std::size_t l = 0; l < la.size(); ++l) {
        CHECK(la[l].value == lb[l].value);
        CHECK(la[l].pairs == lb[l].pairs);
    }
}

TEST_CASE("beyond 4096 particles the tagged ones spread over all indices") {
    // 5000 walkers at one speed in different directions: any subset gives D = 3 v^2 tau / 6.
    const auto box = periodic_cube(edge);
    const std::size_t n = 5000;
    Walkers w(n);
    std::vector<choc::Vec<3>> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double a = 0.7 * static_cast<double>(i), b = 0.3 * static_cast<double>(i);
        v[i] = choc::Vec<3>{{std::sin(a) * std::cos(b), std::sin(a) * std::sin(b), std::cos(a)}};
    }
    const auto visit = [&](auto&& f) {
        for (std::size_t i = n; i-- > 0;) f(i, box.wrap(w.x[i]), 0u); // any order
    };
    auto windows = choc::DiffusionWindows<3>::from_visit(box, n, 0.05, 0.0, visit);
    REQUIRE(windows.tagged_count() == 4096);
    CHECK(windows.tagged(0) == 0);
    CHECK(windows.tagged(4095) == 4998); // 4095 * 5000 / 4096: the last indices are reached
    for (int k = 1; k <= 64; ++k) {
        for (std::size_t i = 0; i < n; ++i) w.x[i] += v[i] * 0.05;
        windows.sample_visit(visit);
    }
    for (const auto& lag : windows.lags())
        CHECK(lag.value == doctest::Approx(3.0 * lag.lag / 6.0).epsilon(1e-10));
}

TEST_CASE("a checkpoint is refused by windows of other particles, or with too many levels") {
    const auto box = periodic_cube(edge);
    Walkers w(40);
    choc::DiffusionWindows<3> a(box, 40, 0.01, 0.0, w.position(box));
    for (int k = 0; k < 5; ++k) a.sample(w.position(box));
    choc::ArchiveWriter out;
    out(a);
    const std::string bytes = out.bytes();
    Walkers u(30);
    choc::DiffusionWindows<3> fewer(box, 30, 0.01, 0.0, u.position(box));
    choc::ArchiveReader in(bytes);
    CHECK_THROWS_WITH_AS(in(fewer), "the state's diffusion windows do not match its particles",
                         choc::ArchiveError);
    // the ladder's count of levels: after the largest step, the two arrays and the ladder's
    // step, origin time, q, samples and origin
    std::string damaged = bytes;
    const std::size_t arrays = 2 * (8 + 40 * sizeof(choc::Vec<3>));
    const std::size_t levels = 8 + arrays + 3 * 8 + 8 + 8 + 40 * sizeof(choc::Vec<3>);
    REQUIRE(damaged.size() > levels + 8);
    damaged[levels] = 64;
    for (std::size_t k = 1; k < 8; ++k) damaged[levels + k] = 0;
    choc::DiffusionWindows<3> b(box, 40, 0.01, 0.0, w.position(box));
    choc::ArchiveReader bad(damaged);
    CHECK_THROWS_WITH_AS(bad(b), "the state's transport windows are damaged", choc::ArchiveError);
}

} // namespace test_diffusion_windows
