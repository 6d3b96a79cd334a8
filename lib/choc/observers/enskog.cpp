#include "choc/observers/enskog.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <utility>

namespace choc::enskog {
namespace {

constexpr double pi = std::numbers::pi;

// Hansen-Goos: Z = 8 ln(1 - eta) / eta + sum_{i=0..7} b_i eta^i / (1 - eta)^3.
double hansen_goos(double eta) {
    constexpr std::array<double, 8> b{9.0,       -19.0,    47.0 / 3.0, -2.635232,
                                      -1.265575, 0.041212, 0.248245,   -0.096495};
    double sum = 0.0, power = 1.0;
    for (const double bi : b) sum += bi * power, power *= eta;
    // log1p: at small eta, log(1 - eta) would lose the digits that g = (Z - 1) / (4 eta) needs
    return 8.0 * std::log1p(-eta) / eta + sum / std::pow(1.0 - eta, 3);
}

// Kolafa-Rottner: Z = sum_k c_k x^k with x = phi / (1 - phi).
double kolafa_rottner(double phi) {
    constexpr std::array<std::pair<int, double>, 15> c{{{0, 1.0},
                                                        {1, 2.0},
                                                        {2, 1.12801775},
                                                        {3, 0.00181895291},
                                                        {4, -0.0526134737},
                                                        {5, 0.0504960168},
                                                        {6, -0.0325537792},
                                                        {7, 0.0134578632},
                                                        {8, 0.00140888182},
                                                        {9, -0.00834273601},
                                                        {10, 0.00694127367},
                                                        {11, -0.00262254723},
                                                        {12, 0.000355746352},
                                                        {22, -5.24672938e-9},
                                                        {57, 5.88054639e-23}}};
    const double x = phi / (1.0 - phi);
    double z = 0.0;
    for (const auto& [k, ck] : c) z += ck * std::pow(x, k);
    return z;
}

} // namespace

double fraction(const Fluid& f) {
    return f.dimension == 3 ? pi * f.n * f.sigma * f.sigma * f.sigma / 6.0
                            : pi * f.n * f.sigma * f.sigma / 4.0;
}

double compressibility(int dimension, double fraction) {
    return dimension == 3 ? hansen_goos(fraction) : kolafa_rottner(fraction);
}

double contact_value(int dimension, double fraction) {
    if (fraction <= 0.0) return 1.0; // the dilute limit of (Z - 1) / (4 eta)
    return (compressibility(dimension, fraction) - 1.0) / ((dimension == 3 ? 4.0 : 2.0) * fraction);
}

// Boltzmann's values (first Sonine approximation, Chapman & Cowling), 3D then 2D:
//   D_0 = 3 / (8 n sigma^2) sqrt(kT / (pi m)),   D_0 = 1 / (2 n sigma) sqrt(kT / (pi m)),
//   eta_0 = 5 / (16 sigma^2) sqrt(m kT / pi),    eta_0 = 1 / (2 sigma) sqrt(m kT / pi),
//   lambda_0 = 75 / (64 sigma^2) sqrt(kT / (pi m)),  lambda_0 = 2 / sigma sqrt(kT / (pi m)).
// Enskog's, with g = g(sigma) and, in 3D, b rho = 2 pi n sigma^3 / 3 = 4 eta (the second
// virial coefficient times n), where the next Sonine orders raise eta_0 by 1.016 and
// lambda_0 by 1.025 (Chapman & Cowling):
//   eta_E = 1.016 eta_0 (1/g + 0.8 b rho + 0.7614 g (b rho)^2),
//   lambda_E = 1.025 lambda_0 (1/g + 1.2 b rho + 0.7575 g (b rho)^2);
// and in 2D, with phi the area fraction:
//   eta_E = eta_0 (1/g + 2 phi + (1 + 8/pi) phi^2 g),
//   lambda_E = lambda_0 (1/g + 3 phi + (9/4 + 4/pi) phi^2 g).
// The last terms are the purely collisional transfer, present even when particles do not
// move between collisions.
double diffusion(const Fluid& f) {
    const double speed = std::sqrt(f.kT / (pi * f.mass));
    const double dilute = f.dimension == 3 ? 3.0 / (8.0 * f.n * f.sigma * f.sigma) * speed
                                           : 1.0 / (2.0 * f.n * f.sigma) * speed;
    return dilute / contact_value(f.dimension, fraction(f));
}

double shear_viscosity(const Fluid& f) {
    const double phi = fraction(f), g = contact_value(f.dimension, phi);
    const double momentum = std::sqrt(f.mass * f.kT / pi);
    if (f.dimension == 3) {
        const double b_rho = 4.0 * phi;
        return 1.016 * 5.0 / (16.0 * f.sigma * f.sigma) * momentum *
               (1.0 / g + 0.8 * b_rho + 0.7614 * g * b_rho * b_rho);
    }
    return 1.0 / (2.0 * f.sigma) * momentum *
           (1.0 / g + 2.0 * phi + (1.0 + 8.0 / pi) * phi * phi * g);
}

double thermal_conductivity(const Fluid& f) {
    const double phi = fraction(f), g = contact_value(f.dimension, phi);
    const double speed = std::sqrt(f.kT / (pi * f.mass));
    if (f.dimension == 3) {
        const double b_rho = 4.0 * phi;
        return 1.025 * 75.0 / (64.0 * f.sigma * f.sigma) * speed *
               (1.0 / g + 1.2 * b_rho + 0.7575 * g * b_rho * b_rho);
    }
    return 2.0 / f.sigma * speed * (1.0 / g + 3.0 * phi + (9.0 / 4.0 + 4.0 / pi) * phi * phi * g);
}

double yeh_hummer(double kT, double shear_viscosity, double edge) {
    constexpr double xi = 2.837297;
    return xi * kT / (6.0 * pi * shear_viscosity * edge);
}

} // namespace choc::enskog
