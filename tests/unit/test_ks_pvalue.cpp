// The Kolmogorov–Smirnov p-value against values computed independently (scipy 1.10's
// kstwo and kstwobign, which evaluate the exact distribution by other algorithms) and
// against closed forms of the distribution at its ends.
#include <doctest/doctest.h>

#include <choc/observers/ks_pvalue.hpp>

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace test_ks_pvalue {

namespace {

struct Case {
    double d;
    std::uint64_t n;
    double p; // scipy.stats.kstwo.sf(d, n)
};

double factorial(std::uint64_t n) {
    double f = 1.0;
    for (std::uint64_t k = 2; k <= n; ++k) f *= static_cast<double>(k);
    return f;
}

} // namespace

TEST_CASE("Kolmogorov's limiting law: known quantiles and both series around z = 1") {
    // scipy.stats.kstwobign.sf(z); z = 1.2238, 1.3581, 1.6276 are its 10 %, 5 % and 1 %
    // points. The two series agree with it to round-off (1e-14 leaves a margin of ~100).
    const double table[][2] = {
        {0.3, 0.9999906941986655},  {0.6, 0.8642827790506042},   {0.9, 0.3927307079406543},
        {0.99, 0.2808738392255489}, {1.01, 0.25943416909359746}, {1.2238478702170823, 0.1},
        {1.3580986393225505, 0.05}, {1.6276236115189993, 0.01},  {2.5, 7.453306344157342e-06}};
    for (const auto& [z, q] : table) {
        CAPTURE(z);
        CHECK(std::abs(choc::kolmogorov_survival(z) - q) < 1e-14);
    }
    CHECK(std::abs(choc::kolmogorov_survival(2.5) / 7.453306344157342e-06 - 1.0) < 1e-12);
    CHECK(choc::kolmogorov_survival(0.0) == 1.0);
    CHECK(choc::kolmogorov_survival(0.05) == 1.0);
}

TEST_CASE("exact p-values for n <= 100 (Marsaglia-Tsang-Wang; Birnbaum-Tingey beyond d = 1/2)") {
    // The matrix method is good to about 1e-15 absolute; scipy's to about the same: 1e-13
    // absolute leaves a margin and still catches any error in the matrix (a wrong entry
    // moves p by far more).
    const Case table[] = {{0.7, 1, 0.6000000000000001},
                          {0.3, 2, 0.98},
                          {0.25, 5, 0.8446},
                          {0.1, 10, 0.99963712},
                          {0.45, 10, 0.022891810311717498},
                          {0.2, 20, 0.352720173623415},
                          {0.08, 50, 0.880839701941023},
                          {0.3, 50, 0.00017353260202718738},
                          {0.05, 100, 0.9532159710635725},
                          {0.12, 100, 0.1033037490181987},
                          {0.2, 100, 0.0005551927327988775},
                          {0.6, 100, 5.912822156396238e-35},
                          {0.9, 7, 1.999999999999997e-07}};
    for (const auto& c : table) {
        CAPTURE(c.n);
        CAPTURE(c.d);
        const double p = choc::ks_pvalue(c.d, c.n);
        CHECK(std::abs(p - c.p) < 1e-13);
        // beyond d = 1/2 the tail is exact in relative terms too
        if (c.d > 0.5) CHECK(std::abs(p / c.p - 1.0) < 1e-10);
    }
}

TEST_CASE("exact p-values: the closed forms at both ends of the range") {
    for (std::uint64_t n : {1u, 3u, 10u, 37u, 100u}) {
        CAPTURE(n);
        const auto nn = static_cast<double>(n);
        // D_n >= 1 / (2 n) always
        CHECK(choc::ks_pvalue(0.5 / nn, n) == 1.0);
        CHECK(choc::ks_pvalue(0.25 / nn, n) == 1.0);
        // 1/(2n) <= d <= 1/n: P(D_n < d) = n! (2 d - 1/n)^n
        const double low = 0.8 / nn;
        CHECK(std::abs(choc::ks_pvalue(low, n) -
                       (1.0 - factorial(n) * std::pow(2.0 * low - 1.0 / nn, nn))) < 1e-13);
        // d >= 1 - 1/n: P(D_n >= d) = 2 (1 - d)^n, to full relative precision
        const double high = 1.0 - 0.3 / nn;
        const double p = choc::ks_pvalue(high, n);
        CHECK(std::abs(p / (2.0 * std::pow(1.0 - high, nn)) - 1.0) < 1e-10);
        CHECK(choc::ks_pvalue(1.0, n) == 0.0);
    }
    CHECK(std::isnan(choc::ks_pvalue(0.1, 0)));
    CHECK(std::isnan(choc::ks_pvalue(std::nan(""), 10)));
}

TEST_CASE("large n: the limiting law with Vrbik's correction, within 2e-4 of the exact value") {
    // Measured against scipy's exact kstwo.sf over n = 101 ... 1e5 and p in (1e-4, 1): the
    // largest error is 1.65e-4, at n = 101 (it falls as n^(-3/2)). Without the correction
    // the error at (n = 101, d = 0.1) is 0.017, and with Stephens' scaling up to 0.011 at
    // n = 101: the bound tells the corrected law from both.
    const Case table[] = {
        {0.1, 101, 0.2477060250143171},       {0.15, 101, 0.018961926586303208},
        {0.06, 300, 0.221275575895042},       {0.03, 1000, 0.3226902143914636},
        {0.045, 1000, 0.03378304014546085},   {0.012, 10000, 0.11135257403749388},
        {0.004, 100000, 0.08130148920222469}, {0.0013, 1000000, 0.06803320588112582}};
    for (const auto& c : table) {
        CAPTURE(c.n);
        CAPTURE(c.d);
        const double p = choc::ks_pvalue(c.d, c.n);
        CHECK(std::abs(p - c.p) < 2e-4);
        // the correction's error falls as n^(-3/2): about 1e-7 at n = 1e4
        if (c.n >= 10000) CHECK(std::abs(p - c.p) < 1e-6);
    }
    // no jump at the switch: at sqrt(n) d = 1.2 the exact p of n = 100 and of n = 101 differ
    // by 4.4e-5, so n = 100 exact and n = 101 approximate agree within that and the 2e-4
    const double z = 1.2;
    CHECK(std::abs(choc::ks_pvalue(z / 10.0, 100) - choc::ks_pvalue(z / std::sqrt(101.0), 101)) <
          2.5e-4);
}

} // namespace test_ks_pvalue
