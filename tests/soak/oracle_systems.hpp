// The systems of the differential oracle: one builder per family, each a function of
// (seed, N) alone, so that one command line reproduces a run. Small N (8-200) on purpose:
// boxes of three cells per periodic axis, cells holding one particle, periodic images of
// neighbours, and frequent renumbering are what the engine's long-lived state is made of.
//
// Builders go through the library's starting-state code (Config -> make_initial_state:
// lattices, random sequential addition, walls, segments, Maxwell velocities), except the
// lattice starts of the `groups` families, which need exact coordinates and velocities so
// that many collisions happen at exactly the same instant.
#pragma once

#include <choc/errors.hpp>
#include <choc/init/initial_state.hpp>
#include <choc/kernel/predict.hpp> // never
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>

#include "scan_case.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace oracle {

using choc::never;
using choc::Vec;

template <int D>
struct System {
    choc::Box<D> box;
    choc::Particles<D> particles;
    choc::EngineSettings settings;
    bool field = false; // Field motion (gravity and/or drag) instead of straight lines
    Vec<D> gravity;
    double drag = 0.0;
    double time_limit = never; // gravity with drag: stop before the pile crawls to rest
};

namespace detail {

inline double uniform(std::mt19937_64& rng, double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
}
inline bool coin(std::mt19937_64& rng, double p = 0.5) {
    return uniform(rng, 0.0, 1.0) < p;
}

template <int D>
double ball_volume(double r) {
    return D == 3 ? 4.0 / 3.0 * std::numbers::pi * r * r * r : std::numbers::pi * r * r;
}

// The largest packing fraction whose cubic box keeps every edge >= 3 largest diameters
// (the engine's periodic minimum), for the given species.
template <int D>
double particle_volume(const choc::Config& c) {
    double volume = 0.0;
    for (const auto& s : c.species)
        volume += static_cast<double>(s.count) * ball_volume<D>(s.radius);
    return volume;
}

template <int D>
double fitting_fraction(const choc::Config& c) {
    double diameter = 0.0;
    for (const auto& s : c.species) diameter = std::max(diameter, 2.0 * s.radius);
    return particle_volume<D>(c) / std::pow(3.0 * diameter, D);
}

// The edge of the cubic box the packing fraction will give (known exactly only after
// realise); features placed relative to it stay valid for any edge.
template <int D>
double expected_edge(const choc::Config& c) {
    const double v = particle_volume<D>(c) / *c.packing_fraction;
    return D == 2 ? std::sqrt(v) : std::pow(v, 1.0 / D);
}

// A 2D segment with random ends, one largest diameter (1) clear of periodic faces, as the
// config demands.
inline choc::WallConfig random_segment(const choc::Config& c, std::mt19937_64& rng, double edge) {
    choc::WallConfig w;
    for (auto* end : {&w.from, &w.to})
        for (int a = 0; a < 2; ++a) {
            const double margin = c.periodic[static_cast<std::size_t>(a)] ? 1.0 : 0.0;
            end->push_back(uniform(rng, margin, edge - margin));
        }
    return w;
}

// N particles split over `kinds` species: the first of radius 0.5 and mass 1, the others
// smaller by a diameter ratio up to `ratio` and lighter or heavier by up to 10 in mass.
inline void add_species(choc::Config& c, std::mt19937_64& rng, int n, int kinds, double ratio) {
    std::vector<int> count(static_cast<std::size_t>(kinds), 1);
    for (int k = kinds; k < n; ++k) ++count[rng() % static_cast<std::size_t>(kinds)];
    for (int s = 0; s < kinds; ++s) {
        choc::SpeciesConfig sp;
        sp.name = "S" + std::to_string(s);
        sp.count = static_cast<std::uint64_t>(count[static_cast<std::size_t>(s)]);
        sp.radius = s == 0 ? 0.5 : 0.5 / uniform(rng, 1.0, ratio);
        sp.mass = s == 0 ? 1.0 : std::pow(10.0, uniform(rng, -1.0, 1.0));
        c.species.push_back(sp);
    }
}

// Walled axes: each with probability p_wall, at least `at_least` of them (the first ones).
template <int D>
void choose_boundary(choc::Config& c, std::mt19937_64& rng, double p_wall, int at_least) {
    c.periodic.assign(D, true);
    int walled = 0;
    for (int a = 0; a < D; ++a)
        if (coin(rng, p_wall)) c.periodic[static_cast<std::size_t>(a)] = false, ++walled;
    for (int a = 0; walled < at_least && a < D; ++a)
        if (c.periodic[static_cast<std::size_t>(a)])
            c.periodic[static_cast<std::size_t>(a)] = false, ++walled;
}

// A plane cutting off a corner between two walled axes a and b of the box (edge L): the
// normal lies in their plane, so no periodic axis sees it (a tilted plane across a
// periodic axis would meet each image of a particle differently).
template <int D>
choc::WallConfig corner_plane(std::mt19937_64& rng, int a, int b, double L, double restitution) {
    choc::WallConfig w;
    const double theta = uniform(rng, 0.3, 1.27);
    w.normal.assign(D, 0.0);
    w.point.assign(D, 0.0);
    const bool high = coin(rng);
    w.normal[static_cast<std::size_t>(a)] = high ? -std::cos(theta) : std::cos(theta);
    w.normal[static_cast<std::size_t>(b)] = high ? -std::sin(theta) : std::sin(theta);
    w.point[static_cast<std::size_t>(a)] =
        high ? L * (1.0 - uniform(rng, 0.1, 0.25)) : L * uniform(rng, 0.1, 0.25);
    w.point[static_cast<std::size_t>(b)] = high ? L : 0.0;
    w.restitution = restitution;
    return w;
}

// Builds the start, lowering the packing fraction by 10 % while random sequential
// addition (or the lattice) cannot place everything: the result depends on (seed, N) only.
template <int D>
System<D> system_of(const choc::Config& c, choc::InitialState<D> st) {
    System<D> s;
    s.box = std::move(st.box);
    s.particles = std::move(st.particles);
    s.settings = choc::engine_settings(c);
    if (!c.gravity.empty() || c.drag > 0.0) {
        s.field = true;
        for (int a = 0; a < D && !c.gravity.empty(); ++a)
            s.gravity[a] = c.gravity[static_cast<std::size_t>(a)];
        s.drag = c.drag;
    }
    return s;
}

template <int D>
System<D> realise(choc::Config c, std::mt19937_64& rng) {
    c.dimension = D;
    c.seed = rng();
    for (int attempt = 0;; ++attempt) {
        try {
            return system_of<D>(c, choc::make_initial_state<D>(c));
        } catch (const choc::InputError&) {
            if (attempt == 40) throw;
            *c.packing_fraction *= 0.9;
        }
    }
}

// Inelastic settings: e per pair of species, a quarter of the time 0 (plastic: the pair
// is left at contact with a normal velocity that is round-off, the case of the engine's
// zero-time rule and of its round-off-overlap rule in the batched pair test), else in
// [0.5, 0.95]; and the TC model with tc from 1e-4 to 1e-2 of the time a thermal particle
// takes to cross a diameter, which stops an inelastic collapse long before the event
// rate explodes.
inline void inelastic(choc::Config& c, std::mt19937_64& rng) {
    auto e = [&] { return coin(rng, 0.25) ? 0.0 : uniform(rng, 0.5, 0.95); };
    const auto n = static_cast<std::uint32_t>(c.species.size());
    c.restitution = e();
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = a; b < n; ++b)
            if (coin(rng)) c.pair_restitution.push_back({a, b, e()});
    c.tc = std::pow(10.0, uniform(rng, -4.0, -2.0));
}

} // namespace detail

// ---- families ------------------------------------------------------------------------

// One species in a periodic box, dilute to dense: random sequential addition up to 0.3
// (0.45 in 2D), a lattice above (fcc in 3D up to 0.49, hex in 2D up to 0.70).
template <int D>
System<D> gas(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1, 1.0);
    const double top = std::min(D == 3 ? 0.49 : 0.70, detail::fitting_fraction<D>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    c.lattice = *c.packing_fraction < (D == 3 ? 0.3 : 0.45) ? "random" : D == 3 ? "fcc" : "hex";
    return detail::realise<D>(c, rng);
}

// Two or three species, diameter ratio up to 3, mass ratio up to 10; periodic.
template <int D>
System<D> mixture(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 2 + static_cast<int>(rng() % 2), 3.0);
    const double top = std::min(D == 3 ? 0.3 : 0.45, detail::fitting_fraction<D>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    c.lattice = "random";
    return detail::realise<D>(c, rng);
}

// Size-disperse mixtures: a few large particles among many small ones, diameter ratio 3
// to 10; periodic, or walled on some axes. The engine gives each size its own cell grid
// (cell_levels.hpp): small particles find the large ones in the coarse grid, large ones
// scan the block of the fine grid within their reach, and both grids' crossings are
// cell events.
template <int D>
System<D> levels(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 2, 1.0);
    const auto large = 1 + rng() % static_cast<std::uint64_t>(std::max(1, n / 8));
    c.species[0].count = large;
    c.species[1].count = static_cast<std::uint64_t>(n) - large;
    c.species[1].radius = 0.5 / detail::uniform(rng, 3.0, 10.0);
    if (detail::coin(rng)) detail::choose_boundary<D>(c, rng, 0.5, 1);
    const double top = std::min(D == 3 ? 0.3 : 0.45, detail::fitting_fraction<D>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    c.lattice = "random";
    return detail::realise<D>(c, rng);
}

// The scheduler's worst case: small 3D mixtures (two species, diameter ratio 2 to 3, mass
// ratio up to 10) at packing fraction 0.12 to 0.28, where stale predictions, runner-up
// promotions and cell crossings (the small particles cross cells sized for the large
// ones) all come often. Chosen by re-introducing the runner-up bug of issue 10 (a
// promoted runner-up forgetting the horizon of its scan): it missed a collision about
// once per 2e5 here, against once per 1e6 or more in one-species gases, 2D, or
// packing fractions of 0.1 or 0.3.
inline System<3> scheduler(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 2, 3.0);
    if (c.species[1].radius > 0.25) c.species[1].radius = 0.25; // a ratio of 2 at least
    const double top = std::min(0.28, detail::fitting_fraction<3>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.12, top), top);
    c.lattice = "random";
    return detail::realise<3>(c, rng);
}

// Hard box walls on some axes (at least one) and extra planes cutting corners; walls
// elastic or inelastic (then the TC model is on); one or two species.
template <int D>
System<D> walls(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1 + static_cast<int>(rng() % 2), 2.0);
    detail::choose_boundary<D>(c, rng, 0.5, 1);
    const double top = std::min(0.3, detail::fitting_fraction<D>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    c.lattice = "random";
    auto restitution = [&] { return detail::coin(rng) ? 1.0 : detail::uniform(rng, 0.7, 1.0); };
    c.wall_restitution = restitution();
    // the box edge is only known after realise; the corner planes are placed relative to
    // an estimate of it (any edge fraction is valid: the planes just cut smaller corners)
    const double edge = detail::expected_edge<D>(c);
    std::vector<int> walled;
    for (int a = 0; a < D; ++a)
        if (!c.periodic[static_cast<std::size_t>(a)]) walled.push_back(a);
    const int planes = walled.size() >= 2 ? static_cast<int>(rng() % 3) : 0;
    for (int k = 0; k < planes; ++k) {
        const int a = walled[rng() % walled.size()];
        int b = walled[rng() % walled.size()];
        while (b == a) b = walled[rng() % walled.size()];
        c.walls.push_back(detail::corner_plane<D>(rng, a, b, edge, restitution()));
    }
    if (c.wall_restitution < 1.0 || planes > 0) c.tc = 1e-3;
    return detail::realise<D>(c, rng);
}

// 2D segments (one to four, random ends, either side reachable), in a box with any
// boundary; elastic or inelastic (TC on).
inline System<2> segments(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1 + static_cast<int>(rng() % 2), 2.0);
    detail::choose_boundary<2>(c, rng, 0.5, 0);
    const double top = std::min(0.3, detail::fitting_fraction<2>(c));
    // segments take room: a box a bit larger than the packing fraction says
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    const double edge = detail::expected_edge<2>(c);
    const int count = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < count; ++k) {
        choc::WallConfig w = detail::random_segment(c, rng, edge);
        w.restitution = detail::coin(rng) ? 1.0 : detail::uniform(rng, 0.7, 1.0);
        if (w.restitution < 1.0) c.tc = 1e-3;
        c.walls.push_back(w);
    }
    c.lattice = "random";
    return detail::realise<2>(c, rng);
}

// Gravity (slightly tilted off the last axis) with walls on that axis; other axes walled
// or periodic; elastic (an inelastic pile under gravity would crawl to rest). 2D adds
// segments (funnels); 3D sometimes adds drag, and then stops after 3 / drag (the bounces
// on the floor shorten without end).
template <int D>
System<D> gravity(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1 + static_cast<int>(rng() % 2), 2.0);
    detail::choose_boundary<D>(c, rng, 0.5, 0);
    c.periodic[D - 1] = false;
    const double top = std::min(0.3, detail::fitting_fraction<D>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    c.gravity.assign(D, 0.0);
    const double g = detail::uniform(rng, 0.2, 2.0);
    c.gravity[D - 1] = -g;
    c.gravity[0] = g * detail::uniform(rng, -0.2, 0.2);
    if (D == 3 && detail::coin(rng)) c.drag = detail::uniform(rng, 0.01, 0.1);
    if constexpr (D == 2) {
        const double edge = detail::expected_edge<2>(c);
        const int count = static_cast<int>(rng() % 3);
        for (int k = 0; k < count; ++k) c.walls.push_back(detail::random_segment(c, rng, edge));
    }
    c.lattice = "random";
    System<D> s = detail::realise<D>(c, rng);
    if (c.drag > 0.0) s.time_limit = 3.0 / c.drag;
    return s;
}

// 3D triangles: up to three loose ones (random vertices) and, at least when there is no
// loose one, a strip of triangles sharing edges, zig-zagging along x and folded in z (a
// mesh's ridges and valleys), one largest diameter clear of periodic faces as the config
// demands; any boundary. One run in four: gravity (slightly tilted) along a walled last
// axis, with drag half of those (stopped after 3 / drag), elastic; one in four: epsilon > 0,
// so that contacts at a strip's shared edges go through the group rule; one in four:
// gravity, inelastic with TC and epsilon > 0, a pile settling on the triangles in groups of
// touching contacts (the touching rule); else, half the time, inelastic with TC and lossy
// triangles. OneSided: every wall one-sided, each facing either way (a coin flips its
// triangles' vertex order), so that spheres pass through from behind between contacts.
template <bool OneSided = false>
System<3> triangles(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1 + static_cast<int>(rng() % 2), 2.0);
    detail::choose_boundary<3>(c, rng, 0.5, 0);
    const int variant = static_cast<int>(rng() % 4);
    if (variant == 0 || variant == 3) {
        c.periodic[2] = false;
        const double g = detail::uniform(rng, 0.2, 2.0);
        c.gravity = {g * detail::uniform(rng, -0.2, 0.2), g * detail::uniform(rng, -0.2, 0.2), -g};
        if (variant == 0 && detail::coin(rng)) c.drag = detail::uniform(rng, 0.01, 0.1);
        if (variant == 3) { // a pile settling on the triangles: groups of touching contacts
            c.epsilon = 1e-10;
            detail::inelastic(c, rng);
        }
    } else if (variant == 1) {
        c.epsilon = 1e-10;
    } else if (detail::coin(rng)) {
        detail::inelastic(c, rng);
    }
    const double top = std::min(0.25, detail::fitting_fraction<3>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    const double edge = detail::expected_edge<3>(c);
    // a point of the box from fractions of its edge, clear of periodic faces
    auto at = [&](std::array<double, 3> f) {
        std::array<double, 3> x{};
        for (std::size_t a = 0; a < 3; ++a) {
            const double margin = c.periodic[a] ? 1.0 : 0.0;
            x[a] = margin + (edge - 2.0 * margin) * f[a];
        }
        return x;
    };
    auto restitution = [&] {
        return c.tc > 0.0 && detail::coin(rng) ? detail::uniform(rng, 0.5, 1.0) : 1.0;
    };
    const int loose = static_cast<int>(rng() % 4);
    for (int k = 0; k < loose; ++k) {
        choc::WallConfig w;
        std::array<std::array<double, 3>, 3> t;
        for (auto& v : t)
            v = at({detail::uniform(rng, 0.0, 1.0), detail::uniform(rng, 0.0, 1.0),
                    detail::uniform(rng, 0.0, 1.0)});
        w.triangles.push_back(t);
        w.restitution = restitution();
        c.walls.push_back(w);
    }
    if (loose == 0 || detail::coin(rng)) {
        const int m = 2 + static_cast<int>(rng() % 6);
        const double y0 = detail::uniform(rng, 0.0, 0.5), y1 = y0 + detail::uniform(rng, 0.2, 0.5);
        const double z = detail::uniform(rng, 0.2, 0.8), fold = detail::uniform(rng, -0.15, 0.15);
        auto corner = [&](int i, double y) {
            return at({double(i) / m, y, z + (i % 2 ? fold : 0.0)});
        };
        choc::WallConfig w;
        for (int i = 0; i < m; ++i) {
            w.triangles.push_back({corner(i, y0), corner(i + 1, y0), corner(i + 1, y1)});
            w.triangles.push_back({corner(i, y0), corner(i + 1, y1), corner(i, y1)});
        }
        w.restitution = restitution();
        c.walls.push_back(w);
    }
    if constexpr (OneSided)
        for (auto& w : c.walls) {
            w.one_sided = true;
            if (detail::coin(rng))
                for (auto& t : w.triangles) std::swap(t[1], t[2]);
        }
    c.lattice = "random";
    System<3> s = detail::realise<3>(c, rng);
    if (c.drag > 0.0) s.time_limit = 3.0 / c.drag;
    return s;
}

// 3D flat meshes, which the engine takes as flat patches (triangle_cells.hpp: one plane for
// all of a cell's coplanar triangles) where the reference looks at every triangle: some of
// the faces of the cube [1.3, L - 1.3]³, each
// tiled by m x m squares of two triangles (m from 1 to 3, either diagonal, either normal),
// and one run in two a tiled square plate across the middle, met from both sides. Faces
// left open let spheres round the lining's rims and meet it from behind. In a lossy run
// the plate is two walls half the time, its halves of different restitution (no patch
// may join them); one run in three has a hole, a triangle left out (the cells over it
// must keep theirs loose). Variants as `triangles`: gravity (with drag half the time) along a
// walled last axis, elastic; epsilon > 0; a pile settling on the floor under gravity,
// inelastic with TC and epsilon > 0; else, half the time, inelastic with TC.
inline System<3> flat_meshes(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1 + static_cast<int>(rng() % 2), 2.0);
    detail::choose_boundary<3>(c, rng, 0.5, 0);
    const int variant = static_cast<int>(rng() % 4);
    if (variant == 0 || variant == 2) {
        c.periodic[2] = false;
        const double g = detail::uniform(rng, 0.2, 2.0);
        c.gravity = {g * detail::uniform(rng, -0.2, 0.2), g * detail::uniform(rng, -0.2, 0.2), -g};
        if (variant == 0 && detail::coin(rng)) c.drag = detail::uniform(rng, 0.01, 0.1);
        if (variant == 2) c.epsilon = 1e-10, detail::inelastic(c, rng);
    } else if (variant == 1) {
        c.epsilon = 1e-10;
    } else if (detail::coin(rng)) {
        detail::inelastic(c, rng);
    }
    // dilute (up to 0.12): a box many cells wide, so that most cells by a face see only it
    const double top = std::min(0.12, detail::fitting_fraction<3>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    const double edge = detail::expected_edge<3>(c);
    auto restitution = [&] {
        return c.tc > 0.0 && detail::coin(rng) ? detail::uniform(rng, 0.5, 1.0) : 1.0;
    };
    using Point = std::array<double, 3>;
    using Facet = std::array<Point, 3>;
    // the square [lo, hi]² at `level` across `axis`, m x m squares of two triangles
    auto tiles = [&](int axis, double level, double lo, double hi, int m) {
        const int u = (axis + 1) % 3, w = (axis + 2) % 3;
        const bool other_diagonal = detail::coin(rng), flipped = detail::coin(rng);
        std::vector<Facet> out;
        auto at = [&](int i, int j) {
            Point p{};
            p[static_cast<std::size_t>(axis)] = level;
            p[static_cast<std::size_t>(u)] = lo + (hi - lo) * i / m;
            p[static_cast<std::size_t>(w)] = lo + (hi - lo) * j / m;
            return p;
        };
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) {
                const Point a = at(i, j), b = at(i + 1, j), cc = at(i + 1, j + 1), d = at(i, j + 1);
                const std::array<Facet, 2> two =
                    other_diagonal ? std::array<Facet, 2>{Facet{a, b, d}, Facet{b, cc, d}}
                                   : std::array<Facet, 2>{Facet{a, b, cc}, Facet{a, cc, d}};
                for (Facet f : two) {
                    if (flipped) std::swap(f[1], f[2]);
                    out.push_back(f);
                }
            }
        return out;
    };
    std::vector<std::vector<Facet>> walls;
    std::vector<double> wall_restitution;
    // one restitution for the whole lining: where two faces meet, a sphere rounding their
    // edge from outside meets both at one instant, and which restitution applies is then
    // a tie either simulation may break its own way
    const double lining = restitution();
    // 1.3 clear of the box's faces: clear of periodic faces by more than a diameter, and
    // the slot left beside a plane wall wider than any particle (one exactly as wide
    // holds a sphere that touches both, bouncing between them at round-off distance)
    const double lo = 1.3, hi = edge - 1.3;
    for (int axis = 0; axis < 3; ++axis)
        for (const double level : {lo, hi}) {
            if (!detail::coin(rng, 0.6)) continue;
            walls.push_back(tiles(axis, level, lo, hi, 1 + static_cast<int>(rng() % 3)));
            wall_restitution.push_back(lining);
        }
    if (walls.empty() || detail::coin(rng)) { // a plate across the middle
        const double mid = 0.5 * edge, half = detail::uniform(rng, 0.15, 0.35) * edge;
        const auto facets =
            tiles(2, mid + detail::uniform(rng, -0.1, 0.1) * edge, std::max(lo, mid - half),
                  std::min(hi, mid + half), 1 + static_cast<int>(rng() % 3));
        if (facets.size() >= 4 && detail::coin(rng)) { // two walls, a half each
            const auto split = static_cast<std::ptrdiff_t>(facets.size() / 2);
            walls.emplace_back(facets.begin(), facets.begin() + split);
            walls.emplace_back(facets.begin() + split, facets.end());
            wall_restitution.push_back(restitution());
            wall_restitution.push_back(restitution());
        } else {
            walls.push_back(facets);
            wall_restitution.push_back(restitution());
        }
    }
    if (detail::coin(rng, 1.0 / 3.0)) { // a hole
        auto& w = walls[rng() % walls.size()];
        if (w.size() > 1) w.erase(w.begin() + static_cast<std::ptrdiff_t>(rng() % w.size()));
    }
    for (std::size_t k = 0; k < walls.size(); ++k) {
        choc::WallConfig w;
        w.triangles = walls[k];
        w.restitution = wall_restitution[k];
        c.walls.push_back(w);
    }
    c.lattice = "random";
    System<3> s = detail::realise<3>(c, rng);
    if (c.drag > 0.0) s.time_limit = 3.0 / c.drag;
    return s;
}

// Linear drag alone in a periodic (or partly walled) box: the gas slows down
// exponentially; runs end once it has lost most of its energy.
template <int D>
System<D> drag(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1 + static_cast<int>(rng() % 2), 2.0);
    detail::choose_boundary<D>(c, rng, 0.3, 0);
    const double top = std::min(0.3, detail::fitting_fraction<D>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    c.drag = std::pow(10.0, detail::uniform(rng, -3.0, -1.0));
    c.lattice = "random";
    return detail::realise<D>(c, rng);
}

// Inelastic collisions with restitution per pair of species and per wall, the TC model
// on; periodic or walled; runs end once the gas has cooled.
template <int D>
System<D> inelastic_gas(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    choc::Config c;
    detail::add_species(c, rng, n, 1 + static_cast<int>(rng() % 2), 2.0);
    detail::choose_boundary<D>(c, rng, 0.3, 0);
    const double top = std::min(0.3, detail::fitting_fraction<D>(c));
    c.packing_fraction = detail::uniform(rng, std::min(0.02, top), top);
    detail::inelastic(c, rng);
    c.wall_restitution = detail::uniform(rng, 0.5, 1.0);
    c.lattice = "random";
    return detail::realise<D>(c, rng);
}

// Simultaneous collisions (epsilon > 0): a simple cubic (square) lattice with exact
// coordinates and exact velocities along the first axis, row by row in patterns that make
// whole sets of collisions happen at exactly the same instant: (+1, 0, -1) triplets (two
// contacts on the middle particle), (+1, -1) pairs, one striker and the rest at rest, or
// random among +1, -1, 0, 1/2. A random few particles get Maxwell velocities, which melts
// the lattice into a fluid over the run. Masses 1 or 2; e = 1, or 1/2 with TC.
//
// Two variants:
//   `touching` (in the slices): half the time the spacing along the first axis is one
//     diameter, so the rows are chains of touching particles (Newton's cradles, and
//     contacts with the walls when that axis is walled). Bodies a group leaves touching
//     at relative rest made a step repeat without end at one instant until issue 40
//     (resting_contacts.hpp).
//   `aligned`: the lattice is not shifted by 5/16 of a spacing, so collisions happen
//     exactly when particles cross a boundary of the engine's cell grid (cells one
//     diameter wide meet the lattice's midpoints). Until issue 40 the engine failed it
//     twice over: a crossing due inside the epsilon window was put back for after the
//     step, and a pair event of that particle behind it left out of the group (now
//     group_step.hpp look_past); and a striker round a small periodic box that met its
//     last partner again, exactly at a crossing, was skipped as "just collided"
//     (Engine::just_met). Both families are in the slices since.
template <int D, bool touching = false, bool aligned = false>
System<D> groups(std::uint64_t seed, int n) {
    std::mt19937_64 rng(seed);
    System<D> s;
    const bool heavy = detail::coin(rng);
    s.particles.table = choc::SpeciesTable({{"A", 0.5, 1.0}, {"B", 0.5, heavy ? 2.0 : 1.0}});
    int k = 1;
    while (std::pow(k, D) < n) ++k;
    std::array<double, D> spacing;
    const double wider[] = {1.125, 1.25, 1.5, 2.0};
    for (int a = 0; a < D; ++a) {
        double sp = a == 0 && touching && detail::coin(rng) ? 1.0 : wider[rng() % 4];
        while (k * sp < 3.0) sp *= 2.0; // a periodic edge of three diameters at least
        spacing[static_cast<std::size_t>(a)] = sp;
    }
    const bool walled = detail::coin(rng);
    for (int a = 0; a < D; ++a) {
        s.box.periodic[a] = !(walled && a == 0);
        s.box.length[a] = k * spacing[static_cast<std::size_t>(a)];
        // the shifted lattice on a walled axis: its last site (k - 3/16) s clear of the wall
        if (!aligned && !s.box.periodic[a]) s.box.length[a] += 0.5;
    }
    // a quarter diameter to spare along a first axis of touching rows: a full row (a ring
    // through the periodic boundary, or wall to wall) is jammed, and its collisions
    // repeat without end at one instant, in both simulations
    if (spacing[0] == 1.0) s.box.length[0] += 0.25;
    choc::add_box_walls(s.box, 1.0);
    std::vector<int> sites(static_cast<std::size_t>(std::pow(k, D)));
    for (std::size_t m = 0; m < sites.size(); ++m) sites[m] = static_cast<int>(m);
    std::shuffle(sites.begin(), sites.end(), rng);
    sites.resize(static_cast<std::size_t>(n));
    std::sort(sites.begin(), sites.end());
    const double thermal = detail::uniform(rng, 0.0, 0.2);
    // a velocity pattern per row (a line of sites along the first axis):
    // 0: +1, 0, -1 triplets; 1: +1, -1 pairs; 2: a striker and the rest at rest; 3: random
    std::vector<int> pattern(static_cast<std::size_t>(std::pow(k, D - 1)));
    for (auto& p : pattern) p = static_cast<int>(rng() % 4);
    const double random_values[] = {1.0, -1.0, 0.0, 0.5};
    std::normal_distribution<double> gauss;
    for (const int site : sites) {
        Vec<D> x, v;
        for (int a = 0, rest = site; a < D; ++a, rest /= k)
            x[a] = (rest % k + (aligned ? 0.5 : 0.8125)) * spacing[static_cast<std::size_t>(a)];
        const int m = site % k; // place along the first axis, within its row
        const int row = pattern[static_cast<std::size_t>(site / k)];
        v[0] = row == 0   ? 1.0 - m % 3
               : row == 1 ? (m % 2 == 0 ? 1.0 : -1.0)
               : row == 2 ? (m == 0 ? 1.0 : 0.0)
                          : random_values[rng() % 4];
        if (detail::coin(rng, thermal))
            for (int a = 0; a < D; ++a) v[a] = gauss(rng);
        s.particles.add(x, v, static_cast<std::uint32_t>(rng() % 2));
    }
    s.settings.restitution = detail::coin(rng) ? 1.0 : 0.5;
    if (s.settings.restitution < 1.0) s.settings.tc = 1e-3;
    // Far below a mean free time (the README's advice), far above the round-off of the
    // lattice's exact collision times (zero).
    s.settings.epsilon = 1e-10;
    return s;
}

// Settling piles of 200 to 2000 discs or spheres (N as the family picks it): the seed
// scan's pile family (scan_piles.cpp: floors, tilted planes, vees, segments, triangles;
// a gas or a lattice dropped onto them; e from 0 to 1, TC, epsilon in {0, 1e-10, 1e-9,
// 1e-6}, drag in some), drawn by the same code from the same seed, without the rest model,
// which the reference does not have (draw_oracle_pile). Runs with drag stop at 3 / drag,
// as gravity's do, before the pile crawls to rest.
template <int D>
System<D> piles(std::uint64_t seed, int n) {
    const scan::Params p = scan::draw_oracle_pile(seed, {D, static_cast<std::uint64_t>(n)});
    const choc::Config c = choc::parse_config(scan::config_text(p), "oracle pile");
    choc::InitialState<D> st = choc::make_initial_state<D>(c);
    scan::place(p, st.particles);
    System<D> s = detail::system_of<D>(c, std::move(st));
    if (c.drag > 0.0) s.time_limit = 3.0 / c.drag;
    return s;
}

} // namespace oracle
