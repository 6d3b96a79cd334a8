#include "choc/init/random_packing.hpp"

#include "choc/errors.hpp"
#include "choc/kernel/ball_volume.hpp"
#include "choc/kernel/cell_levels.hpp"
#include "choc/kernel/triangle_cells.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <numeric>
#include <spdlog/spdlog.h>

namespace choc {

template <int D>
std::vector<Vec<D>> random_packing(const Box<D>& box, const std::vector<double>& radius,
                                   std::mt19937_64& rng, const Region<D>* region) {
    const std::size_t n = radius.size();
    if (n == 0) return {};
    const double largest = *std::max_element(radius.begin(), radius.end());

    // A grid per level of sizes (cell_levels.hpp; one, cells one largest diameter wide,
    // for particles of one size): a new particle can only overlap particles in the cells
    // for_each_cell names. The sizes are the distinct radii.
    std::vector<double> sizes(radius);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    std::vector<std::size_t> size_of(n), count(sizes.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
        size_of[i] = static_cast<std::size_t>(
            std::lower_bound(sizes.begin(), sizes.end(), radius[i]) - sizes.begin());
        ++count[size_of[i]];
    }
    std::vector<double> diameter(sizes.size());
    for (std::size_t k = 0; k < sizes.size(); ++k) diameter[k] = 2 * sizes[k];
    LevelGrids<D> grids(box, CellLevels<D>(box, diameter, count, default_level_ratio), n, true);
    const auto& levels = grids.levels();
    std::vector<Vec<D>> x(n);

    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t i, std::size_t j) { return radius[i] > radius[j]; });

    double goal = 0.0;
    for (const double a : radius) goal += ball_volume<D>(a);
    double space = box.volume(); // where centres go, for the packing fraction
    if (region) {
        space = 1.0;
        for (int a = 0; a < D; ++a)
            space *= std::min(region->high[a], box.length[a]) - std::max(region->low[a], 0.0);
    }
    goal /= space;
    std::size_t attempts = 0, placed = 0;
    double volume = 0.0;
    // What a user can do instead: a lattice, melted by equilibration.
    const std::string instead = fmt::format(
        "for a denser start use a lattice (init.lattice = {}) and melt it with run.equilibrate",
        D == 3 ? "\"fcc\" or \"sc\"" : "\"hex\" or \"square\"");
    const auto failure = [&](const std::string& why) {
        return InputError(fmt::format(
            "init.lattice = \"random\": random placement failed ({}), with {} of {} particles "
            "placed after {} attempts (packing fraction {:.4g} of the requested {:.4g}); this "
            "density is too high for random placement: {}",
            why, placed, n, attempts, volume / space, goal, instead));
    };
    // Equal particles jam at 0.3841 (3D) and 0.5472 (2D) under random sequential addition:
    // above that no number of attempts helps, and none is made (the message said "0 of N
    // placed after 0 attempts", as though it had tried; issue 43).
    const double jamming = D == 3 ? 0.3841 : 0.5472;
    if (largest == *std::min_element(radius.begin(), radius.end()) && goal > jamming)
        throw InputError(fmt::format(
            "init.lattice = \"random\": the requested packing fraction {:.4g} is above {}, where "
            "random placement (random sequential addition) of equal particles jams in {}D, so "
            "it was not tried; in practice it slows down well before ({}); {}",
            goal, jamming, D,
            D == 3 ? "about 1 attempt in 600 is accepted at 0.35"
                   : "about 1 attempt in 50 is accepted at 0.50",
            instead));

    // Near jamming the acceptance rate falls towards zero (about 1 in 35 attempts at 0.30
    // in 3D, 1 in 600 at 0.35; 1 in 50 at 0.50 in 2D): a budget of attempts bounds the time
    // spent on a hopeless request, and a running mean of the attempts per particle gives
    // up early once the remaining particles would clearly exceed it.
    const std::size_t budget = 300 * n + 100000;
    double mean_attempts = 1.0;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    // the triangles within the largest radius of each cell of the finest grid
    const TriangleCells<D> triangles(grids.grid(0), box.triangles, largest * (1.0 + 1e-9));

    for (const std::size_t i : order) {
        const double r = radius[i];
        const std::size_t level = levels.of_species()[size_of[i]];
        bool ok = false;
        Vec<D> p;
        const std::size_t before = attempts;
        while (!ok && attempts < budget) {
            ++attempts;
            // Uniform over the region the centre may occupy: all of a periodic axis,
            // [r + margin, L - r - margin] on a walled one.
            for (int a = 0; a < D; ++a) {
                const double length = box.length[a];
                double lo = box.periodic[a] ? 0.0 : r + 1e-9 * length;
                double hi = box.periodic[a] ? length : length - lo;
                if (region) lo = std::max(lo, region->low[a]), hi = std::min(hi, region->high[a]);
                p[a] = lo + (hi - lo) * unit(rng);
                if (box.periodic[a] && p[a] >= length) p[a] = 0.0;
            }
            ok = std::all_of(box.walls.begin(), box.walls.end(),
                             [&](const Wall<D>& w) { return w.distance(p) >= r; }) &&
                 std::all_of(box.segments.begin(), box.segments.end(),
                             [&](const Segment<D>& s) { return s.distance(p) >= r; });
            if (ok && !triangles.empty()) {
                const std::uint32_t c = grids.grid(0).cell_at(p);
                for (const auto* k = triangles.begin(c); ok && k != triangles.end(c); ++k)
                    ok = box.triangles[k->index].distance(p) >= r;
            }
            if (!ok) continue;
            for (std::size_t b = 0; ok && b < levels.size(); ++b)
                grids.for_each_cell(level, b, p, [&](std::uint32_t c, const Vec<D>& shift) {
                    const Cells<D>& cells = grids.grid(b);
                    for (const std::uint32_t* j = cells.begin(c); ok && j != cells.end(c); ++j) {
                        const double sigma = r + radius[*j];
                        // a hair of slack so round-off cannot turn contact into overlap
                        ok = norm2(p - x[*j] - shift) >= sigma * sigma * (1 + 1e-12);
                    }
                });
        }
        if (!ok) throw failure("attempt budget used up");
        x[i] = p;
        grids.grid(level).insert(static_cast<std::uint32_t>(i), grids.grid(level).cell_at(p));
        volume += ball_volume<D>(r);
        ++placed;
        mean_attempts += 0.01 * (static_cast<double>(attempts - before) - mean_attempts);
        if (static_cast<double>(attempts) + static_cast<double>(n - placed) * mean_attempts >
            static_cast<double>(budget))
            throw failure("the remaining particles would need more than the attempt budget");
    }
    spdlog::debug("random placement: {} particles in {} attempts", n, attempts);
    return x;
}

template std::vector<Vec<2>> random_packing<2>(const Box<2>&, const std::vector<double>&,
                                               std::mt19937_64&, const Region<2>*);
template std::vector<Vec<3>> random_packing<3>(const Box<3>&, const std::vector<double>&,
                                               std::mt19937_64&, const Region<3>*);

} // namespace choc
