// The worst overlap in a configuration: max over pairs of (sigma_ij - r_ij) / sigma_ij and
// over walls and segments of (a_i - h_i) / a_i (h the centre's distance to the plane, or
// to the nearest point of the segment, its end points included), 0 when
// nothing overlaps. Uses a cell grid, so it costs O(N).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/particles.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace choc {

template <int D>
double max_overlap(const Box<D>& box, const Particles<D>& particles, double now) {
    const std::size_t n = particles.size();
    if (n == 0) return 0.0;
    const double width = particles.table.largest_diameter();
    Cells<D> cells(box, width, n);
    // Positions are recomputed where needed rather than kept: this check runs on a
    // snapshot at the end of a run, when a copy of them would add 24 bytes per particle
    // (3D) to the run's peak memory. Each is the same value every time.
    const auto at = [&](std::uint32_t i) { return box.wrap(particles.state[i].position_at(now)); };
    for (std::uint32_t i = 0; i < n; ++i) cells.insert(i, cells.cell_at(at(i)));
    double worst = 0.0;
    typename Cells<D>::Stencil near;
    for (std::uint32_t i = 0; i < n; ++i) {
        const Vec<D> xi = at(i);
        cells.around(cells.cell_of(i), near);
        for (int c = 0; c < near.size; ++c)
            for (const std::uint32_t* j = cells.begin(near.cell[c]); j != cells.end(near.cell[c]);
                 ++j) {
                if (*j <= i) continue;
                const double sigma = particles.table.pair_sigma(particles.state[i].species,
                                                                particles.state[*j].species);
                const double r = norm(xi - at(*j) - near.shift()[c]);
                worst = std::max(worst, (sigma - r) / sigma);
            }
        const double a = particles.radius(i);
        for (const auto& w : box.walls) worst = std::max(worst, (a - w.distance(xi)) / a);
        for (const auto& s : box.segments) worst = std::max(worst, (a - s.distance(xi)) / a);
    }
    return worst;
}

} // namespace choc
