// The Maxwell–Boltzmann distribution of speeds in d = 2 or 3 dimensions (docs/PHYSICS.md), for
// particles of mass m at temperature kT. With the thermal speed s = sqrt(kT / m) and
// x = v / s:
//   3D  density f(v) = 4 pi v^2 (m / 2 pi kT)^(3/2) exp(-m v^2 / 2 kT)
//                    = sqrt(2 / pi) x^2 exp(-x^2 / 2) / s
//       CDF     F(v) = erf(x / sqrt 2) - sqrt(2 / pi) x exp(-x^2 / 2)
//   2D  density f(v) = (m v / kT) exp(-m v^2 / 2 kT) = x exp(-x^2 / 2) / s
//       CDF     F(v) = 1 - exp(-x^2 / 2)
// One velocity component is Gaussian: f(v_x) = sqrt(m / 2 pi kT) exp(-m v_x^2 / 2 kT).
// Boltzmann's H = integral f ln f d^d v of the full velocity distribution
// f(v) = (m / 2 pi kT)^(d/2) exp(-m v^2 / 2 kT) is -(d / 2) (ln(2 pi kT / m) + 1).
#pragma once

#include <cmath>
#include <numbers>

namespace choc {

inline double maxwell_speed_density(int d, double v, double kT, double m) {
    const double s = std::sqrt(kT / m), x = v / s;
    if (d == 3) return std::sqrt(2.0 / std::numbers::pi) * x * x * std::exp(-0.5 * x * x) / s;
    return x * std::exp(-0.5 * x * x) / s;
}

inline double maxwell_speed_cdf(int d, double v, double kT, double m) {
    const double x = v / std::sqrt(kT / m);
    if (d == 3)
        return std::erf(x / std::numbers::sqrt2) -
               std::sqrt(2.0 / std::numbers::pi) * x * std::exp(-0.5 * x * x);
    return -std::expm1(-0.5 * x * x);
}

inline double maxwell_component_density(double vx, double kT, double m) {
    return std::sqrt(m / (2.0 * std::numbers::pi * kT)) * std::exp(-0.5 * m * vx * vx / kT);
}

inline double maxwell_h(int d, double kT, double m) {
    return -0.5 * d * (std::log(2.0 * std::numbers::pi * kT / m) + 1.0);
}

} // namespace choc
