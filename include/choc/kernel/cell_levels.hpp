// Levels of cell grids for size-disperse particles.
//
// One grid with cells one largest diameter wide makes every small particle of a 1:10
// mixture look at a thousand small cells' worth of neighbours. Instead the species are
// grouped into levels by diameter (a level's largest diameter is less than `ratio` times
// its smallest), and each level l has its own grid G_l, with cells at least its largest
// diameter wide, listing its own particles only. A particle of level a keeps its cell in
// G_a and in every finer grid G_c (c < a): their crossings are its cell events.
//
// Which pairs a scan must see, and why it does:
// - the same level: G_a's 3^D cells, as with one grid;
// - a finer particle j (level c < a) of a particle i: the pair is "near" when their cells
//   in G_c, o = cell_j - cell_i apart (in cells, per axis), are at most reach(c, a)[x] =
//   ceil(sigma_ca / w_x) apart on every axis x and closer than sigma_ca as boxes:
//       sum_x ((|o_x| - 1)^+ w_x)^2 < sigma_ca^2 (1 + 1e-6)^2,
//   for the largest contact distance sigma_ca of the two levels and G_c's cell widths w.
//   (Two points of those cells are at least (|o_x| - 1) w_x apart on axis x.) So two
//   particles closer than sigma_ca are near, and near depends on the two cells alone: it
//   changes only when i or j crosses a cell of G_c, which both keep. i scans the near
//   cells of G_c, a ball of cells (`Neighbourhood::all`, `Cells::cells_at`), or after a
//   crossing of G_c the ones the step brought near (`Neighbourhood::after_step`: near from
//   the new cell, not from the old); j, at its crossings of G_c (its own grid) and at its
//   full scans, looks for coarser particles in G_a's 3^D cells around the cell that holds
//   its position. Those hold every near i, because G_a's cells are at least
//   (reach(c, a) + 1) w_x wide: near particles are less than that apart on every axis.
//   (Looking at more pairs than the near ones is harmless: only a missed one is not.)
//   The ball matters for large ratios: at 1:50 in 3D the cube of cells within reach holds
//   about seven times more small particles than the ball's shell around the large one.
// With one level this is the one grid of before, to the bit.
//
// The plan needs a fine grid's cells per periodic axis to be at least 2 reach + 1 (the near
// cells meet no cell twice) and a coarse grid's at least 3; where a box is too small for that,
// the two largest levels merge, down to one level if need be.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace choc {

// The cells of a finer grid that a larger particle looks into, as offsets from its cell
// there (see the top): all of them, and those a step into a neighbouring cell brings near.
template <int D>
struct Neighbourhood {
    using Offset = typename Cells<D>::Offset;
    std::array<int, D> reach{}; // no offset is larger on axis x than reach[x]
    std::vector<Offset> all;
    std::array<std::vector<Offset>, 2 * D> added; // [2 axis + (dir > 0)]

    Neighbourhood() = default;
    // Offsets near for contact distance sigma in cells of widths w, x fastest.
    Neighbourhood(double sigma, const std::array<double, D>& w) {
        for (int x = 0; x < D; ++x) reach[x] = static_cast<int>(std::ceil(sigma / w[x]));
        const double limit = sigma * (1.0 + level_width_margin);
        auto near = [&](const Offset& o) {
            double d2 = 0.0;
            for (int x = 0; x < D; ++x) {
                if (std::abs(o[x]) > reach[x]) return false;
                const double gap = std::max(0, std::abs(o[x]) - 1) * w[x];
                d2 += gap * gap;
            }
            return d2 < limit * limit;
        };
        Offset o;
        for (int x = 0; x < D; ++x) o[x] = -reach[x];
        for (;;) {
            if (near(o)) {
                all.push_back(o);
                for (int x = 0; x < D; ++x)
                    for (const int dir : {-1, 1}) {
                        // the same cell seen from the cell before the step: o + dir e_x
                        Offset before = o;
                        before[x] += dir;
                        if (!near(before)) added[2 * x + (dir > 0)].push_back(o);
                    }
            }
            int x = 0;
            while (x < D && ++o[x] > reach[x]) o[x] = -reach[x], ++x;
            if (x == D) break;
        }
    }
    const std::vector<Offset>& after_step(int axis, int dir) const {
        return added[2 * axis + (dir > 0)];
    }
};

template <int D>
class CellLevels {
  public:
    CellLevels() = default;

    // The levels of species with these diameters and particle counts in `box`; `ratio`
    // <= 1 (or a single species) gives one level.
    CellLevels(const Box<D>& box, const std::vector<double>& diameter,
               const std::vector<std::size_t>& count, double ratio) {
        const std::size_t n = diameter.size();
        std::vector<std::size_t> by_size(n);
        std::iota(by_size.begin(), by_size.end(), std::size_t{0});
        std::stable_sort(by_size.begin(), by_size.end(),
                         [&](std::size_t a, std::size_t b) { return diameter[a] < diameter[b]; });
        // first[l]: where level l starts in by_size
        std::vector<std::size_t> first{0};
        for (std::size_t k = 1; k < n; ++k)
            if (ratio > 1.0 && diameter[by_size[k]] >= ratio * diameter[by_size[first.back()]])
                first.push_back(k);
        while (!plan(box, diameter, count, by_size, first)) first.pop_back();
    }

    std::size_t size() const { return width_.size(); }
    bool single() const { return width_.size() <= 1; }
    // The level of each species.
    const std::vector<std::uint8_t>& of_species() const { return level_; }
    // What G_l's cells must be wide at least, and how many particles it lists.
    double min_width(std::size_t l) const { return width_[l]; }
    std::size_t listed(std::size_t l) const { return listed_[l]; }
    // The cells of G_c in which a particle of level a (> c) sees those of level c.
    const Neighbourhood<D>& neighbourhood(std::size_t c, std::size_t a) const {
        return near_[c * size() + a];
    }
    const std::array<int, D>& reach(std::size_t c, std::size_t a) const {
        return neighbourhood(c, a).reach;
    }

  private:
    // Tries the levels that start at `first` in the size order; false if the box is too
    // small for them (see the top).
    bool plan(const Box<D>& box, const std::vector<double>& diameter,
              const std::vector<std::size_t>& count, const std::vector<std::size_t>& by_size,
              const std::vector<std::size_t>& first) {
        const std::size_t levels = first.size();
        level_.assign(diameter.size(), 0);
        width_.assign(levels, 0.0);
        listed_.assign(levels, 0);
        near_.assign(levels * levels, Neighbourhood<D>{});
        std::vector<double> largest(levels, 0.0);
        for (std::size_t l = 0; l < levels; ++l) {
            const std::size_t end = l + 1 < levels ? first[l + 1] : by_size.size();
            for (std::size_t k = first[l]; k < end; ++k) {
                level_[by_size[k]] = static_cast<std::uint8_t>(l);
                largest[l] = std::max(largest[l], diameter[by_size[k]]);
                listed_[l] += count[by_size[k]];
            }
        }
        if (levels == 1) {
            width_[0] = largest[0];
            return true;
        }
        std::vector<std::array<double, D>> cell_width(levels);
        for (std::size_t a = 0; a < levels; ++a) {
            width_[a] = largest[a];
            for (std::size_t c = 0; c < a; ++c) {
                const double sigma = 0.5 * (largest[c] + largest[a]);
                auto& nb = near_[c * levels + a];
                nb = Neighbourhood<D>(sigma, cell_width[c]);
                for (int x = 0; x < D; ++x)
                    width_[a] = std::max(width_[a], (nb.reach[x] + 1) * cell_width[c][x] *
                                                        (1.0 + level_width_margin));
            }
            for (int x = 0; x < D; ++x)
                if (box.periodic[x] && box.length[x] < 3 * width_[a]) return false;
            const Cells<D> grid(box, width_[a], listed_[a], typename Cells<D>::NoLists{});
            for (int x = 0; x < D; ++x) cell_width[a][x] = grid.width()[x];
            for (std::size_t c = 0; c < a; ++c)
                for (int x = 0; x < D; ++x)
                    if (box.periodic[x] &&
                        near_[c * levels + a].reach[x] * 2 + 1 >
                            static_cast<int>(std::lround(box.length[x] / cell_width[c][x])))
                        return false;
        }
        return true;
    }

    std::vector<std::uint8_t> level_;
    std::vector<double> width_;
    std::vector<std::size_t> listed_;
    std::vector<Neighbourhood<D>> near_; // [c * size() + a], c < a
};

// The levels of a configuration's species (their diameters and how many of each).
template <int D>
CellLevels<D> cell_levels_of(const Box<D>& box, const Particles<D>& particles, double ratio) {
    const auto& table = particles.table;
    std::vector<double> diameter(table.size());
    std::vector<std::size_t> count(table.size(), 0);
    for (std::size_t s = 0; s < table.size(); ++s) diameter[s] = 2.0 * table.species[s].radius;
    for (const auto& p : particles.state) ++count[p.species];
    return CellLevels<D>(box, diameter, count, ratio);
}

// The grids of the levels for a configuration at one instant (the overlap check, random
// placement): where to look for particles of level b that may touch one of level a at x.
template <int D>
class LevelGrids {
  public:
    // Grids with lists for `n` particles (level l's lists hold up to levels.listed(l)
    // of them), or with the geometry alone (`lists` false: the caller keeps its own).
    LevelGrids(const Box<D>& box, CellLevels<D> levels, std::size_t n, bool lists)
        : levels_(std::move(levels)) {
        for (std::size_t l = 0; l < levels_.size(); ++l) {
            if (lists)
                grid_.emplace_back(box, levels_.min_width(l), levels_.listed(l), n);
            else
                grid_.emplace_back(box, levels_.min_width(l), levels_.listed(l),
                                   typename Cells<D>::NoLists{});
        }
    }
    const CellLevels<D>& levels() const { return levels_; }
    Cells<D>& grid(std::size_t l) { return grid_[l]; }
    const Cells<D>& grid(std::size_t l) const { return grid_[l]; }

    // Calls f(cell, shift) for every cell of level b's grid that can hold a particle
    // touching one of level a at x (seen at x_j + shift): the 3^D cells around x when
    // b >= a (those cells are at least one contact distance wide), else the near cells of
    // neighbourhood(b, a).
    template <class F>
    void for_each_cell(std::size_t a, std::size_t b, const Vec<D>& x, F&& f) {
        const Cells<D>& g = grid_[b];
        auto visit = [&](const auto& near) {
            for (int c = 0; c < near.size; ++c)
                f(near.cell[c], near.edge ? near.shift()[c] : Vec<D>{});
        };
        if (b >= a) {
            g.around(g.cell_at(x), near_);
            visit(near_);
        } else {
            const auto& nb = levels_.neighbourhood(b, a);
            g.cells_at(g.cell_at(x), nb.all, nb.reach, wide_);
            visit(wide_);
        }
    }

  private:
    CellLevels<D> levels_;
    std::vector<Cells<D>> grid_;
    typename Cells<D>::Stencil near_;
    typename Cells<D>::WideStencil wide_;
};

// Compiled once, in lib/choc/kernel/kernel_cells.cpp (explicit instantiations), and linked:
// not again in every source that includes this header. Members defined in the class are
// still inlined where they are called.
extern template struct Neighbourhood<2>;
extern template struct Neighbourhood<3>;
extern template class CellLevels<2>;
extern template class CellLevels<3>;
extern template class LevelGrids<2>;
extern template class LevelGrids<3>;

} // namespace choc
