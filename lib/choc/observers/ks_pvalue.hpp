// The p-value of the one-sample Kolmogorov–Smirnov statistic: the probability that n
// independent draws from a fully specified continuous distribution give a distance D_n of
// at least d (docs/PHYSICS.md, "Kolmogorov–Smirnov p-value").
#pragma once

#include <cstdint>

namespace choc {

// The largest sample size computed exactly (Marsaglia, Tsang & Wang's matrix method);
// above it, the limiting Kolmogorov distribution with Vrbik's finite-n correction, whose
// absolute error is below 2e-4 there.
inline constexpr std::uint64_t ks_exact_limit = 100;

// P(D_n >= d); NaN for n = 0 or a d that is NaN, 1 for d <= 1 / (2 n), 0 for d >= 1.
double ks_pvalue(double d, std::uint64_t n);

// The limiting (n -> infinity) survival function of sqrt(n) D_n:
// Q(z) = 2 sum_{k >= 1} (-1)^(k - 1) exp(-2 k^2 z^2).
double kolmogorov_survival(double z);

} // namespace choc
