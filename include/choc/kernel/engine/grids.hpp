// The engine's cell grids (docs/ARCHITECTURE.md, "The engine's parts"): one grid, or one
// per level of sizes for size-disperse particles (cell_levels.hpp), with the stencils a
// scan fills. What a particle's cells are, which cells a scan of it looks at, and how a
// crossing moves it; not what the engine does at a crossing (Engine::cross: the wrap, the
// scans, the predictions).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cell_levels.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/particles.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace choc {

template <int D>
class Grids {
  public:
    using Stencil = typename Cells<D>::Stencil;
    using WideStencil = typename Cells<D>::WideStencil;
    using Crossing = typename Cells<D>::Crossing;

    // The levels of `particles` by `level_ratio` (0: one level), each with its grid, every
    // list empty.
    Grids(const Box<D>& box, const Particles<D>& particles, double level_ratio)
        : levels_(cell_levels_of(box, particles, level_ratio)),
          cells_(box, levels_.min_width(0), levels_.listed(0), particles.size()) {
        for (std::size_t l = 1; l < levels_.size(); ++l)
            upper_.emplace_back(box, levels_.min_width(l), levels_.listed(l), particles.size());
    }

    std::size_t size() const { return levels_.size(); } // levels (grids)
    bool one() const { return upper_.empty(); }         // one level: the fast path
    std::size_t level(std::uint32_t species) const { return levels_.of_species()[species]; }
    Cells<D>& cells() { return cells_; } // the grid of level 0 (every particle's cell)
    const Cells<D>& cells() const { return cells_; }
    Cells<D>& grid(std::size_t l) { return l == 0 ? cells_ : upper_[l - 1]; }
    const Cells<D>& grid(std::size_t l) const { return l == 0 ? cells_ : upper_[l - 1]; }
    const auto& neighbourhood(std::size_t c, std::size_t a) const {
        return levels_.neighbourhood(c, a);
    }
    // The cells a scan visits; members, filled afresh by each scan, so that no call pays
    // for zero-initialising their shifts (Vec's members are value-initialised).
    Stencil& near() { return near_; }
    WideStencil& wide() { return wide_; } // a finer grid's near cells (cell_levels.hpp)

    // Puts i (of level `own`) in `cell` of grid l (emptied before): in its lists if l is
    // its level, else only as its cell there (a larger particle's, or one it never reads).
    void enter(std::size_t l, std::uint32_t i, std::uint32_t cell, std::size_t own) {
        if (own == l)
            grid(l).insert(i, cell);
        else
            grid(l).place(i, cell);
    }
    // i, at x, in its cells of every grid it keeps one in (its level and the finer ones).
    void place(std::uint32_t i, const Vec<D>& x, std::size_t own) {
        for (std::size_t l = 0; l <= own; ++l) enter(l, i, grid(l).cell_at(x), own);
    }

    // Calls f(grid, stencil) for every stencil a full scan of i (of level a) looks at over
    // the levels: the near cells in each finer grid, its own grid's 3^D cells, and each
    // coarser grid's 3^D cells around its position, x() (for_each_coarser).
    template <class X, class F>
    void for_each_stencil(std::uint32_t i, std::size_t a, X&& x, F&& f) {
        for (std::size_t c = 0; c < a; ++c) {
            const auto& nb = levels_.neighbourhood(c, a);
            grid(c).cells_at(grid(c).cell_of(i), nb.all, nb.reach, wide_);
            f(grid(c), wide_);
        }
        grid(a).around(grid(a).cell_of(i), near_);
        f(grid(a), near_);
        for_each_coarser(a, x, f);
    }
    // Calls f(j, shift) for every particle j that a full scan of i (of level a, at x())
    // looks at, i itself among them, with the shift that brings j's image next to i:
    // x_j + shift.
    template <class X, class F>
    void for_each_near(std::uint32_t i, std::size_t a, X&& x, F&& f) {
        for_each_stencil(i, a, x, [&](const Cells<D>& cells, const auto& near) {
            for (int c = 0; c < near.size; ++c)
                for (const std::uint32_t* j = cells.begin(near.cell[c]);
                     j != cells.end(near.cell[c]); ++j)
                    f(*j, near.edge ? near.shift()[c] : Vec<D>{});
        });
    }
    // Each coarser grid's 3^D cells around the position x() of a particle of level a.
    template <class X, class F>
    void for_each_coarser(std::size_t a, X&& x, F&& f) {
        if (a + 1 >= levels_.size()) return;
        const Vec<D> at = x();
        for (std::size_t b = a + 1; b < levels_.size(); ++b) {
            grid(b).around(grid(b).cell_at(at), near_);
            f(grid(b), near_);
        }
    }

    // The earliest of i's crossings over its grids (levels 0 .. own), `crossing(cells,
    // cell)` giving the one of its cell in a grid; and the grid it is in.
    template <class F>
    std::pair<Crossing, std::size_t> next_crossing(std::uint32_t i, std::size_t own,
                                                   F&& crossing) const {
        auto best = crossing(cells_, cells_.cell_of(i));
        std::size_t g = 0;
        if (!upper_.empty()) [[unlikely]]
            for (std::size_t l = 1; l <= own; ++l) {
                const auto c = crossing(grid(l), grid(l).cell_of(i));
                if (c.time < best.time) best = c, g = l;
            }
        return {best, g};
    }

    // i (of level a) crosses a face of its cell in grid g along (axis, dir), with more
    // than one level. Its own grid's crossing: the new layer of its level (in near()). A
    // finer grid's: the cells the step brought near there (in wide()). A periodic face is
    // a face of every grid: i re-enters them all at once (the caller wraps it and looks at
    // everything again). What the caller scans next.
    enum class Step { wrapped, own, finer };
    Step cross(std::uint32_t i, std::size_t a, std::size_t g, int axis, int dir) {
        Cells<D>& crossed = grid(g);
        bool wrapped = false;
        const std::uint32_t to = crossed.step(crossed.cell_of(i), axis, dir, wrapped);
        if (wrapped) {
            for (std::size_t l = 0; l <= a; ++l) {
                Cells<D>& cells = grid(l);
                const std::uint32_t cell = cells.reentered(cells.cell_of(i), axis, dir);
                if (l == a)
                    cells.move(i, cell);
                else
                    cells.place(i, cell);
            }
            return Step::wrapped;
        }
        if (g == a) {
            crossed.move(i, to);
            crossed.layer(to, axis, dir, near_);
            return Step::own;
        }
        crossed.place(i, to);
        const auto& nb = levels_.neighbourhood(g, a);
        crossed.cells_at(to, nb.after_step(axis, dir), nb.reach, wide_);
        return Step::finer;
    }

    // The particles in cell order (level by level, cells in memory order): order[k] is the
    // old index of the particle renumbered k.
    std::vector<std::uint32_t> cell_order(std::uint32_t n) const {
        std::vector<std::uint32_t> order;
        order.reserve(n);
        for (std::size_t l = 0; l < levels_.size(); ++l) // (one level: the one grid)
            for (std::uint32_t c = 0; c < grid(l).size(); ++c)
                order.insert(order.end(), grid(l).begin(c), grid(l).end(c));
        return order;
    }
    // The lists again after the particles were renumbered by `order` (cell_order), each in
    // its cells as before; level_of(k) of the new numbers; `cell` is scratch of n entries.
    template <class L>
    void renumbered(const std::vector<std::uint32_t>& order, std::vector<std::uint32_t>& cell,
                    L&& level_of) {
        const auto n = static_cast<std::uint32_t>(order.size());
        for (std::size_t l = 0; l < levels_.size(); ++l) {
            Cells<D>& cells = grid(l);
            for (std::uint32_t k = 0; k < n; ++k) cell[k] = cells.cell_of(order[k]);
            cells.clear();
            for (std::uint32_t k = 0; k < n; ++k) enter(l, k, cell[k], level_of(k));
        }
    }

    // The bytes of the lists (memory_bytes), and freeing them (Engine::retire).
    std::size_t bytes() const {
        std::size_t b = cells_.bytes();
        for (const auto& g : upper_) b += g.bytes();
        return b;
    }
    void release() {
        cells_.release();
        for (auto& g : upper_) g.release();
    }

    // The lists, level by level (archive.hpp); after reading, whether they list each of n
    // particles once, at its level (level_of(i)), or ArchiveError.
    template <class Archive>
    void fields(Archive& ar) {
        for (std::size_t l = 0; l < levels_.size(); ++l) ar(grid(l));
    }
    template <class L>
    void check_restored(std::size_t n, L&& level_of) const {
        for (std::size_t l = 0; l < levels_.size(); ++l)
            grid(l).check_restored(n, [&](std::uint32_t i) { return level_of(i) == l; });
    }

  private:
    CellLevels<D> levels_;        // one level, but for size-disperse particles
    Cells<D> cells_;              // the grid of level 0 (of every particle with one level)
    std::vector<Cells<D>> upper_; // the grids of levels 1, 2, ...
    Stencil near_;
    WideStencil wide_;
};

} // namespace choc
