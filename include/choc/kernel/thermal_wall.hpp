// A thermal wall (diffuse, Maxwell): a particle that hits it forgets its velocity and
// leaves with one drawn from the distribution a gas at the wall's temperature T sends
// through a plane. Of a Maxwellian, the molecules crossing a plane in unit time are
// weighted by their normal speed, so the emitted normal component has density
//   f(v_n) = (m / T) v_n exp(-m v_n^2 / 2T),  v_n > 0   (k_B = 1),
// a Rayleigh law, drawn by inversion as v_n = sqrt(-2 (T/m) ln U) with U uniform in
// (0, 1]; each tangential component is Gaussian with variance T/m, as in the gas. Two
// such walls at different temperatures hold a steady heat flux across the gas. A wall
// moving in its own plane emits in its own frame (its velocity added): two moving the
// gas in opposite directions hold a steady shear flow, and take away its viscous heat.
//
// The draws come from one generator the engine owns, seeded from the run's seed, so a
// run is reproducible and a checkpoint carries the generator's state (to the bit).
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <sstream>
#include <string>

namespace choc {

template <int D>
class ThermalEmission {
  public:
    explicit ThermalEmission(std::uint64_t seed = 0) : rng_(seed) {}

    // The velocity of a particle of mass m leaving `wall` (its temperature > 0): normal
    // part Rayleigh, tangential part Gaussian, plus the wall's own velocity. A D-vector of
    // unit Gaussians with its normal component removed is a unit Gaussian in the wall's
    // plane, whatever the normal's direction.
    Vec<D> emit(const Wall<D>& wall, double m) {
        const double s = std::sqrt(wall.temperature / m);
        Vec<D> g;
        for (int a = 0; a < D; ++a) g[a] = gaussian();
        const Vec<D> tangential = g - wall.normal * dot(g, wall.normal);
        const double vn = std::sqrt(-2.0 * std::log(uniform()));
        return (tangential + wall.normal * vn) * s + wall.velocity;
    }

    // Its checkpoint (archive.hpp): the generator's state as the standard's text.
    template <class Archive>
    void fields(Archive& ar) {
        std::string text;
        if constexpr (!Archive::loading) {
            std::ostringstream state;
            state << rng_;
            text = state.str();
        }
        ar(text);
        if constexpr (Archive::loading) {
            std::istringstream state(text);
            state >> rng_;
            if (!state) throw ArchiveError("the thermal walls' generator state is damaged");
        }
    }

  private:
    // Uniform in (0, 1]: 53 random bits, shifted off zero so the logarithms are finite.
    double uniform() { return static_cast<double>((rng_() >> 11) + 1) * 0x1.0p-53; }
    // Box–Muller, one of the pair: no hidden second value to carry in the checkpoint.
    double gaussian() {
        const double r = std::sqrt(-2.0 * std::log(uniform()));
        return r * std::cos(2.0 * std::numbers::pi * uniform());
    }

    std::mt19937_64 rng_;
};

} // namespace choc
