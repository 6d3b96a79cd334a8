// The seed scan's pile family (issue 40): 200 to 600 discs or spheres (up to 2000 in long
// seeds) settling under gravity on a support, drawn from a stream of the seed's own:
//   - gravity along -y (2D) or -y or -z (3D), |g| from 0.2 to 3, sometimes tilted by up to
//     10 degrees towards a walled side;
//   - the support: the box floor; a [[walls]] plane tilted by 2 to 25 degrees; a V of two
//     planes; in 2D segments (a hopper, loose shelves, a toothed floor); in 3D triangles (a
//     tilted floor of two, a trough of four, a corrugated strip);
//   - the start: a gas above the support; touching rows resting on the floor (exact
//     contacts with each other and with the floor); or a lattice dropped onto the support
//     (sites one diameter apart or more); rows and lattices at rest or moving along a row,
//     with a gas above them of the particles left over;
//   - restitution from 0 to 1, pairs and walls alike, TC on or off, epsilon in {0, 1e-10,
//     1e-9, 1e-6}, the rest model in some;
//   - a time to run to of a few falls from the top of the box (more in long seeds, for the
//     pile to settle), and a cap on events.
// An inelastic pile without TC has the rest model: without either, a settling pile is an
// inelastic collapse (invariant `progress`), which the engine alone does not watch for.
#include "scan_case.hpp"

#include <cmath>
#include <map>
#include <numbers>

namespace scan {

namespace {

constexpr double degree = std::numbers::pi / 180.0;

// Plastic, elastic, or any restitution between.
double draw_restitution(Rng& r) {
    const double u = r.uniform();
    return u < 0.15 ? 0.0 : u < 0.3 ? 1.0 : r.uniform();
}

// Rounded to eighths: sites made of such numbers and of spacings in eighths are exact, so
// that neighbours one diameter apart touch exactly.
double eighths(double x) {
    return std::round(8.0 * x) / 8.0;
}

// The box's axes for a pile: gravity's, and the others.
struct Frame {
    int down = 1;
    std::vector<int> lateral;
    std::vector<double> margin; // per axis: how far a segment or triangle stays from its faces
};

// A point of the box from its height and its coordinates along the lateral axes.
std::vector<double> at(const Params& p, const Frame& f, double height,
                       const std::vector<double>& across) {
    std::vector<double> x(static_cast<std::size_t>(p.dimension), 0.0);
    x[static_cast<std::size_t>(f.down)] = height;
    for (std::size_t k = 0; k < f.lateral.size(); ++k)
        x[static_cast<std::size_t>(f.lateral[k])] = across[k];
    return x;
}

double edge(const Params& p, int axis) {
    return p.size[static_cast<std::size_t>(axis)];
}

// A plane through height h above the middle of the lateral axes, tilted by theta along
// axis t (its normal leaning towards +t for sign > 0): the support rises towards -t then.
PlaneParams tilted_plane(const Params& p, const Frame& f, int t, double theta, double sign,
                         double h, double e) {
    PlaneParams w;
    w.normal.assign(static_cast<std::size_t>(p.dimension), 0.0);
    w.normal[static_cast<std::size_t>(f.down)] = std::cos(theta);
    w.normal[static_cast<std::size_t>(t)] = sign * std::sin(theta);
    std::vector<double> middle;
    for (const int a : f.lateral) middle.push_back(0.5 * edge(p, a));
    w.point = at(p, f, h, middle);
    w.restitution = e;
    return w;
}

// Planes, segments or triangles at the bottom of the box; returns the height of their
// highest point. `t` is the lateral axis they tilt along (walled for planes).
double draw_support(Rng& r, Params& p, const Frame& f, const std::string& kind, int t, double e) {
    const double width = edge(p, t), m = f.margin[static_cast<std::size_t>(t)];
    if (kind == "plane") { // its low end may meet the floor inside the box (a wedge)
        const double theta = r.uniform(2.0, 25.0) * degree, rise = 0.5 * width * std::tan(theta);
        const double h = rise * r.uniform(0.2, 1.5);
        p.planes.push_back(tilted_plane(p, f, t, theta, r.chance(0.5) ? 1.0 : -1.0, h, e));
        return h + rise;
    }
    if (kind == "vee") { // its bottom below the floor now and then: a flat between slopes
        const double theta = r.uniform(5.0, 35.0) * degree, rise = 0.5 * width * std::tan(theta);
        const double h = rise * r.uniform(-0.5, 0.5);
        p.planes.push_back(tilted_plane(p, f, t, theta, 1.0, h, e));
        p.planes.push_back(tilted_plane(p, f, t, theta, -1.0, h, e));
        return h + rise;
    }
    if (kind == "segments") { // 2D: lateral axis 0, up along 1
        const double lo = m, hi = width - m, c = 0.5 * width, open = r.uniform(1.5, 4.0);
        const double u = r.uniform();
        auto add = [&](double x0, double y0, double x1, double y1) {
            SegmentParams s;
            s.ends = std::array<std::array<double, 2>, 2>{{{x0, y0}, {x1, y1}}};
            s.restitution = e;
            p.segments.push_back(s);
        };
        if (u < 0.4 && c - 0.5 * open - lo >= 1.0) { // a hopper: two slopes, an opening
            const double y = r.uniform(2.0, 6.0), run = c - 0.5 * open - lo;
            const double slope = std::min(std::tan(r.uniform(20.0, 60.0) * degree), 40.0 / run);
            add(lo, y + run * slope, c - 0.5 * open, y);
            add(c + 0.5 * open, y, hi, y + run * slope);
            p.pile += " hopper";
            return y + run * slope;
        }
        if (u < 0.7) { // loose shelves, tilted either way
            double top = 0.0;
            for (int k = r.integer(1, 4); k > 0; --k) {
                const double l = r.uniform(0.2, 0.6) * (hi - lo),
                             a = r.uniform(-30.0, 30.0) * degree;
                const double dx = 0.5 * l * std::cos(a), dy = 0.5 * l * std::sin(a);
                const double x = r.uniform(lo + dx, hi - dx);
                const double y = std::abs(dy) + 0.5 + r.uniform(0.0, 10.0);
                add(x - dx, y - dy, x + dx, y + dy);
                top = std::max(top, y + std::abs(dy));
            }
            p.pile += " shelves";
            return top;
        }
        // a toothed floor: segments sharing their ends, at most 64 of them
        const double wave = std::max(r.uniform(1.0, 4.0), 2.0 * (hi - lo) / 64.0);
        const double depth = r.uniform(0.25, 1.5), base = r.uniform(0.0, 1.0);
        const int teeth = static_cast<int>((hi - lo) / (0.5 * wave));
        const auto x = [&](int i) { return std::min(hi, lo + i * 0.5 * wave); }; // (round-off)
        for (int i = 0; i < teeth; ++i)
            add(x(i), base + (i % 2) * depth, x(i + 1), base + ((i + 1) % 2) * depth);
        p.pile += " teeth";
        return base + depth;
    }
    // triangles (3D): along t and across the other lateral axis o
    const int o = f.lateral[0] == t ? f.lateral[1] : f.lateral[0];
    const double mo = f.margin[static_cast<std::size_t>(o)], across = edge(p, o);
    auto corner = [&](double xt, double xo, double h) {
        std::array<double, 3> v{};
        v[static_cast<std::size_t>(t)] = xt;
        v[static_cast<std::size_t>(o)] = xo;
        v[static_cast<std::size_t>(f.down)] = h;
        return v;
    };
    auto add = [&](const std::array<double, 3>& a, const std::array<double, 3>& b,
                   const std::array<double, 3>& c) {
        p.triangles.push_back({{a, b, c}, e, true});
    };
    // a rectangle from (x0, height h0) to (x1, h1) along t, across all of o
    auto strip = [&](double x0, double h0, double x1, double h1) {
        add(corner(x0, mo, h0), corner(x1, mo, h1), corner(x1, across - mo, h1));
        add(corner(x0, mo, h0), corner(x1, across - mo, h1), corner(x0, across - mo, h0));
    };
    const double lo = m, hi = width - m, c = 0.5 * width, u = r.uniform();
    if (u < 0.35) { // a tilted floor of two triangles
        const double rise = (c - lo) * std::tan(r.uniform(2.0, 25.0) * degree);
        const double h = rise + r.uniform(0.0, 2.0);
        if (r.chance(0.5))
            strip(lo, h + rise, hi, h - rise);
        else
            strip(lo, h - rise, hi, h + rise);
        p.pile += " ramp";
        return h + rise;
    }
    if (u < 0.65) { // a trough of four
        const double h = r.uniform(0.0, 1.5);
        const double top = h + (c - lo) * std::tan(r.uniform(5.0, 35.0) * degree);
        strip(lo, top, c, h);
        strip(c, h, hi, top);
        p.pile += " trough";
        return top;
    }
    // a corrugated strip: ridges and valleys across o
    const int pieces = r.integer(2, 16);
    const double depth = r.uniform(0.25, 2.0), base = r.uniform(0.2, 1.0);
    // (the last end is hi itself: lo + (hi - lo) pieces / pieces may round past the box)
    const auto x = [&](int i) { return i == pieces ? hi : lo + (hi - lo) * i / pieces; };
    for (int i = 0; i < pieces; ++i)
        strip(x(i), base + (i % 2) * depth, x(i + 1), base + ((i + 1) % 2) * depth);
    p.pile += " corrugated";
    return base + depth;
}

// Particles of species 0 on exact sites from height `bottom` up, `spacing` apart (one
// diameter: touching), in layers of a block centred across the box, at most `layers`
// layers; on the floor (bottom 0.5) the block starts at the walls. Returns the height of
// its top layer.
double draw_block(Rng& r, Params& p, const Frame& f, double bottom, double spacing, int layers,
                  bool on_floor) {
    std::vector<int> count;
    std::vector<double> first;
    for (const int a : f.lateral) {
        const double m = on_floor ? 0.0 : f.margin[static_cast<std::size_t>(a)];
        const double span = edge(p, a) - 2.0 * m - 1.0; // where centres may go
        int k = static_cast<int>(span / spacing) + 1;
        if (!on_floor) k = r.integer(std::max(1, k / 2), k);
        // centred, rounded up to eighths (m + 0.5 is one): 1/8 more slack is needed for that
        const double slack = span - (k - 1) * spacing;
        const double x0 =
            on_floor || slack < 0.25 ? m + 0.5 : std::ceil(8.0 * (m + 0.5 + 0.5 * slack)) / 8.0;
        count.push_back(k);
        first.push_back(x0);
    }
    std::uint64_t per_layer = 1;
    for (const int k : count) per_layer *= static_cast<std::uint64_t>(k);
    const std::uint64_t total =
        std::min(p.species[0].count, per_layer * static_cast<std::uint64_t>(layers));
    for (std::uint64_t s = 0; s < total; ++s) {
        std::vector<double> across;
        std::uint64_t rest = s % per_layer;
        for (std::size_t k = 0; k < count.size(); ++k) {
            across.push_back(first[k] + static_cast<double>(rest % count[k]) * spacing);
            rest /= static_cast<std::uint64_t>(count[k]);
        }
        const auto x = at(p, f, bottom + static_cast<double>(s / per_layer) * spacing, across);
        p.placed.push_back({x[0], x[1], p.dimension == 3 ? x[2] : 0.0, 0.0});
    }
    return bottom + static_cast<double>((total - 1) / per_layer) * spacing;
}

// A pile drawn from the stream r; `fixed` (the oracle's piles) sets its dimension and N and
// leaves the rest model out, with what needs it. Each of those is drawn before it is
// overridden, so that the scan's stream (fixed null) is what it always was.
void draw_pile_from(Rng& r, std::uint64_t seed, Params& p, const OraclePile* fixed) {
    const bool big = (seed & long_bit) != 0;
    p.seed = seed;
    p.dimension = r.chance(0.5) ? 2 : 3;
    if (fixed) p.dimension = fixed->dimension;
    const int dim = p.dimension;
    p.features.set(dim == 2 ? two_d : three_d);
    p.features.set(piles);
    Frame f;
    f.down = dim == 2 ? 1 : r.integer(1, 2);
    for (int a = 0; a < dim; ++a)
        if (a != f.down) f.lateral.push_back(a);
    p.periodic.assign(static_cast<std::size_t>(dim), false);
    for (const int a : f.lateral) p.periodic[static_cast<std::size_t>(a)] = r.chance(0.4);

    // Particles: one size, or two (the second 0.5 to 0.9 times the first's diameter).
    auto n = static_cast<std::uint64_t>(r.log_uniform(200.0, big ? 2000.0 : 600.0));
    if (fixed) n = fixed->n;
    const double g = r.log_uniform(0.2, 3.0);
    p.species.push_back({n, 0.5, 1.0, std::nullopt});
    if (r.chance(0.3)) {
        SpeciesParams s;
        s.radius = 0.5 * r.uniform(0.5, 0.9);
        s.mass = r.chance(0.5) ? std::pow(2.0 * s.radius, dim) : r.log_uniform(0.3, 3.0);
        s.count = static_cast<std::uint64_t>(static_cast<double>(n) * r.uniform(0.1, 0.6));
        p.species[0].count -= s.count;
        p.species.push_back(s);
        p.features.set(mixture);
    }
    for (auto& s : p.species) s.temperature = r.uniform(0.05, 1.0) * g; // a gas of |g| d or less

    // The support, and the start: a gas; touching rows on the floor; or a lattice dropped
    // onto the support.
    const double u = r.uniform();
    const std::string support = u < 0.3    ? "floor"
                                : u < 0.5  ? "plane"
                                : u < 0.65 ? "vee"
                                : dim == 2 ? "segments"
                                           : "triangles";
    const double v = r.uniform();
    // (touching rows on the floor need the rest model: a lattice is dropped instead)
    const std::string start = support == "floor" && v < 0.25 && !fixed ? "rows"
                              : v < 0.5                                ? "drop"
                                                                       : "gas";

    // Collisions. A particle at rest on a support that gravity presses it onto (touching
    // rows on the floor; any particle a plastic wall stops; a group resolving plastic pairs
    // on a support, which leaves them at rest there) is met by it at that instant for ever,
    // elastic under TC or not, unless the rest model puts it to rest or makes it glide (a
    // limit of the engine, DEVELOPING: what event-driven hard spheres cannot follow): rows
    // start with the model, walls are plastic only with it, pairs only without groups
    // (case 12337819679629892282, plastic spheres with epsilon = 1e-9 on a ramp of
    // triangles, livelocked at t = 5.29; with restitution 0.05 it ran to its end). With
    // epsilon > 0 the model is drawn from a stream of its own (since Session 35, when it
    // learnt groups), so that the cases drawn before stay as they were.
    const double w = r.uniform();
    p.epsilon = start == "rows" || w < 0.4 ? 0.0 : w < 0.6 ? 1e-10 : w < 0.8 ? 1e-9 : 1e-6;
    p.features.set(epsilon, p.epsilon > 0.0);
    Rng grouped(seed ^ 0x67726f757077ull); // (a constant that keeps the listed seeds as they were)
    const bool rest =
        !fixed && (start == "rows" || (p.epsilon == 0.0 ? r.chance(0.5) : grouped.chance(0.5)));
    auto restitution = [&](bool plastic) {
        const double e = draw_restitution(r);
        return e > 0.0 || plastic ? e : r.uniform(0.05, 1.0);
    };
    p.restitution = restitution(p.epsilon == 0.0);
    p.wall_restitution = restitution(rest);
    const double e_support = restitution(rest); // one for all of it: a flat mesh stays flat
    if (p.species.size() > 1 && r.chance(0.5))
        p.pair.push_back({0.0, 1.0, restitution(p.epsilon == 0.0)});
    bool lossy = p.restitution < 1.0 || p.wall_restitution < 1.0 || e_support < 1.0;
    for (const auto& e : p.pair) lossy = lossy || e[2] < 1.0;
    // TC, when on, at 1e-4 to 1e-2 of a fall through a diameter (from 1e-3 in long seeds):
    // micro-bounces under it rise g tc^2 / 8, far above the round-off of positions (a tc of
    // 3.5e-6 let a pile collapse, DEVELOPING), and a pile settled under TC bounces about
    // every tc: 1/tc events a particle per unit of time, which a long seed's pile must
    // afford to settle (377 discs at tc = 7e-4 took 3e4 events each; 287 at 8e-3, 6e3).
    // An inelastic pile has TC or the rest model: without either its settling is an
    // inelastic collapse (invariant `progress`), which the engine alone does not watch for.
    const bool tc = lossy && (!rest || r.chance(0.5));
    if (tc) p.tc = r.log_uniform(big ? 1e-3 : 1e-4, 1e-2) / std::sqrt(g);
    p.features.set(inelastic, tc);
    if (rest && (lossy || start == "rows")) {
        p.rest_speed = r.log_uniform(1e-4, 0.3) * std::sqrt(g);
        p.features.set(resting);
    }

    // The box across: the particles in 2 to 16 layers, a fraction of a diameter over a whole
    // number of them (rows of equal particles cannot span it: REFERENCE, "Piles of equal
    // particles between walls").
    const double layers = r.log_uniform(2.0, 16.0), area = static_cast<double>(n) / layers;
    p.size.assign(static_cast<std::size_t>(dim), 0.0);
    const double shape = dim == 3 ? r.log_uniform(0.5, 2.0) : 1.0;
    for (std::size_t k = 0; k < f.lateral.size(); ++k) {
        const double across =
            dim == 2 ? std::clamp(area, 4.0, 120.0)
                     : std::clamp(std::sqrt(area) * (k ? 1.0 / shape : shape), 4.0, 60.0);
        p.size[static_cast<std::size_t>(f.lateral[k])] = std::floor(across) + r.uniform(0.1, 0.9);
    }
    f.margin.assign(static_cast<std::size_t>(dim), 0.0);
    for (const int a : f.lateral)
        if (p.periodic[static_cast<std::size_t>(a)]) f.margin[static_cast<std::size_t>(a)] = 1.0;

    // The support's geometry (planes tilt along a walled axis).
    const int t = f.lateral[static_cast<std::size_t>(r.integer(0, int(f.lateral.size()) - 1))];
    if (support == "plane" || support == "vee")
        p.periodic[static_cast<std::size_t>(t)] = false,
        f.margin[static_cast<std::size_t>(t)] = 0.0;
    p.pile = "support " + support;
    const double top = support == "floor" ? 0.0 : draw_support(r, p, f, support, t, e_support);
    p.features.set(planes, !p.planes.empty());
    p.features.set(segments, !p.segments.empty());
    p.features.set(triangles, !p.triangles.empty());
    p.features.set(periodic, std::count(p.periodic.begin(), p.periodic.end(), true) > 0);
    p.features.set(walled);

    // The start's sites, and the height above which the gas starts.
    double gas_from = top + 1.0, spacing = 1.0;
    if (start == "rows") {
        gas_from = draw_block(r, p, f, 0.5, 1.0, r.integer(1, 4), true) + 1.5;
        p.pile += ", touching rows on the floor";
    } else if (start == "drop") {
        spacing = std::array{1.0, 1.125, 1.25, 1.5}[r.integer(0, 3)];
        const double bottom = eighths(top + 0.5 + r.uniform(0.5, 4.0));
        gas_from = draw_block(r, p, f, bottom, spacing, r.integer(1, 6), false) + 1.5;
        p.pile += ", a lattice of spacing " + num(spacing) + " dropped";
    } else {
        p.pile += ", a gas";
    }
    const bool touching = spacing == 1.0;
    if (!p.placed.empty()) {
        p.features.set(lattice);
        p.axis = f.lateral[static_cast<std::size_t>(r.integer(0, int(f.lateral.size()) - 1))];
        // Moving along its rows: simultaneous collisions all along. In a line of touching
        // sites velocities pass along the line at the instant they start: k sites at random
        // speeds take about k^2/4 collisions then (each +1 passing each -1), 10^5 at t = 0
        // in a 3D box of rows (more than a short case's events); so one striker a line
        // there, its speed passed on k times. That is elastic only under TC: with
        // restitution below 1 and no TC the line closes behind the striker in an
        // inelastic collapse at that instant, which the rest model's rescue did not end
        // (a million events at t = 0: the engine's exit-3 collapse, "set tc > 0"). So
        // touching sites move only with TC, or when all is elastic.
        if ((!touching || tc || !lossy) && r.chance(0.5)) {
            p.placed_speed = r.uniform(0.5, 2.0) * std::sqrt(g);
            p.features.set(aligned);
            std::map<std::array<double, 3>, std::vector<std::size_t>> lines;
            for (std::size_t k = 0; k < p.placed.size(); ++k) {
                std::array<double, 3> across{p.placed[k][0], p.placed[k][1], p.placed[k][2]};
                across[static_cast<std::size_t>(p.axis)] = 0.0;
                lines[across].push_back(k);
                if (!touching) p.placed[k][3] = r.integer(-1, 1);
            }
            if (touching)
                for (const auto& [across, sites] : lines)
                    p.placed[sites[static_cast<std::size_t>(r.integer(0, int(sites.size()) - 1))]]
                            [3] = r.chance(0.5) ? 1.0 : -1.0;
        }
    }
    // The gas above: random placement of all N over a height that holds them at 0.03 to
    // 0.15 (3D; 0.3 in 2D, below the jamming of random addition) and 150 at most; the
    // particles on sites are then moved onto them.
    double across = 1.0;
    for (const int a : f.lateral) across *= edge(p, a);
    const double most = dim == 3 ? 0.2 : 0.35;
    double height = p.volume() / (r.uniform(0.03, dim == 3 ? 0.15 : 0.3) * across);
    if (height > 150.0) height = std::max(150.0, p.volume() / (most * across));
    p.size[static_cast<std::size_t>(f.down)] = gas_from + std::max(height, 2.0) + 1.0;
    std::vector<double> low(static_cast<std::size_t>(dim), 0.0), high = p.size;
    low[static_cast<std::size_t>(f.down)] = gas_from;
    p.region = std::array{low, high};
    p.lattice = "random";
    p.velocities = "maxwell";
    p.init_seed = r.next() >> 33;
    double box = 1.0;
    for (const double l : p.size) box *= l;
    p.fraction = p.volume() / box;

    // Gravity, down or tilted by up to 10 degrees towards a walled side (along a periodic
    // axis a smooth pile would slide faster and faster), and drag in some.
    p.gravity.assign(static_cast<std::size_t>(dim), 0.0);
    p.gravity[static_cast<std::size_t>(f.down)] = -g;
    std::vector<int> sides;
    for (const int a : f.lateral)
        if (!p.periodic[static_cast<std::size_t>(a)]) sides.push_back(a);
    if (!sides.empty() && r.chance(0.3)) {
        const double tilt = r.uniform(1.0, 10.0) * degree;
        p.gravity[static_cast<std::size_t>(f.down)] = -g * std::cos(tilt);
        p.gravity[static_cast<std::size_t>(
            sides[static_cast<std::size_t>(r.integer(0, int(sides.size()) - 1))])] =
            (r.chance(0.5) ? 1.0 : -1.0) * g * std::sin(tilt);
        p.pile += ", gravity tilted";
    }
    p.features.set(gravity);
    if (r.chance(0.1)) p.drag = r.log_uniform(0.01, 0.3), p.features.set(drag);
    if (r.chance(0.4)) {
        const double nd = static_cast<double>(n);
        p.maintain_every =
            static_cast<std::uint64_t>(r.log_uniform(std::max(1.0, nd / 16), 4 * nd));
        p.features.set(maintenance);
    }

    // Length: a few falls from the top of the box (3 to 8 in long seeds: lossy piles mostly
    // settle within 3), and a cap on events: short seeds cost the fast slice about what the
    // cases they replace did (0.2 s), long ones up to a minute or so. Touching rows at rest cost
    // far more an event: the engine meets a particle at rest under gravity by certified
    // steps (segment_time.hpp, end_time), which touching neighbours keep short: 8,000 events
    // a second in 3D and 40,000 in 2D, against 200,000 to 500,000 in the other piles.
    const double fall = std::sqrt(2.0 * p.size[static_cast<std::size_t>(f.down)] / g);
    p.duration = fall * (big ? r.uniform(3.0, 8.0) : r.uniform(1.5, 4.0));
    const double per = big ? r.log_uniform(2000.0, 20000.0) : r.log_uniform(60.0, 400.0);
    p.event_cap = static_cast<std::uint64_t>(
        std::clamp(per * static_cast<double>(n), big ? 2e5 : 2e4, big ? 2e7 : 2e5));
    if (start == "rows") p.event_cap = std::min<std::uint64_t>(p.event_cap, big ? 300000 : 10000);
    p.collision_cap = p.event_cap;
    p.checkpoints = r.integer(4, 20);
}

} // namespace

bool draw_pile(std::uint64_t seed, Params& p) {
    // A stream of its own, so that every other seed draws what it drew before; its constant
    // is one that leaves every seed of the known and fixed lists (soak_scan.cpp) as it was.
    Rng r(seed ^ 0x677261696e73ull); // "grains"
    if (!r.chance((seed & long_bit) != 0 ? 0.16 : 0.08)) return false;
    draw_pile_from(r, seed, p, nullptr);
    return true;
}

Params draw_oracle_pile(std::uint64_t seed, const OraclePile& fixed) {
    Rng r(seed ^ 0x677261696e73ull);
    Params p;
    draw_pile_from(r, seed, p, &fixed);
    return p;
}

} // namespace scan
