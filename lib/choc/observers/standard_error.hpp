// The weighted mean of independent estimates and its standard error, for block averages
// (pressure over time blocks, diffusion over particle groups). With weights w_b summing
// to 1 and estimates x_b, the mean is x = sum_b w_b x_b and, the estimates being
// independent,
//     err^2 = B / (B - 1) * sum_b w_b^2 (x_b - x)^2,
// which for equal weights is the familiar spread / sqrt(B (B - 1)).
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

namespace choc {

struct Estimate {
    double mean = 0.0;
    std::optional<double> error; // absent with fewer than two estimates
};

// `weights` need not be normalised; they must be positive.
inline Estimate weighted_mean(const std::vector<double>& values,
                              const std::vector<double>& weights) {
    double total = 0.0, mean = 0.0;
    for (std::size_t b = 0; b < values.size(); ++b) total += weights[b];
    for (std::size_t b = 0; b < values.size(); ++b) mean += weights[b] / total * values[b];
    Estimate e{mean, std::nullopt};
    if (values.size() < 2) return e;
    double var = 0.0;
    for (std::size_t b = 0; b < values.size(); ++b) {
        const double w = weights[b] / total;
        var += w * w * (values[b] - mean) * (values[b] - mean);
    }
    const auto n = static_cast<double>(values.size());
    e.error = std::sqrt(var * n / (n - 1.0));
    return e;
}

} // namespace choc
