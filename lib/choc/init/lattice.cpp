#include "choc/init/lattice.hpp"

#include "choc/errors.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numeric>

namespace choc {

namespace {

// A lattice in integer coordinates: site k_a (a = 0..D-1) sits at k_a * h_a along each
// axis, and one unit cell spans `sub` steps on every axis (so cell counts n_a give
// n_a * sub distinct coordinates per axis). `aspect` is the ideal cell shape.
template <int D>
struct Shape {
    int sub = 1;
    std::vector<std::array<int, D>> basis;     // sites of one cell, in steps
    std::array<double, D> aspect{};            // ideal cell edge ratios
    std::vector<std::array<int, D>> neighbour; // displacements (in steps) to nearest sites
};

template <int D>
Shape<D> shape_of(const std::string& name) {
    Shape<D> s;
    s.aspect.fill(1.0);
    if constexpr (D == 3) {
        if (name == "sc") {
            s.basis = {{0, 0, 0}};
            s.neighbour = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        } else { // fcc: cube corners and face centres; neighbours along face diagonals
            s.sub = 2;
            s.basis = {{0, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}};
            s.neighbour = {{1, 1, 0},  {1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {0, 1, 1},
                           {0, 1, -1}, {2, 0, 0},  {0, 2, 0}, {0, 0, 2}};
        }
    } else {
        if (name == "square") {
            s.basis = {{0, 0}};
            s.neighbour = {{1, 0}, {0, 1}};
        } else { // hex: rows spaced sqrt(3)/2 apart, odd rows shifted by half a spacing
            s.sub = 2;
            s.basis = {{0, 0}, {1, 1}};
            s.aspect = {1.0, std::sqrt(3.0)};
            s.neighbour = {{2, 0}, {1, 1}, {1, -1}, {0, 2}};
        }
    }
    return s;
}

// Cells per axis: the isotropic guess, from (sites per cell) * prod_a n_a = n with every
// cell edge L_a / n_a = c * aspect_a, rounded; then grown one cell at a time on the axis whose
// cells are most stretched until there are at least n sites.
template <int D>
std::array<std::size_t, D> cell_counts(const Shape<D>& s, const Box<D>& box, std::size_t n) {
    const double per_cell = static_cast<double>(s.basis.size());
    double shape_volume = 1.0;
    for (int a = 0; a < D; ++a) shape_volume *= box.length[a] / s.aspect[a];
    const double c = std::pow(per_cell * shape_volume / static_cast<double>(n), 1.0 / D);
    std::array<std::size_t, D> count{};
    for (int a = 0; a < D; ++a)
        count[a] = std::max<std::size_t>(
            1, static_cast<std::size_t>(std::lround(box.length[a] / (c * s.aspect[a]))));
    auto sites = [&] {
        std::size_t m = s.basis.size();
        for (int a = 0; a < D; ++a) m *= count[a];
        return m;
    };
    while (sites() < n) {
        int widest = 0;
        for (int a = 1; a < D; ++a)
            if (box.length[a] / (count[a] * s.aspect[a]) >
                box.length[widest] / (count[widest] * s.aspect[widest]))
                widest = a;
        ++count[widest];
    }
    return count;
}

// Nearest-neighbour distance sqrt(sum_a (delta_a h_a)^2) over the lattice's neighbour
// displacements; an axis with a single coordinate and no periodic image (h = inf) has
// no neighbours along it.
template <int D>
double nearest(const Shape<D>& s, const std::array<double, D>& h) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& d : s.neighbour) {
        double r2 = 0.0;
        for (int a = 0; a < D; ++a)
            if (d[a] != 0) r2 += d[a] * d[a] * h[a] * h[a];
        if (std::isfinite(r2)) best = std::min(best, std::sqrt(r2));
    }
    return best;
}

} // namespace

template <int D>
bool is_lattice(const std::string& name) {
    if constexpr (D == 3)
        return name == "fcc" || name == "sc";
    else
        return name == "hex" || name == "square";
}

template <int D>
std::vector<Vec<D>> lattice_sites(const std::string& lattice, const Box<D>& box, std::size_t n,
                                  double max_radius, double volume_sum, const std::string& key,
                                  std::mt19937_64& rng) {
    if (!is_lattice<D>(lattice))
        throw InputError(fmt::format("init.lattice: \"{}\" is not a {}D lattice (use {})", lattice,
                                     D, D == 3 ? "fcc, sc" : "hex, square"));
    if (n == 0) return {};
    const Shape<D> s = shape_of<D>(lattice);
    const auto count = cell_counts<D>(s, box, n);

    // Step length per axis and the coordinate of step 0. Periodic: steps of L / K over K
    // coordinates, centred in their slots. Walled: K coordinates spread evenly from
    // lo = r + margin to hi = L - r - margin (a single one sits in the middle).
    std::array<double, D> h{}, origin{};
    for (int a = 0; a < D; ++a) {
        const std::size_t k = count[a] * static_cast<std::size_t>(s.sub);
        const double length = box.length[a];
        if (box.periodic[a]) {
            h[a] = length / static_cast<double>(k);
            origin[a] = 0.5 * h[a];
            continue;
        }
        const double lo = max_radius + 1e-9 * length, hi = length - lo;
        if (hi < lo)
            throw InputError(fmt::format("{}: the walled box edge {} is narrower than the largest "
                                         "particle diameter {}",
                                         key, length, 2 * max_radius));
        h[a] = k > 1 ? (hi - lo) / static_cast<double>(k - 1)
                     : std::numeric_limits<double>::infinity();
        origin[a] = k > 1 ? lo : 0.5 * length;
    }

    std::size_t cells = 1;
    for (int a = 0; a < D; ++a) cells *= count[a];
    const std::size_t total = cells * s.basis.size();

    const double nn = nearest<D>(s, h), diameter = 2 * max_radius;
    if (nn < diameter) {
        // Scaling the box by lambda scales the site spacing by lambda and the packing
        // fraction by lambda^-D, so the densest fit is phi (nn / diameter)^D (exact for a
        // periodic box, close with walls, whose margins do not scale).
        const double phi = volume_sum / box.volume();
        throw InputError(fmt::format(
            "{}: too dense for the {} lattice: with {} sites for {} particles neighbouring sites "
            "are {:.6g} apart, less "
            "than the largest diameter {:.6g} (packing fraction {:.6g}); this lattice allows a "
            "packing fraction of at most about {:.4g} for these particles",
            key, lattice, total, n, nn, diameter, phi, phi * std::pow(nn / diameter, D)));
    }

    // Keep a random n of the sites (std::sample keeps lattice order).
    std::vector<std::size_t> all(total), keep;
    std::iota(all.begin(), all.end(), std::size_t{0});
    keep.reserve(n);
    std::sample(all.begin(), all.end(), std::back_inserter(keep), n, rng);

    std::vector<Vec<D>> sites;
    sites.reserve(n);
    for (const std::size_t index : keep) {
        std::size_t cell = index / s.basis.size();
        const auto& b = s.basis[index % s.basis.size()];
        Vec<D> x;
        for (int a = 0; a < D; ++a) {
            const std::size_t k = (cell % count[a]) * s.sub + b[a];
            cell /= count[a];
            x[a] = origin[a] + static_cast<double>(k) * (std::isfinite(h[a]) ? h[a] : 0.0);
        }
        sites.push_back(x);
    }
    return sites;
}

template bool is_lattice<2>(const std::string&);
template bool is_lattice<3>(const std::string&);
template std::vector<Vec<2>> lattice_sites<2>(const std::string&, const Box<2>&, std::size_t,
                                              double, double, const std::string&, std::mt19937_64&);
template std::vector<Vec<3>> lattice_sites<3>(const std::string&, const Box<3>&, std::size_t,
                                              double, double, const std::string&, std::mt19937_64&);

} // namespace choc
