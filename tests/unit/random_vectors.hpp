// Seeded random numbers and vectors for the tests: uniform components, uniform directions.
#pragma once

#include <choc/kernel/vec.hpp>

#include <cstdint>
#include <random>

class RandomVectors {
  public:
    explicit RandomVectors(std::uint64_t seed) : rng_(seed) {}

    // Raw bits from the same engine (for integer choices).
    std::uint64_t bits() { return rng_(); }

    double uniform(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng_);
    }

    // Components uniform in [-scale, scale).
    template <int D>
    choc::Vec<D> vec(double scale) {
        choc::Vec<D> v;
        for (int a = 0; a < D; ++a) v[a] = uniform(-scale, scale);
        return v;
    }

    // A direction uniform on the sphere (rejection from the unit ball, away from 0).
    template <int D>
    choc::Vec<D> unit() {
        for (;;) {
            const choc::Vec<D> v = vec<D>(1.0);
            const double n = norm(v);
            if (n > 0.1 && n <= 1.0) return v * (1.0 / n);
        }
    }

  private:
    std::mt19937_64 rng_;
};
