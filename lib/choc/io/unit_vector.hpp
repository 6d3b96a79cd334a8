// A direction given by the user (a wall normal) as a unit vector: the one normalisation
// every reader uses.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace choc {

// `v` / |v|, scaled by its largest component first, so that neither [1e300, 1e300]
// overflows nor [1e-320, 0] underflows to zero on the way; nullopt for the zero vector
// (or a non-finite one).
inline std::optional<std::vector<double>> unit_vector(std::vector<double> v) {
    double largest = 0.0;
    for (double x : v) largest = std::max(largest, std::abs(x));
    if (!(largest > 0.0) || !std::isfinite(largest)) return std::nullopt;
    double length = 0.0;
    for (double& x : v) {
        x /= largest;
        length += x * x;
    }
    length = std::sqrt(length);
    for (double& x : v) x /= length;
    return v;
}

} // namespace choc
