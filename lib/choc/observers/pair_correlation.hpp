// The radial distribution function g(r) of a periodic box, averaged over snapshots
// (output.rdf). Its value at contact links to the pressure: Z = 1 + 4 eta g(sigma) in 3D,
// Z = 1 + 2 phi g(sigma) in 2D (docs/PHYSICS.md, "Contact value of g(r)").
//
// For N particles at number density n = N / V, with h_b the number of pairs whose
// minimum-image distance falls in the shell [r_b, r_b + dr), summed over S snapshots,
//     g(r_b) = 2 h_b / (S N n V_b),   V_b = ball(r_b + dr) - ball(r_b),
// so an ideal gas has g = 1. A mixture gets the total g(r) over all pairs.
// Pairs are found with a grid of cells at least r_max / 2 wide: a pair within r_max is at
// most two cells apart on every axis. With r_max <= L / 3 there are at least six cells per
// axis, so each offset o in {-2..2}^D names a distinct neighbour and every pair of cells is
// joined by exactly one of o and -o: visiting the cell itself (pairs i < j) and the offsets
// that are lexicographically positive (62 in 3D, 12 in 2D) sees every pair once. Against
// cells r_max wide and all 3^D neighbours this looks at ~3.5 times fewer candidates.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/ball_volume.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"

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
        // The half shell of offsets: o with its first nonzero component positive.
        std::array<int, D> o;
        for (int code = 0; code < ipow5(); ++code) {
            int rest = code;
            for (int a = 0; a < D; ++a, rest /= 5) o[a] = rest % 5 - 2;
            int a = 0;
            while (a < D && o[a] == 0) ++a;
            if (a < D && o[a] > 0) offsets_.push_back(o);
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
        if (n != particles_) layout(n);
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
        auto count = [&](std::size_t i, std::size_t j) {
            const double r2 = norm2(box_.minimum_image(x[i] - x[j]));
            if (r2 >= r_max2) return;
            const auto b = static_cast<std::size_t>(std::sqrt(r2) / dr_);
            if (b < bins_) counts_[b] += 1.0;
        };
        for (std::size_t c = 0; c < total; ++c) {
            for (std::size_t u = start[c]; u < start[c + 1]; ++u)
                for (std::size_t v = u + 1; v < start[c + 1]; ++v) count(order[u], order[v]);
            const auto here = unflat(c);
            for (const auto& o : offsets_) {
                std::array<int, D> there;
                for (int a = 0; a < D; ++a) there[a] = (here[a] + o[a] + cells_[a]) % cells_[a];
                const std::size_t other = flat(there);
                for (std::size_t u = start[c]; u < start[c + 1]; ++u)
                    for (std::size_t v = start[other]; v < start[other + 1]; ++v)
                        count(order[u], order[v]);
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

    // Its checkpoint (archive.hpp): the histogram so far, the samples and the particles
    // they had (the shells follow from the box and range), the counts as 64 bits whatever
    // size_t is. A reader lays the cells out again for the particles read.
    template <class Archive>
    void fields(Archive& ar) {
        auto samples = std::uint64_t{samples_}, particles = std::uint64_t{particles_};
        ar(counts_, samples, particles);
        if constexpr (Archive::loading) {
            samples_ = static_cast<std::size_t>(samples);
            const auto n = static_cast<std::size_t>(particles);
            if (counts_.size() != bins_)
                throw ArchiveError("the state's g(r) histogram is damaged");
            if (n != particles_ && n > 0) layout(n);
            particles_ = n;
        }
    }

  private:
    // Cells at least r_max / 2 wide and at least five per axis; a dilute gas would get far
    // more cells than particles, so at most 8 N + 4096 of them (wider cells stay correct).
    void layout(std::size_t n) {
        const double most = 8.0 * static_cast<double>(n) + 4096.0;
        double width = 0.5 * r_max_;
        auto cells_along = [&](int a) { return std::max(5.0, std::floor(box_.length[a] / width)); };
        auto total = [&] {
            double t = 1.0;
            for (int a = 0; a < D; ++a) t *= cells_along(a);
            return t;
        };
        while (total() > most) width *= 1.25;
        for (int a = 0; a < D; ++a) {
            cells_[a] = static_cast<int>(cells_along(a));
            width_[a] = box_.length[a] / cells_[a];
        }
    }

    static constexpr int ipow5() { return D == 3 ? 125 : 25; }
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
    std::vector<std::array<int, D>> offsets_;
    Vec<D> width_;
    std::size_t samples_ = 0, particles_ = 0;
};

} // namespace choc
