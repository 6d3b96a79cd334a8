// Drawing a scan case from its seed, and writing its config text.
#include "scan_case.hpp"

namespace scan {

namespace {

void draw_species(Rng& r, Params& p, std::uint64_t n) {
    const int kinds = p.features[mixture] ? (r.chance(0.7) ? 2 : 3) : 1;
    for (int k = 0; k < kinds; ++k) {
        SpeciesParams s;
        if (k > 0) {
            // the bug report's mixture has diameters 1 and 0.5; otherwise anything down to 0.3
            s.radius = r.chance(0.3) ? 0.25 : 0.5 * r.uniform(0.3, 1.0);
            // masses by volume (same material) or unrelated to size
            s.mass =
                r.chance(0.5) ? std::pow(2.0 * s.radius, p.dimension) : r.log_uniform(0.2, 5.0);
        }
        if (r.chance(0.3)) s.temperature = r.uniform(0.3, 3.0);
        p.species.push_back(s);
    }
    // counts: random shares, each species at least one particle
    std::uint64_t left = n;
    for (int k = 0; k < kinds; ++k) {
        const auto rest = static_cast<std::uint64_t>(kinds - k - 1);
        std::uint64_t c =
            k + 1 == kinds ? left : 1 + r.next() % std::max<std::uint64_t>(1, left - rest);
        c = std::min(c, left - rest);
        p.species[static_cast<std::size_t>(k)].count = c;
        left -= c;
    }
}

// The densest packing fraction drawn on each lattice: the dense fluid (up to the bug
// report's 0.49 in 3D; 0.70 in 2D), each well inside what the lattice holds (fcc 0.74, sc
// 0.52, hex 0.91, square 0.79) whatever the rounding of its cell counts to the box.
double lattice_top(const std::string& lattice) {
    return lattice == "fcc" ? 0.49 : lattice == "sc" ? 0.45 : lattice == "hex" ? 0.70 : 0.62;
}

// Packing fraction by start: lattices reach the dense fluid (lattice_top), random
// sequential addition stays well below its jamming limit (0.38 in 3D, 0.55 in 2D), lower
// still when plane walls cut space off the box.
double draw_fraction(Rng& r, const Params& p, bool obstacles) {
    const bool three = p.dimension == 3;
    if (r.chance(0.2)) return r.log_uniform(0.002, 0.05);
    if (p.lattice == "random")
        return r.uniform(0.05, obstacles ? (three ? 0.12 : 0.22) : (three ? 0.28 : 0.45));
    const double top = lattice_top(p.lattice);
    if (r.chance(0.4)) return r.uniform(top - (three ? 0.09 : 0.1), top); // dense
    return r.uniform(0.05, top);
}

void draw_obstacles(Rng& r, Params& p) {
    std::vector<int> walled_axes;
    for (int a = 0; a < p.dimension; ++a)
        if (!p.periodic[static_cast<std::size_t>(a)]) walled_axes.push_back(a);
    if (!walled_axes.empty() && r.chance(0.3)) {
        const int count = r.integer(1, 2);
        for (int k = 0; k < count; ++k) {
            // a normal in the walled axes only (a plane may not cut a periodic axis)
            PlaneParams w;
            w.normal.assign(static_cast<std::size_t>(p.dimension), 0.0);
            for (const int a : walled_axes)
                w.normal[static_cast<std::size_t>(a)] = r.uniform(-1.0, 1.0);
            if (std::all_of(w.normal.begin(), w.normal.end(), [](double x) { return x == 0.0; }))
                w.normal[static_cast<std::size_t>(walled_axes[0])] = 1.0;
            w.depth = r.uniform(0.25, 0.5);
            w.restitution = p.features[inelastic] && r.chance(0.5) ? r.uniform(0.3, 1.0) : 1.0;
            p.planes.push_back(w);
        }
        p.features.set(planes);
    }
    if (p.dimension == 2 && r.chance(0.3)) {
        const int count = r.integer(1, 4);
        for (int k = 0; k < count; ++k) {
            SegmentParams s;
            s.centre = {r.uniform(), r.uniform()};
            s.length = r.uniform(0.0, 1.0); // of the longest that fits, below
            s.angle = r.uniform(0.0, std::numbers::pi);
            s.restitution = p.features[inelastic] && r.chance(0.5) ? r.uniform(0.3, 1.0) : 1.0;
            p.segments.push_back(s);
        }
        p.features.set(segments);
    }
}

void draw_collisions(Rng& r, Params& p) {
    if (p.features[inelastic]) {
        p.restitution = r.chance(0.1) ? 0.0 : r.chance(0.1) ? 1.0 : r.uniform(0.3, 0.99);
        if (r.chance(0.5)) p.wall_restitution = r.uniform(0.3, 1.0);
        if (p.species.size() > 1 && r.chance(0.5))
            for (std::size_t a = 0; a < p.species.size(); ++a)
                for (std::size_t b = a; b < p.species.size(); ++b)
                    if (r.chance(0.5))
                        p.pair.push_back({double(a), double(b), r.uniform(0.3, 1.0)});
        // TC from the start keeps clusters (and particles resting on a floor) out of an
        // inelastic collapse, which the engine alone does not watch for.
        p.tc = r.log_uniform(1e-6, 1e-3);
    }
    if (p.features[epsilon]) {
        p.epsilon = r.log_uniform(1e-13, 1e-8);
        const double u = r.uniform();
        if (u < 0.3)
            p.contact_gap = r.log_uniform(1e-12, 1e-6);
        else if (u < 0.4)
            p.contact_gap = 0.0;
    }
}

void draw_field(Rng& r, Params& p) {
    if (p.features[gravity]) {
        p.gravity.assign(static_cast<std::size_t>(p.dimension), 0.0);
        const double g = r.log_uniform(0.05, 3.0);
        std::vector<int> walled_axes;
        for (int a = 0; a < p.dimension; ++a)
            if (!p.periodic[static_cast<std::size_t>(a)]) walled_axes.push_back(a);
        if (!walled_axes.empty() && r.chance(0.75)) { // down onto a floor
            p.gravity[static_cast<std::size_t>(
                walled_axes[static_cast<std::size_t>(r.integer(0, int(walled_axes.size()) - 1))])] =
                -g;
        } else { // any direction, periodic axes included
            double n2 = 0.0;
            for (auto& x : p.gravity) x = r.uniform(-1.0, 1.0), n2 += x * x;
            for (auto& x : p.gravity) x *= g / std::sqrt(std::max(n2, 1e-300));
        }
    }
    // a relaxation time 1/γ of 3 to 100 time units: particles still reach neighbouring cells
    if (p.features[drag]) p.drag = r.log_uniform(0.01, 0.3);
}

} // namespace

Params draw(std::uint64_t seed) {
    Params p;
    if (draw_pile(seed, p)) return p;
    Rng r(seed);
    p.seed = seed;
    const bool big = (seed & long_bit) != 0;
    p.dimension = r.chance(0.5) ? 2 : 3;
    p.features.set(p.dimension == 2 ? two_d : three_d);
    const double u = r.uniform();
    for (int a = 0; a < p.dimension; ++a)
        p.periodic.push_back(u < 0.45 ? true : u < 0.75 ? false : r.chance(0.5));
    p.features.set(periodic, std::count(p.periodic.begin(), p.periodic.end(), true) > 0);
    p.features.set(walled, p.any_walled());
    const bool box = r.chance(0.3);
    for (int a = 0; a < p.dimension; ++a) p.aspect.push_back(box ? r.log_uniform(0.5, 2.0) : 1.0);

    p.features.set(mixture, r.chance(0.35));
    p.features.set(inelastic, r.chance(0.3));
    const auto n =
        static_cast<std::uint64_t>(r.log_uniform(big ? 300.0 : 8.0, big ? 4000.0 : 3000.0));
    draw_species(r, p, n);
    // Size-disperse mixtures (a diameter ratio of 2 to 8: a cell grid per size,
    // cell_levels.hpp), drawn from a stream of their own so that every other draw of a
    // seed stays what it was.
    Rng sizes(seed ^ 0x6c6576656c73ull);
    if (p.features[mixture] && sizes.chance(0.5)) {
        p.species[1].radius = 0.5 / sizes.log_uniform(2.0, 8.0);
        p.features.set(disperse);
    }
    draw_obstacles(r, p);
    const bool obstacles = !p.planes.empty() || !p.segments.empty();

    // Lattice sites know nothing of [[walls]] planes and segments: random starts there.
    if (!obstacles && r.chance(0.65)) {
        p.lattice =
            p.dimension == 3 ? (r.chance(0.7) ? "fcc" : "sc") : (r.chance(0.7) ? "hex" : "square");
        p.features.set(lattice);
        if (r.chance(0.25)) {
            p.aligned = r.chance(0.5) ? Aligned::axis : Aligned::grid;
            p.axis = r.integer(0, p.dimension - 1);
            p.features.set(aligned);
        }
    } else {
        p.lattice = "random";
    }
    p.fraction = draw_fraction(r, p, obstacles);
    // A lattice spaces every site for the largest particle: in a mixture it sees the
    // fraction lattice_volume() / volume() times the drawn one, up to 8^3 = 512 times in a
    // size-disperse one. Lowering the density at the start (run_case) makes up for a factor
    // of 1 / start_lowering^(start_attempts - 1) = 69 at most, and the rounding of the
    // lattice's cell counts to the box takes a few of those steps (sc at its top, 0.45,
    // packs 1028 sites on 11 rows where 10.6 fit). Where the lattice would still be denser
    // than its top with five steps left ("too dense for the lattice" at fractions below
    // 0.01), the box is sized to the lattice instead, at a lattice fraction drawn as for
    // equal particles, from a stream of its own. Every case placed within the first 13
    // attempts is left as it was.
    const double lowest = std::pow(start_lowering, start_attempts - 6);
    if (p.features[lattice] &&
        p.fraction * lowest * p.lattice_volume() / p.volume() > lattice_top(p.lattice)) {
        Rng sites(seed ^ 0x6c617474696365ull);
        p.fraction = sites.uniform(0.05, lattice_top(p.lattice)) * p.volume() / p.lattice_volume();
    }
    p.velocities = r.chance(0.2) ? "fixed_speed" : "maxwell";
    p.init_seed = r.next() >> 33;

    p.features.set(gravity, r.chance(0.25));
    p.features.set(drag, r.chance(0.15));
    draw_field(r, p);
    p.features.set(epsilon, r.chance(p.aligned != Aligned::none ? 0.6 : 0.2));
    draw_collisions(r, p);
    // Thermal box walls (one at a time: epsilon 0), from a stream of their own so that
    // every other draw of a seed stays what it was.
    Rng heat(seed ^ 0x746865726d616cull);
    if (p.any_walled() && p.epsilon == 0.0 && heat.chance(0.3)) {
        p.wall_temperature = std::array<double, 2>{heat.uniform(0.3, 3.0), heat.uniform(0.3, 3.0)};
        p.wall_restitution = 1.0; // a thermal wall has none
        p.features.set(thermal);
        if (p.features[periodic] && heat.chance(0.5)) // sliding along the periodic axes
            for (int w = 0; w < 2; ++w) {
                std::vector<double> v;
                for (int a = 0; a < p.dimension; ++a)
                    v.push_back(p.periodic[static_cast<std::size_t>(a)] ? heat.uniform(-1.0, 1.0)
                                                                        : 0.0);
                p.wall_velocity.push_back(v);
            }
    }
    // Sliding boundaries (Lees-Edwards) in a bulk box: periodic, no obstacle, straight
    // flights, one contact at a time; from a stream of their own, as the thermal walls.
    Rng slide(seed ^ 0x736c6964696e67ull);
    if (!p.any_walled() && !obstacles && p.gravity.empty() && p.drag == 0.0 && p.epsilon == 0.0 &&
        slide.chance(0.4)) {
        p.shear_rate = (slide.chance(0.5) ? 1.0 : -1.0) * slide.log_uniform(0.01, 2.0);
        if (slide.chance(0.5)) p.shear_temperature = slide.uniform(0.3, 3.0);
        // The config refuses a sliding speed |rate| L_y above 1000 times the start's rms
        // speed, sqrt(D sum N_s T_s / M) (each species starts at exactly its temperature):
        // a dilute box that wide (2D, N = 3401 at 0.0023: L_y = 1080) is refused at every
        // density, the lowering only widening it. Such a rate is brought down to a tenth of
        // that limit, leaving room for the lowering.
        double heat = 0.0, mass = 0.0;
        for (const auto& s : p.species)
            heat += double(s.count) * s.temperature.value_or(1.0), mass += double(s.count) * s.mass;
        const double limit = 1000.0 * std::sqrt(p.dimension * heat / mass);
        const double sliding = std::abs(p.shear_rate) * p.lengths()[1];
        if (sliding > limit) p.shear_rate *= 0.1 * limit / sliding;
        p.features.set(sheared);
    }
    // Triangles (3D) in random starts: a few loose ones, and sometimes a folded strip of
    // triangles sharing edges (a mesh's ridges and valleys); from a stream of their own.
    Rng mesh(seed ^ 0x747269616e676cull);
    if (p.dimension == 3 && p.lattice == "random" && p.shear_rate == 0.0 && mesh.chance(0.35)) {
        auto restitution = [&] {
            return p.features[inelastic] && mesh.chance(0.5) ? mesh.uniform(0.3, 1.0) : 1.0;
        };
        const int loose = mesh.integer(p.features[inelastic] ? 0 : 1, 4);
        for (int k = 0; k < loose; ++k) {
            TriangleParams t;
            for (auto& v : t.vertex)
                for (auto& x : v) x = mesh.uniform();
            t.restitution = restitution();
            p.triangles.push_back(t);
        }
        if (loose == 0 || mesh.chance(0.5)) { // a strip zig-zagging along x, folded in z
            const int n = mesh.integer(2, 8);
            const double y0 = mesh.uniform(0.0, 0.5), y1 = y0 + mesh.uniform(0.2, 0.5);
            const double z = mesh.uniform(0.2, 0.8), fold = mesh.uniform(-0.15, 0.15);
            const double e = restitution();
            auto at = [&](int i, double y) {
                return std::array<double, 3>{double(i) / n, y, z + (i % 2 ? fold : 0.0)};
            };
            for (int i = 0; i < n; ++i) {
                p.triangles.push_back({{at(i, y0), at(i + 1, y0), at(i + 1, y1)}, e});
                p.triangles.push_back({{at(i, y0), at(i + 1, y1), at(i, y1)}, e});
            }
        }
        p.features.set(triangles);
    }
    // inelastic: some restitution below 1 (the draw may have left every one at 1)
    bool lossy = p.restitution < 1.0 || (p.any_walled() && p.wall_restitution < 1.0);
    for (const auto& e : p.pair) lossy = lossy || e[2] < 1.0;
    for (const auto& w : p.planes) lossy = lossy || w.restitution < 1.0;
    for (const auto& s : p.segments) lossy = lossy || s.restitution < 1.0;
    for (const auto& s : p.triangles) lossy = lossy || s.restitution < 1.0;
    p.features.set(inelastic, lossy);
    // The rest model under gravity, from a stream of its own: a speed from 1e-4 to 0.3 of
    // sqrt(|g| d) (d the largest diameter), so that some cases put particles to rest and
    // wake them often, and piles settle in others. With epsilon > 0 (since Session 35) from
    // one more stream, so that the cases drawn before stay as they were.
    Rng rest(seed ^ 0x72657374696e67ull);
    Rng grouped(seed ^ 0x67726f757077ull); // (a constant that keeps the listed seeds as they were)
    if (!p.gravity.empty() && lossy &&
        (p.epsilon == 0.0 ? rest.chance(0.5) : grouped.chance(0.5))) {
        double g2 = 0.0;
        for (const double g : p.gravity) g2 += g * g;
        p.rest_speed =
            rest.log_uniform(1e-4, 0.3) * std::sqrt(std::sqrt(g2) * p.largest_diameter());
        p.features.set(resting);
    }
    if (r.chance(0.4)) { // frequent maintenance, but at most ~16 O(1) steps per event for it
        const double nd = static_cast<double>(n);
        p.maintain_every =
            static_cast<std::uint64_t>(r.log_uniform(std::max(1.0, nd / 16), 4 * nd));
        p.features.set(maintenance);
    }
    // Length: events per particle, capped so that a short case takes about a tenth of a
    // second and a long one seconds to a minute.
    const double per = big ? r.log_uniform(200.0, 3000.0) : r.log_uniform(100.0, 1000.0);
    p.event_cap = static_cast<std::uint64_t>(std::clamp(per * double(n), 5e4, big ? 2e7 : 2e6));
    p.collision_cap = static_cast<std::uint64_t>(double(p.event_cap) * r.uniform(0.3, 1.0));
    p.checkpoints = r.integer(4, 40);
    p.step = r.uniform(0.5, 2.0);
    return p;
}

std::string config_text(const Params& p) {
    const std::vector<double> length = p.lengths();
    std::string t = "dimension = " + std::to_string(p.dimension) +
                    "\n\n[box]\nsize = " + list(length) + "\nboundary = [";
    for (int a = 0; a < p.dimension; ++a)
        t += std::string(a ? ", " : "") +
             (p.periodic[static_cast<std::size_t>(a)] ? "\"periodic\"" : "\"wall\"");
    t += "]\n";
    if (p.shear_rate != 0.0) t += "shear_rate = " + num(p.shear_rate) + "\n";
    if (p.shear_temperature) t += "shear_temperature = " + num(*p.shear_temperature) + "\n";
    if (!p.wall_velocity.empty())
        t += "wall_velocity = [" + list(p.wall_velocity[0]) + ", " + list(p.wall_velocity[1]) +
             "]\n";
    if (p.wall_temperature)
        t += "wall_temperature = " +
             list(std::vector<double>{(*p.wall_temperature)[0], (*p.wall_temperature)[1]}) + "\n";
    else
        t += "wall_restitution = " + num(p.wall_restitution) + "\n";
    for (std::size_t k = 0; k < p.species.size(); ++k) {
        const auto& s = p.species[k];
        t += "\n[[species]]\nname = \"s" + std::to_string(k) +
             "\"\ncount = " + std::to_string(s.count) + "\nradius = " + num(s.radius) +
             "\nmass = " + num(s.mass) + "\n";
        if (s.temperature) t += "temperature = " + num(*s.temperature) + "\n";
    }
    t += "\n[collisions]\nrestitution = " + num(p.restitution) + "\nepsilon = " + num(p.epsilon) +
         "\ntc = " + num(p.tc) + "\n";
    if (p.rest_speed > 0.0) t += "rest_speed = " + num(p.rest_speed) + "\n";
    if (p.contact_gap) t += "contact_gap = " + num(*p.contact_gap) + "\n";
    for (const auto& e : p.pair)
        t += "\n[[collisions.pair]]\na = \"s" + std::to_string(int(e[0])) + "\"\nb = \"s" +
             std::to_string(int(e[1])) + "\"\nrestitution = " + num(e[2]) + "\n";
    double shortest = 1e300;
    for (const double l : length) shortest = std::min(shortest, l);
    for (const auto& w : p.planes) {
        // through centre - n * depth * shortest edge: the centre is on the allowed side
        double n2 = 0.0;
        for (const double x : w.normal) n2 += x * x;
        std::vector<double> point = w.point;
        for (std::size_t a = 0; a < length.size() && w.point.empty(); ++a)
            point.push_back(0.5 * length[a] - w.normal[a] / std::sqrt(n2) * w.depth * shortest);
        t += "\n[[walls]]\nnormal = " + list(w.normal) + "\npoint = " + list(point) +
             "\nrestitution = " + num(w.restitution) + "\n";
    }
    const double margin = p.largest_diameter(); // clear of periodic faces, as config asks
    for (const auto& s : p.segments) {
        if (s.ends) {
            t += "\n[[walls]]\nfrom = " + list({(*s.ends)[0][0], (*s.ends)[0][1]}) +
                 "\nto = " + list({(*s.ends)[1][0], (*s.ends)[1][1]}) +
                 "\nrestitution = " + num(s.restitution) + "\n";
            continue;
        }
        const double dir[2] = {std::cos(s.angle), std::sin(s.angle)};
        double fit = 1e300; // longest segment of this direction inside [margin, L - margin]
        for (int a = 0; a < 2; ++a)
            if (std::abs(dir[a]) > 1e-12)
                fit = std::min(fit, (length[std::size_t(a)] - 2 * margin) / std::abs(dir[a]));
        const double l = std::max(0.05, std::min(fit, 0.4 * shortest) * s.length);
        std::vector<double> from(2), to(2);
        for (std::size_t a = 0; a < 2; ++a) {
            const double half = 0.5 * l * std::abs(dir[a]);
            const double lo = margin + half, hi = length[a] - margin - half;
            const double c = hi > lo ? lo + (hi - lo) * s.centre[a] : 0.5 * length[a];
            from[a] = c - 0.5 * l * dir[a];
            to[a] = c + 0.5 * l * dir[a];
        }
        t += "\n[[walls]]\nfrom = " + list(from) + "\nto = " + list(to) +
             "\nrestitution = " + num(s.restitution) + "\n";
    }
    for (const auto& tri : p.triangles) {
        std::string v;
        for (const auto& f : tri.vertex) {
            std::vector<double> x(3);
            for (std::size_t a = 0; a < 3; ++a) {
                const double m = p.periodic[a] ? margin : 0.0;
                x[a] = tri.absolute ? f[a] : m + (length[a] - 2 * m) * f[a];
            }
            v += (v.empty() ? "" : ", ") + list(x);
        }
        t += "\n[[walls]]\nvertices = [" + v + "]\nrestitution = " + num(tri.restitution) + "\n";
    }
    if (!p.gravity.empty() || p.drag > 0.0) {
        t += "\n[field]\n";
        if (!p.gravity.empty()) t += "gravity = " + list(p.gravity) + "\n";
        t += "drag = " + num(p.drag) + "\n";
    }
    t += "\n[init]\nlattice = \"" + p.lattice + "\"\nvelocities = \"" + p.velocities +
         "\"\nseed = " + std::to_string(p.init_seed) + "\n";
    if (p.region)
        t += "region = { low = " + list((*p.region)[0]) + ", high = " + list((*p.region)[1]) +
             " }\n";
    t += "\n[run]\ncollisions = " + std::to_string(p.collision_cap) + "\n";
    return t;
}

} // namespace scan
