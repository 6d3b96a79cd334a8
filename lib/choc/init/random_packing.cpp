#include "random_packing.hpp"

#include "../cells.hpp"
#include "../errors.hpp"
#include "ball_volume.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace choc {

template <int D>
std::vector<Vec<D>> random_packing(const Box<D>& box, const std::vector<double>& radius,
                                   std::mt19937_64& rng) {
    const std::size_t n = radius.size();
    if (n == 0) return {};
    const double largest = *std::max_element(radius.begin(), radius.end());

    // Cells at least one largest diameter wide: a new particle can only overlap particles
    // in its own or the neighbouring cells.
    Cells<D> cells(box, 2 * largest, n);
    std::vector<Vec<D>> x(n);

    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t i, std::size_t j) { return radius[i] > radius[j]; });

    // Each attempt costs O(1); near the jamming limit the acceptance rate falls towards
    // zero, so a fixed budget bounds the time spent on a hopeless request.
    const std::size_t budget = 1000 * n + 100000;
    std::size_t attempts = 0, placed = 0;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::array<typename Cells<D>::Neighbour, 27> near;
    double volume = 0.0;

    for (const std::size_t i : order) {
        const double r = radius[i];
        bool ok = false;
        Vec<D> p;
        while (!ok && attempts < budget) {
            ++attempts;
            // Uniform over the region the centre may occupy: all of a periodic axis,
            // [r + margin, L - r - margin] on a walled one.
            for (int a = 0; a < D; ++a) {
                const double length = box.length[a];
                const double lo = box.periodic[a] ? 0.0 : r + 1e-9 * length;
                const double hi = box.periodic[a] ? length : length - lo;
                p[a] = lo + (hi - lo) * unit(rng);
                if (box.periodic[a] && p[a] >= length) p[a] = 0.0;
            }
            ok = std::all_of(box.walls.begin(), box.walls.end(),
                             [&](const Wall<D>& w) { return w.distance(p) >= r; });
            if (!ok) continue;
            const int k = cells.neighbours(cells.cell_at(p), near.data());
            for (int c = 0; ok && c < k; ++c)
                for (const std::uint32_t* j = cells.begin(near[c].cell);
                     ok && j != cells.end(near[c].cell); ++j) {
                    const double sigma = r + radius[*j];
                    // a hair of slack so round-off cannot turn contact into overlap
                    ok = norm2(p - x[*j] - near[c].shift) >= sigma * sigma * (1 + 1e-12);
                }
        }
        if (!ok) {
            const double phi_goal = [&] {
                double v = 0.0;
                for (const double a : radius) v += ball_volume<D>(a);
                return v / box.volume();
            }();
            throw InputError(fmt::format(
                "init.lattice = \"random\": random placement failed after {} attempts, with {} "
                "of {} particles placed (packing fraction {:.4g} of the requested {:.4g}); this "
                "density is too high for random placement, use a lattice (init.lattice = {})",
                attempts, placed, n, volume / box.volume(), phi_goal,
                D == 3 ? "\"fcc\" or \"sc\"" : "\"hex\" or \"square\""));
        }
        x[i] = p;
        cells.insert(static_cast<std::uint32_t>(i), cells.cell_at(p));
        volume += ball_volume<D>(r);
        ++placed;
    }
    return x;
}

template std::vector<Vec<2>> random_packing<2>(const Box<2>&, const std::vector<double>&,
                                               std::mt19937_64&);
template std::vector<Vec<3>> random_packing<3>(const Box<3>&, const std::vector<double>&,
                                               std::mt19937_64&);

} // namespace choc
