// The cell grid of the time-stepped engine (step_engine.hpp), rebuilt at every overlap
// pass: the particles sorted by cell (a counting sort) with their positions copied in that
// order, so that the pass that looks at every pair of neighbours reads memory in runs.
// Cells are at least the largest contact distance wide, so a pair that overlaps sits in
// the same or neighbouring cells. Unlike the event-driven engine's linked cells
// (cells.hpp), nothing is kept between passes: a step moves every particle anyway.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/grid_error.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace choc {

template <int D>
class StepGrid {
  public:
    // Cells at least `min_width` wide, and no more than 2 N + 64 of them (a dilute gas
    // would get far more cells than particles).
    StepGrid(const Box<D>& box, double min_width, std::size_t particles)
        : periodic_(box.periodic), length_(box.length) {
        double width = min_width;
        // (never below three cells on a periodic axis that has room for them, as cells.hpp)
        auto along = [&](int a) {
            const bool three = box.periodic[a] && box.length[a] >= 3 * min_width;
            return std::max(three ? 3.0 : 1.0, std::floor(box.length[a] / width));
        };
        auto total = [&] {
            double t = 1.0;
            for (int a = 0; a < D; ++a) t *= along(a);
            return t;
        };
        double longest = 0.0;
        for (int a = 0; a < D; ++a) longest = std::max(longest, box.length[a]);
        while (total() > 2.0 * static_cast<double>(particles) + 64.0 && width < longest)
            width *= 1.25;
        std::size_t cells = 1;
        for (int a = 0; a < D; ++a) {
            n_[a] = static_cast<int>(along(a));
            if (box.periodic[a] && n_[a] < 3)
                throw PeriodicEdgeTooShort(a, box.length[a], min_width);
            width_[a] = box.length[a] / n_[a];
            cells *= static_cast<std::size_t>(n_[a]);
        }
        start_.assign(cells + 1, 0);
        // The half stencil: offsets after (0, ..., 0) in lexicographic order, so that each
        // pair of neighbouring cells is visited once.
        std::array<int, D> o;
        for (int k = 0; k < ipow(3, D); ++k) {
            int rest = k;
            for (int a = D - 1; a >= 0; --a) o[a] = rest % 3 - 1, rest /= 3;
            if (o > std::array<int, D>{}) half_.push_back(o);
            all_.push_back(o);
        }
        for (const auto& h : half_) {
            std::int64_t delta = 0;
            for (int a = 0; a < D; ++a) delta = delta * n_[a] + h[a];
            half_delta_.push_back(static_cast<std::uint32_t>(delta)); // (wraps: added mod 2^32)
        }
    }

    // Sorts the particles by the cell of their position now (p.x: every particle is at one
    // time stamp in the stepped engine).
    void build(const Particles<D>& p) {
        const std::size_t n = p.size();
        cell_.resize(n);
        std::fill(start_.begin(), start_.end(), 0u);
        for (std::uint32_t i = 0; i < n; ++i) ++start_[(cell_[i] = cell_at(p.state[i].x)) + 1];
        for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
        order_.resize(n);
        x_.resize(n);
        std::vector<std::uint32_t> next(start_.begin(), start_.end() - 1);
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t k = next[cell_[i]]++;
            order_[k] = i;
            x_[k] = p.state[i].x;
        }
    }

    // f(i, j, r) for every pair in the same or neighbouring cells, once, with r = x_i - x_j
    // taken to the nearest image across periodic edges. The cells are walked in order with
    // their coordinates counted alongside (no division per cell); away from the grid's
    // edges a neighbour is a fixed offset in the flat index.
    template <class F>
    void each_pair(F&& f) const {
        std::array<int, D> c{};
        const auto cells = static_cast<std::uint32_t>(start_.size() - 1);
        for (std::uint32_t cell = 0; cell < cells; ++cell, step(c)) {
            const std::uint32_t b = start_[cell], e = start_[cell + 1];
            if (b == e) continue;
            for (std::uint32_t k = b; k < e; ++k)
                for (std::uint32_t m = k + 1; m < e; ++m) f(order_[k], order_[m], x_[k] - x_[m]);
            const bool inside = interior(c);
            for (std::size_t h = 0; h < half_.size(); ++h) {
                Vec<D> shift{};
                const std::uint32_t other =
                    inside ? cell + half_delta_[h] : neighbour(c, half_[h], shift);
                if (other == none) continue;
                for (std::uint32_t m = start_[other]; m < start_[other + 1]; ++m)
                    for (std::uint32_t k = b; k < e; ++k)
                        f(order_[k], order_[m], x_[k] - x_[m] - shift);
            }
        }
    }

    // f(j, r) for every other particle j in the cells around particle i's, r = x_i - x_j.
    template <class F>
    void each_neighbour(std::uint32_t i, const Vec<D>& xi, F&& f) const {
        std::array<int, D> c{};
        coordinates(cell_[i], c);
        for (const auto& o : all_) {
            Vec<D> shift;
            const auto other = neighbour(c, o, shift);
            if (other == none) continue;
            for (std::uint32_t m = start_[other]; m < start_[other + 1]; ++m)
                if (order_[m] != i) f(order_[m], xi - x_[m] - shift);
        }
    }

  private:
    static constexpr std::uint32_t none = ~std::uint32_t{0};

    // The next cell's coordinates (the last axis fastest, as in the flat index).
    void step(std::array<int, D>& c) const {
        for (int a = D - 1; a >= 0; --a) {
            if (++c[a] < n_[a]) return;
            c[a] = 0;
        }
    }
    // Every neighbour of c is inside the grid without wrapping.
    bool interior(const std::array<int, D>& c) const {
        for (int a = 0; a < D; ++a)
            if (c[a] < 1 || c[a] > n_[a] - 2) return false;
        return true;
    }
    static constexpr int ipow(int b, int e) { return e == 0 ? 1 : b * ipow(b, e - 1); }

    std::uint32_t cell_at(const Vec<D>& x) const {
        std::uint32_t cell = 0;
        for (int a = 0; a < D; ++a) {
            const int k = std::clamp(static_cast<int>(std::floor(x[a] / width_[a])), 0, n_[a] - 1);
            cell = cell * static_cast<std::uint32_t>(n_[a]) + static_cast<std::uint32_t>(k);
        }
        return cell;
    }
    void coordinates(std::uint32_t cell, std::array<int, D>& c) const {
        for (int a = D - 1; a >= 0; --a) {
            c[a] = static_cast<int>(cell % static_cast<std::uint32_t>(n_[a]));
            cell /= static_cast<std::uint32_t>(n_[a]);
        }
    }
    // The cell at c + o, wrapped on periodic axes with the shift that brings its particles
    // next to c's; none off a walled edge.
    std::uint32_t neighbour(const std::array<int, D>& c, const std::array<int, D>& o,
                            Vec<D>& shift) const {
        std::uint32_t cell = 0;
        for (int a = 0; a < D; ++a) {
            int k = c[a] + o[a];
            shift[a] = 0.0;
            if (k < 0 || k >= n_[a]) {
                if (!periodic_[a]) return none;
                shift[a] = k < 0 ? -length_[a] : length_[a];
                k = k < 0 ? n_[a] - 1 : 0;
            }
            cell = cell * static_cast<std::uint32_t>(n_[a]) + static_cast<std::uint32_t>(k);
        }
        return cell;
    }

    std::array<bool, D> periodic_;
    Vec<D> length_;
    std::array<int, D> n_{};
    Vec<D> width_;
    std::vector<std::array<int, D>> half_, all_;
    std::vector<std::uint32_t> half_delta_; // the half stencil's flat offsets, inside the grid
    std::vector<std::uint32_t> start_;      // particles of cell c: order_[start_[c] .. start_[c+1])
    std::vector<std::uint32_t> order_;      // particle indices sorted by cell
    std::vector<Vec<D>> x_;                 // their positions, in that order
    std::vector<std::uint32_t> cell_;       // each particle's cell
};

} // namespace choc
