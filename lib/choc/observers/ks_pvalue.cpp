#include "choc/observers/ks_pvalue.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace choc {
namespace {

// Square matrices with a decimal exponent kept aside, as in Marsaglia, Tsang & Wang
// (J. Stat. Software 8(18), 2003): the entries of H^n grow past the range of a double for
// n near 100, so products are rescaled by 1e-140 whenever an entry passes 1e140.
struct Scaled {
    std::vector<double> a; // row-major, m x m
    int exponent = 0;      // the value is a * 10^exponent
};

constexpr double big = 1e140;
constexpr int big_exponent = 140;

Scaled multiply(const Scaled& x, const Scaled& y, std::size_t m) {
    Scaled r{std::vector<double>(m * m, 0.0), x.exponent + y.exponent};
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t k = 0; k < m; ++k) {
            const double xik = x.a[i * m + k];
            if (xik == 0.0) continue;
            for (std::size_t j = 0; j < m; ++j) r.a[i * m + j] += xik * y.a[k * m + j];
        }
    if (r.a[(m / 2) * m + m / 2] > big) {
        for (double& v : r.a) v /= big;
        r.exponent += big_exponent;
    }
    return r;
}

Scaled power(const Scaled& h, std::uint64_t n, std::size_t m) {
    if (n == 1) return h;
    Scaled half = power(h, n / 2, m);
    Scaled r = multiply(half, half, m);
    return n % 2 == 1 ? multiply(h, r, m) : r;
}

// P(D_n < d) by the matrix method: with k = floor(n d) + 1, m = 2 k - 1 and h = k - n d,
// the probability is n! / n^n times the (k, k) entry of H^n, H the m x m matrix of their
// paper (entries 1 / (i - j + 1)! on and below the superdiagonal, corrected in the first
// column and the last row by powers of h).
double exact_cdf(double d, std::uint64_t n) {
    const double nd = static_cast<double>(n) * d;
    const auto k = static_cast<std::size_t>(nd) + 1;
    const std::size_t m = 2 * k - 1;
    const double h = static_cast<double>(k) - nd;
    Scaled H{std::vector<double>(m * m, 0.0), 0};
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < m; ++j)
            if (i + 1 >= j) H.a[i * m + j] = 1.0;
    for (std::size_t i = 0; i < m; ++i) {
        H.a[i * m] -= std::pow(h, static_cast<double>(i + 1));
        H.a[(m - 1) * m + i] -= std::pow(h, static_cast<double>(m - i));
    }
    if (2.0 * h - 1.0 > 0.0) H.a[(m - 1) * m] += std::pow(2.0 * h - 1.0, static_cast<double>(m));
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j <= i + 1 && j < m; ++j)
            for (std::size_t g = 2; g <= i + 1 - j; ++g) H.a[i * m + j] /= static_cast<double>(g);
    const Scaled Q = power(H, n, m);
    double s = Q.a[(k - 1) * m + k - 1];
    int exponent = Q.exponent;
    for (std::uint64_t i = 1; i <= n; ++i) {
        s = s * static_cast<double>(i) / static_cast<double>(n);
        if (s < 1.0 / big) {
            s *= big;
            exponent -= big_exponent;
        }
    }
    return s * std::pow(10.0, exponent);
}

// P(D_n^+ >= d), the one-sided statistic, exactly (Birnbaum & Tingey 1951):
//     d sum_{j=0}^{floor(n (1 - d))} C(n, j) (1 - d - j/n)^(n - j) (d + j/n)^(j - 1),
// each term through its logarithm. For d > 1/2 the two one-sided events exclude each
// other, and P(D_n >= d) is twice this, to full relative precision in the far tail.
double one_sided_tail(double d, std::uint64_t n) {
    const auto nn = static_cast<double>(n);
    const auto last = static_cast<std::uint64_t>(std::floor(nn * (1.0 - d)));
    const double log_n_factorial = std::lgamma(nn + 1.0);
    double sum = 0.0;
    for (std::uint64_t j = 0; j <= last && j <= n; ++j) {
        const auto jj = static_cast<double>(j);
        const double below = 1.0 - d - jj / nn;
        if (!(below > 0.0)) continue; // (1 - d - j/n)^(n - j) with n - j > 0: 0
        sum += std::exp(log_n_factorial - std::lgamma(jj + 1.0) - std::lgamma(nn - jj + 1.0) +
                        (nn - jj) * std::log(below) + (jj - 1.0) * std::log(d + jj / nn));
    }
    return d * sum;
}

} // namespace

double kolmogorov_survival(double z) {
    if (std::isnan(z)) return z;
    if (z <= 0.0) return 1.0;
    // Two series of the same function: the alternating one converges fast for large z, the
    // Jacobi-transformed one, 1 - sqrt(2 pi) / z sum exp(-(2k - 1)^2 pi^2 / (8 z^2)), for
    // small z; at z = 1 either needs fewer than ten terms for full precision.
    if (z < 1.0) {
        const double pi = std::numbers::pi;
        double sum = 0.0;
        for (int k = 1; k <= 10; ++k) {
            const double odd = 2.0 * k - 1.0;
            sum += std::exp(-odd * odd * pi * pi / (8.0 * z * z));
        }
        return 1.0 - std::sqrt(2.0 * pi) / z * sum;
    }
    double sum = 0.0, sign = 1.0;
    for (int k = 1; k <= 100; ++k) {
        const double term = std::exp(-2.0 * k * k * z * z);
        sum += sign * term;
        if (term < 1e-17 * sum) break;
        sign = -sign;
    }
    return std::min(1.0, 2.0 * sum);
}

double ks_pvalue(double d, std::uint64_t n) {
    if (n == 0 || std::isnan(d)) return std::numeric_limits<double>::quiet_NaN();
    const auto nn = static_cast<double>(n);
    // D_n is never below 1 / (2 n) (the sample's steps are 1 / n high) and never above 1.
    if (d <= 0.5 / nn) return 1.0;
    if (d >= 1.0) return 0.0;
    if (n <= ks_exact_limit)
        return d > 0.5 ? std::min(1.0, 2.0 * one_sided_tail(d, n))
                       : std::clamp(1.0 - exact_cdf(d, n), 0.0, 1.0);
    // Vrbik (2018): sqrt(n) D_n + 1 / (6 sqrt(n)) + (sqrt(n) D_n - 1) / (4 n) follows
    // Kolmogorov's limiting law to O(1/n^(3/2)).
    const double root = std::sqrt(nn), z = root * d;
    return kolmogorov_survival(z + 1.0 / (6.0 * root) + (z - 1.0) / (4.0 * nn));
}

} // namespace choc
