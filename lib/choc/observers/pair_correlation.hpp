// The radial distribution function g(r) of a periodic box, averaged over snapshots
// (output.rdf). Its value at contact links to the pressure: Z = 1 + 4 eta g(sigma) in 3D,
// Z = 1 + 2 phi g(sigma) in 2D (PHYSICS.md).
//
// For N particles at number density n = N / V, with h_b the number of pairs whose
// minimum-image distance falls in the shell [r_b, r_b + dr), summed over S snapshots,
//     g(r_b) = 2 h_b / (S N n V_b),   V_b = ball(r_b + dr) - ball(r_b),
// so an ideal gas has g = 1. A mixture gets the total g(r) over all pairs.
// Pairs are found with a grid of cells at least r_max wide, at least three per axis
// (r_max <= L / 3), so that the 3^D neighbouring cells are distinct and every pair
// within r_max is seen once.
#pragma once

#include "../box.hpp"
#include "../init/ball_volume.hpp"
#include "../particles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace choc {

template <int D>
class PairCorrelation {
  public:
    // Periodic on every axis; r_max <= shortest edge / 3.
    PairCorrelation(const Box<D>& box, double r_max, double dr)
        : box_(box), dr_(dr),
          bins_(static_cast<std::size_t>(std::min(r_max, range(box, r_max)) / dr)),
          counts_(bins_, 0.0) {
        r_max_ = static_cast<double>(bins_) * dr_;
        for (int a = 0; a < D; ++a) {
            cells_[a] = std::max(3, static_cast<int>(std::floor(box.length[a] / r_max_)));
            width_[a] = box.length[a] / cells_[a];
        }
    }

    // The largest useful range for a box: a third of its shortest edge, at most `cap`.
    static double range(const Box<D>& box, double cap) {
        double shortest = box.length[0];
        for (int a = 1; a < D; ++a) shortest = std::min(shortest, box.length[a]);
        return std::min(shortest / 3.0, cap);
    }

    void sample(const Particles<D>& p) {
        const std::size_t n = p.size();
        std::size_t total = 1;
        for (int a = 0; a < D; ++a) total *= static_cast<std::size_t>(cells_[a]);
        // Counting sort of the particles by cell: members of cell c are
        // order[start[c] .. start[c + 1]).
        std::vector<Vec<D>> x(n);
        std::vector<std::size_t> cell(n), start(total + 1, 0), order(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = box_.wrap(p.state[i].x);
            std::array<int, D> c;
            for (int a = 0; a < D; ++a)
                c[a] = std::clamp(static_cast<int>(x[i][a] / width_[a]), 0, cells_[a] - 1);
            cell[i] = flat(c);
            ++start[cell[i] + 1];
        }
        for (std::size_t c = 0; c < total; ++c) start[c + 1] += start[c];
        std::vector<std::size_t> fill(start.begin(), start.end() - 1);
        for (std::size_t i = 0; i < n; ++i) order[fill[cell[i]]++] = i;

        const double r_max2 = r_max_ * r_max_;
        for (std::size_t c = 0; c < total; ++c) {
            const auto here = unflat(c);
            for (int k = 0; k < ipow3(); ++k) {
                std::array<int, D> there;
                int code = k;
                for (int a = 0; a < D; ++a, code /= 3)
                    there[a] = (here[a] + code % 3 - 1 + cells_[a]) % cells_[a];
                const std::size_t other = flat(there);
                for (std::size_t u = start[c]; u < start[c + 1]; ++u)
                    for (std::size_t v = start[other]; v < start[other + 1]; ++v) {
                        const std::size_t i = order[u], j = order[v];
                        if (i >= j) continue; // each pair once
                        const double r2 = norm2(box_.minimum_image(x[i] - x[j]));
                        if (r2 >= r_max2) continue;
                        const auto b = static_cast<std::size_t>(std::sqrt(r2) / dr_);
                        if (b < bins_) counts_[b] += 1.0;
                    }
            }
        }
        ++samples_;
        particles_ = n;
    }

    std::size_t samples() const { return samples_; }

    // `r,g` with r the centre of each shell.
    std::string csv() const {
        std::string out = "r,g\n";
        const auto n = static_cast<double>(particles_);
        const double density = n / box_.volume();
        for (std::size_t b = 0; b < bins_; ++b) {
            const double low = static_cast<double>(b) * dr_;
            const double shell = ball_volume<D>(low + dr_) - ball_volume<D>(low);
            const double g =
                samples_ && particles_
                    ? 2.0 * counts_[b] / (static_cast<double>(samples_) * n * density * shell)
                    : 0.0;
            out += fmt::format("{},{}\n", low + 0.5 * dr_, g);
        }
        return out;
    }

  private:
    static constexpr int ipow3() { return D == 3 ? 27 : 9; }
    std::size_t flat(const std::array<int, D>& c) const {
        std::size_t f = 0;
        for (int a = D - 1; a >= 0; --a) f = f * static_cast<std::size_t>(cells_[a]) + c[a];
        return f;
    }
    std::array<int, D> unflat(std::size_t f) const {
        std::array<int, D> c;
        for (int a = 0; a < D; ++a) {
            c[a] = static_cast<int>(f % static_cast<std::size_t>(cells_[a]));
            f /= static_cast<std::size_t>(cells_[a]);
        }
        return c;
    }

    Box<D> box_;
    double dr_, r_max_ = 0.0;
    std::size_t bins_;
    std::vector<double> counts_;
    std::array<int, D> cells_{};
    Vec<D> width_;
    std::size_t samples_ = 0, particles_ = 0;
};

} // namespace choc
