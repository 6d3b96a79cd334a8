// The worst overlap in a configuration: max over pairs of (sigma_ij - r_ij) / sigma_ij and
// over walls and the other obstacles of (a_i - h_i) / a_i (h the centre's distance to the
// plane, or to the nearest point of a segment or triangle, its rim included; one-sided
// triangles are passed through, not overlapped), 0 when nothing overlaps. Uses a cell
// grid, so it costs O(N) (and, for each obstacle, the particles in the few cells near it).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cell_levels.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/particles.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace choc {

// The same for the positions `position(i)` gives at the moment checked (any periodic
// image: they are wrapped here), the species and radii from `particles` (same indices):
// a caller with a live engine passes its own particles and motion, without a copy.
template <int D, class Position>
double max_overlap_at(const Box<D>& box, const Particles<D>& particles, Position&& position) {
    const std::size_t n = particles.size();
    if (n == 0) return 0.0;
    // The grids' geometry (one per level of sizes: cell_levels.hpp), and their lists kept
    // here in one array sorted by cell: 8 bytes per particle and 4 per cell, where the
    // engine's lists keep room to grow in every cell (32 bytes per cell). This check runs
    // beside a full engine, so it is its memory that may set a run's peak. Positions are
    // recomputed where needed rather than kept (each is the same value every time).
    LevelGrids<D> grids(box, cell_levels_of(box, particles, default_level_ratio), n, false);
    const auto& levels = grids.levels();
    const auto level = [&](std::uint32_t i) {
        return levels.of_species()[particles.state[i].species];
    };
    // level l's cell c is cell base[l] + c of the one sorted array
    std::vector<std::size_t> base(levels.size() + 1, 0);
    for (std::size_t l = 0; l < levels.size(); ++l) base[l + 1] = base[l] + grids.grid(l).size();
    const auto at = [&](std::uint32_t i) { return box.wrap(position(i)); };
    std::vector<std::uint32_t> cell(n), first(base.back() + 1, 0), order(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::size_t l = level(i);
        cell[i] = static_cast<std::uint32_t>(base[l] + grids.grid(l).cell_at(at(i)));
        ++first[cell[i] + 1];
    }
    // first[c] = where cell c's particles start (a prefix sum of the counts); filling
    // moves each to its cell's end, the shift moves them back.
    for (std::size_t c = 1; c < first.size(); ++c) first[c] += first[c - 1];
    for (std::uint32_t i = 0; i < n; ++i) order[first[cell[i]]++] = i;
    for (std::size_t c = first.size() - 1; c > 0; --c) first[c] = first[c - 1];
    first[0] = 0;

    double worst = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const Vec<D> xi = at(i);
        const std::size_t a = level(i);
        // every pair once: of one level from its lower index, of two from the larger one
        for (std::size_t b = 0; b <= a; ++b)
            grids.for_each_cell(a, b, xi, [&](std::uint32_t c, const Vec<D>& shift) {
                const std::size_t k0 = first[base[b] + c], k1 = first[base[b] + c + 1];
                for (std::size_t k = k0; k != k1; ++k) {
                    const std::uint32_t j = order[k];
                    if (b == a && j <= i) continue;
                    const double sigma = particles.table.pair_sigma(particles.state[i].species,
                                                                    particles.state[j].species);
                    const double r = norm(xi - at(j) - shift);
                    worst = std::max(worst, (sigma - r) / sigma);
                }
            });
        const double a_i = particles.radius(i);
        for (const auto& w : box.walls) worst = std::max(worst, (a_i - w.distance(xi)) / a_i);
    }
    // The kinds' obstacles (engine/obstacles.hpp): each part against the particles in the
    // cells its bounding box, grown by the largest radius, covers in every grid. A centre
    // x lies in cell floor(x/w) (cell_at, monotone in x), so every centre within that
    // radius of the part is among them. Obstacles stay one diameter clear of periodic
    // faces: the wrapped positions serve.
    const double reach = 0.5 * particles.table.largest_diameter();
    Obstacles<D>::for_each_solid(box, [&](const Vec<D>& lo, const Vec<D>& hi, auto&& distance) {
        for (std::size_t l = 0; l < levels.size(); ++l) {
            const Cells<D>& g = grids.grid(l);
            std::array<int, D> from, to;
            for (int a = 0; a < D; ++a) {
                const int last = g.counts()[a] - 1;
                from[a] = std::clamp(static_cast<int>(std::floor((lo[a] - reach) / g.width()[a])),
                                     0, last);
                to[a] = std::clamp(static_cast<int>(std::floor((hi[a] + reach) / g.width()[a])), 0,
                                   last);
            }
            std::array<int, D> c = from;
            while (true) {
                const std::size_t cell = base[l] + g.flat(c);
                for (std::size_t k = first[cell]; k != first[cell + 1]; ++k) {
                    const std::uint32_t j = order[k];
                    const double a_j = particles.radius(j);
                    worst = std::max(worst, (a_j - distance(at(j))) / a_j);
                }
                int a = 0;
                while (a < D && c[a] == to[a]) c[a] = from[a], ++a;
                if (a == D) break;
                ++c[a];
            }
        }
    });
    return worst;
}

// Positions along straight lines from each particle's stamp to `now`.
template <int D>
double max_overlap(const Box<D>& box, const Particles<D>& particles, double now) {
    return max_overlap_at(box, particles,
                          [&](std::uint32_t i) { return particles.state[i].position_at(now); });
}

// Compiled once, in lib/choc/kernel/kernel_groups.cpp (explicit instantiations), and linked:
// not again in every source that includes this header.
extern template double max_overlap<2>(const Box<2>&, const Particles<2>&, double);
extern template double max_overlap<3>(const Box<3>&, const Particles<3>&, double);

} // namespace choc
