// Volume of one particle: pi r^2 for a disc (D = 2), 4/3 pi r^3 for a sphere (D = 3).
// The packing fraction is the sum of these over the particles divided by the box volume.
#pragma once

#include <numbers>

namespace choc {

template <int D>
constexpr double ball_volume(double r) {
    if constexpr (D == 3)
        return 4.0 / 3.0 * std::numbers::pi * r * r * r;
    else
        return std::numbers::pi * r * r;
}

} // namespace choc
