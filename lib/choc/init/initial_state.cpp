#include "choc/init/initial_state.hpp"

#include "choc/collide/group_file.hpp"
#include "choc/errors.hpp"
#include "choc/init/lattice.hpp"
#include "choc/init/random_packing.hpp"
#include "choc/init/velocities.hpp"
#include "choc/io/h5md.hpp"
#include "choc/io/magnitude.hpp"
#include "choc/io/unit_vector.hpp"
#include "choc/io/xyz.hpp"
#include "choc/kernel/ball_volume.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/overlap.hpp"
#include "choc/kernel/triangle_cells.hpp"
#include "choc/message_text.hpp"
#include "choc/run/interrupt.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <random>
#include <span>
#include <spdlog/spdlog.h>
#include <stdexcept>
#include <tuple>

#include <sys/stat.h>

namespace choc {

namespace {

// The config key that fixes the box, for messages.
std::string box_key(const Config& c) {
    if (c.from) return "init.from";
    return c.packing_fraction ? "box.packing_fraction" : "box.size";
}

// Box lengths and periodic axes (no walls yet). box.packing_fraction: a cube (square) of
// volume sum_i v_i / packing_fraction; box.size: the given edges.
template <int D>
Box<D> config_box(const Config& c) {
    Box<D> box;
    for (int a = 0; a < D; ++a)
        box.periodic[a] = c.periodic.empty() || c.periodic.at(static_cast<std::size_t>(a));
    if (c.packing_fraction) {
        double volume = 0.0;
        for (const auto& s : c.species)
            volume += static_cast<double>(s.count) * ball_volume<D>(s.radius);
        const double edge = std::pow(volume / *c.packing_fraction, 1.0 / D);
        for (int a = 0; a < D; ++a) box.length[a] = edge;
    } else if (c.box_size) {
        if (c.box_size->size() != static_cast<std::size_t>(D))
            throw InputError(fmt::format("box.size: needs {} edge lengths", D));
        for (int a = 0; a < D; ++a) box.length[a] = (*c.box_size)[static_cast<std::size_t>(a)];
    } else {
        throw InputError("box: give box.packing_fraction or box.size");
    }
    return box;
}

// A [[walls]] segment (2D): inside the box, and on a periodic axis at least one largest
// diameter from the faces, so that no periodic image of a particle can touch it (the
// engine meets segments only in the box's own image).
template <int D>
Segment<D> config_segment(const Box<D>& box, const WallConfig& w, std::size_t k, double diameter) {
    if constexpr (D != 2) {
        throw InputError(fmt::format("walls[{}].from: segments are 2D walls", k));
    } else {
        Vec<D> end[2];
        for (int e = 0; e < 2; ++e) {
            const auto& given = e == 0 ? w.from : w.to;
            for (int a = 0; a < D; ++a) {
                const double x = given.at(static_cast<std::size_t>(a));
                const double margin = box.periodic[a] ? diameter : 0.0;
                if (!(x >= margin && x <= box.length[a] - margin))
                    throw InputError(fmt::format(
                        "walls[{}].{}: {} is outside the box [{}, {}] on axis {}{}", k,
                        e == 0 ? "from" : "to", x, margin, box.length[a] - margin, a,
                        box.periodic[a] ? " (one largest diameter clear of a periodic face)" : ""));
                end[e][a] = x;
            }
        }
        return Segment<D>::between(end[0], end[1], w.restitution);
    }
}

// A [[walls]] entry's triangles (3D), each vertex inside the box and, like a segment's end
// points, one largest diameter clear of a periodic face.
template <int D>
void add_config_triangles(Box<D>& box, const WallConfig& w, std::size_t k, double diameter) {
    if constexpr (D != 3) {
        throw InputError(fmt::format("walls[{}].vertices: triangles are 3D walls", k));
    } else {
        const std::string key =
            fmt::format("walls[{}].{}", k, w.mesh.empty() ? "vertices" : "mesh");
        box.triangles.reserve(box.triangles.size() + w.triangles.size());
        for (std::size_t f = 0; f < w.triangles.size(); ++f) {
            if ((f & 0xffff) == 0xffff) stop_if_interrupted("building a mesh's triangles");
            Vec<3> v[3];
            for (int c = 0; c < 3; ++c)
                for (int a = 0; a < D; ++a) {
                    const double x =
                        w.triangles[f][static_cast<std::size_t>(c)][static_cast<std::size_t>(a)];
                    const double margin = box.periodic[a] ? diameter : 0.0;
                    if (!(x >= margin && x <= box.length[a] - margin))
                        throw InputError(fmt::format(
                            "{}: {}vertex {} has {} outside the box [{}, {}] on axis {}{}", key,
                            w.mesh.empty() ? "" : fmt::format("facet {}: ", f), c, x, margin,
                            box.length[a] - margin, a,
                            box.periodic[a] ? " (one largest diameter clear of a periodic face)"
                                            : ""));
                    v[c][a] = x;
                }
            box.triangles.push_back(Triangle<3>::through(v[0], v[1], v[2], w.restitution));
            box.triangles.back().one_sided = w.one_sided;
        }
    }
}

// Walls at 0 and L on walled axes, then the [[walls]] planes: unit inward normal n and
// offset dot(point, n), so the signed distance of x is dot(x, n) - offset; the [[walls]]
// segments and the [[walls]] triangles.
template <int D>
void add_walls(Box<D>& box, const Config& c, double diameter) {
    add_box_walls(box, c.wall_restitution);
    // box.wall_temperature: each walled axis's pair is (low, high), in that order
    if (c.wall_temperature)
        for (std::size_t w = 0; w < box.walls.size(); ++w) {
            box.walls[w].temperature = (*c.wall_temperature)[w % 2];
            if (!c.wall_velocity.empty())
                for (int a = 0; a < D; ++a)
                    box.walls[w].velocity[a] = c.wall_velocity[w % 2][static_cast<std::size_t>(a)];
        }
    for (std::size_t k = 0; k < c.walls.size(); ++k) {
        const auto& w = c.walls[k];
        if (w.segment()) {
            box.segments.push_back(config_segment(box, w, k, diameter));
            continue;
        }
        if (w.triangle_wall()) {
            add_config_triangles(box, w, k, diameter);
            continue;
        }
        if (w.normal.size() != static_cast<std::size_t>(D) ||
            w.point.size() != static_cast<std::size_t>(D))
            throw InputError(fmt::format("walls[{}]: normal and point need {} entries", k, D));
        Wall<D> wall;
        // load_config gives unit normals already; a Config built otherwise is normalised
        // the same way.
        const auto unit = unit_vector(w.normal);
        if (!unit)
            throw InputError(fmt::format("walls[{}].normal: must be a non-zero finite vector", k));
        for (int a = 0; a < D; ++a) wall.normal[a] = (*unit)[static_cast<std::size_t>(a)];
        Vec<D> point;
        for (int a = 0; a < D; ++a) point[a] = w.point[static_cast<std::size_t>(a)];
        wall.offset = dot(point, wall.normal);
        wall.restitution = w.restitution;
        wall.temperature = w.temperature.value_or(0.0);
        for (std::size_t a = 0; a < w.velocity.size() && a < static_cast<std::size_t>(D); ++a)
            wall.velocity[static_cast<int>(a)] = w.velocity[a];
        box.walls.push_back(wall);
    }
}

// Particles that do not fit the box at all: a diameter longer than an edge, or a periodic
// edge under three diameters (the cell grid needs three cells per periodic axis).
template <int D>
void check_box_fits(const Box<D>& box, double diameter, const std::string& key) {
    for (int a = 0; a < D; ++a) {
        if (diameter > box.length[a])
            throw InputError(fmt::format("{}: the box edge {:.6g} is shorter than the largest "
                                         "particle diameter {:.6g}",
                                         key, box.length[a], diameter));
        if (box.periodic[a] && box.length[a] < 3 * diameter)
            throw InputError(fmt::format("{}: the periodic box edge {:.6g} is shorter than three "
                                         "largest diameters ({:.6g}); use more particles or a "
                                         "larger box",
                                         key, box.length[a], 3 * diameter));
    }
}

// A snapshot position folded into [0, L) on periodic axes: std::fmod first (exact, and
// no loop of subtractions that a huge coordinate would never finish), then Box::wrap for
// the sign, and L itself (a tiny negative plus L rounds up to L) onto 0. A position
// already inside the box is not changed, so a restart is bit-identical.
template <int D>
Vec<D> wrap_into(const Box<D>& box, Vec<D> x) {
    for (int a = 0; a < D; ++a)
        if (box.periodic[a]) x[a] = std::fmod(x[a], box.length[a]);
    x = box.wrap(x);
    for (int a = 0; a < D; ++a)
        if (box.periodic[a] && x[a] >= box.length[a]) x[a] = 0.0;
    return x;
}

// An HDF5 file starts with this signature (an H5MD trajectory is one).
bool is_hdf5_file(const std::string& path) {
    static constexpr char signature[] = "\x89HDF\r\n\x1a\n";
    std::array<char, 8> head{};
    std::ifstream in(path, std::ios::binary);
    in.read(head.data(), head.size());
    return in && std::equal(head.begin(), head.end(), signature);
}

// Positions and species from the last frame of init.from (extended XYZ or H5MD); returns
// the frame's time.
template <int D>
double from_snapshot(const Config& c, Box<D>& box, Particles<D>& particles) {
    const std::string path = escaped(*c.from);
    // Regular files only, as both readers require: the signature check below would block
    // opening a FIFO (a hang that SIGTERM did not end) or read a device.
    struct stat info {};
    if (::stat(c.from->c_str(), &info) == 0 && !S_ISREG(info.st_mode))
        throw InputError(fmt::format("init.from: {}: cannot read file: not a regular file", path));
    const bool h5md = is_hdf5_file(*c.from);
    const XyzFrame f = [&] {
        std::uint64_t n = 0;
        for (const auto& species : c.species) n += species.count;
        if (h5md) return H5mdFile::last_frame(*c.from, "init.from", n);
        try {
            return read_last_xyz_frame(*c.from);
        } catch (const InputError& e) { // "file:line: what" -> "init.from: file:line: what"
            throw InputError(std::string("init.from: ") + e.what());
        }
    }();
    if (f.dimension != D)
        throw InputError(fmt::format("init.from: {} holds a {}D frame but dimension = {}", path,
                                     f.dimension, D));
    // The frame's clock and box, bounded as config numbers are, in either format: the run's
    // clock goes on from the time (a NaN or 1e300 would label every frame so), and the box's
    // volume and cells come from the edges.
    if (!within_magnitude(f.time) || !std::isfinite(f.time))
        throw InputError(fmt::format("init.from: {}: the last frame's time ({}) {}", path,
                                     h5md ? "particles/all/position/time" : "Time=",
                                     magnitude_message("input values", f.time)));
    for (int a = 0; a < D; ++a) {
        const double edge = f.box[static_cast<std::size_t>(a)];
        if (!(edge > 0.0) || !within_magnitude(edge))
            throw InputError(fmt::format("init.from: {}: the last frame's box edge on axis {} "
                                         "({}) {}",
                                         path, a, h5md ? "particles/all/box/edges" : "Lattice=",
                                         edge > 0.0 ? magnitude_message("input values", edge)
                                                    : "must be > 0, got " + number_text(edge)));
    }
    for (int a = 0; a < D; ++a) {
        box.length[a] = f.box[static_cast<std::size_t>(a)];
        box.periodic[a] = c.periodic.empty() || c.periodic.at(static_cast<std::size_t>(a));
        if (box.periodic[a] != f.periodic[static_cast<std::size_t>(a)])
            spdlog::warn("init.from: {} has pbc {} on axis {}, the config's box.boundary wins",
                         path, f.periodic[static_cast<std::size_t>(a)] ? "T" : "F", a);
    }
    if (c.box_size) {
        bool same = c.box_size->size() == static_cast<std::size_t>(D);
        for (int a = 0; same && a < D; ++a)
            same = std::abs((*c.box_size)[static_cast<std::size_t>(a)] - box.length[a]) <=
                   1e-12 * box.length[a];
        if (!same)
            throw InputError(fmt::format("box.size: does not match the box of init.from {} ({})",
                                         path, fmt::join(f.box.begin(), f.box.begin() + D, " x ")));
    }
    if (!std::isfinite(box.volume()))
        throw InputError(fmt::format("init.from: {} has a box of {} whose volume is not a finite "
                                     "number",
                                     path, fmt::join(f.box.begin(), f.box.begin() + D, " x ")));
    std::vector<std::uint64_t> found(c.species.size(), 0);
    for (std::size_t i = 0; i < f.species.size(); ++i) {
        const auto it =
            std::find_if(c.species.begin(), c.species.end(),
                         [&](const SpeciesConfig& s) { return s.name == f.species[i]; });
        if (it == c.species.end())
            throw InputError(fmt::format("init.from: {} has a particle of species \"{}\", which is "
                                         "not among the config's [[species]]",
                                         path, escaped(f.species[i])));
        const auto s = static_cast<std::uint32_t>(it - c.species.begin());
        // The config's [[species]] fixes radius and mass; a snapshot column that disagrees
        // beyond round-off (a relative 1e-12; choc writes every digit) means the config
        // and the snapshot describe different systems: refused rather than one ignored.
        const auto disagrees = [](double file, double config) {
            return !(std::abs(file - config) <= 1e-12 * std::abs(config));
        };
        for (const auto& [column, values, wanted] :
             {std::tuple{"radius", &f.radius, it->radius}, {"mass", &f.mass, it->mass}})
            if (!values->empty() && disagrees((*values)[i], wanted))
                throw InputError(fmt::format(
                    "init.from: {}:{}: column {} is {} but species \"{}\" has {} = {} in the "
                    "config (they must agree to a relative 1e-12)",
                    path, f.first_line + i, column, (*values)[i], it->name, column, wanted));
        ++found[s];
        Vec<D> x, v;
        for (int a = 0; a < D; ++a) {
            x[a] = f.position[i][static_cast<std::size_t>(a)];
            v[a] = f.velocity[i][static_cast<std::size_t>(a)];
            // A walled axis holds particles in [0, L]: one outside would never meet the
            // wall from the allowed side (the overlap check then names how close it is).
            if (!box.periodic[a] && !(x[a] >= 0.0 && x[a] <= box.length[a]))
                throw InputError(fmt::format("init.from: {}: particle {} (counting from 0 in the "
                                             "last frame) is at {} on axis {}, outside the "
                                             "walled box [0, {}]",
                                             path, i, x[a], a, box.length[a]));
            // Bounded like config numbers: with the mass (config) also within 1e50, m v^2
            // and its sum over every particle stay finite.
            for (const auto& [what, value] : {std::pair{"position", x[a]}, {"velocity", v[a]}})
                if (!within_magnitude(value))
                    throw InputError(fmt::format(
                        "init.from: {}:{}: particle {} (counting from 0 in the last frame): {} "
                        "component {} {}",
                        path, f.first_line + i, i, what, a,
                        magnitude_message("input values", value)));
        }
        x = wrap_into(box, x);
        particles.add(x, v, s);
    }
    for (std::size_t k = 0; k < c.species.size(); ++k)
        if (found[k] != c.species[k].count)
            throw InputError(fmt::format("species[{}].count: {} particles of \"{}\" requested, but "
                                         "init.from {} holds {}",
                                         k, c.species[k].count, c.species[k].name, path, found[k]));
    // The box comes from the snapshot: a packing fraction in the config (the one the run
    // that wrote it was started with, say) may stay if it is the snapshot's.
    if (c.packing_fraction) {
        double volume = 0.0;
        for (std::uint32_t i = 0; i < particles.size(); ++i)
            volume += ball_volume<D>(c.species[particles.state[i].species].radius);
        const double held = volume / box.volume();
        if (!(std::abs(held - *c.packing_fraction) <= 1e-9 * *c.packing_fraction))
            throw InputError(fmt::format("box.packing_fraction: is {} but init.from {} holds "
                                         "{} (the box comes from the snapshot: leave "
                                         "packing_fraction out, or give the snapshot's)",
                                         *c.packing_fraction, path, held));
    }
    return f.time;
}

// The sliding images move at |gamma| L_y against the box, and the engine's windows across
// the sliding face move on at every column they pass (lees_edwards.hpp): at a speed far
// above the particles' own the run would do little but that (and at an absurd rate its
// clock could not resolve one column's passing from the next). At most 1000 times the
// start's rms speed, which a start at rest does not have.
template <int D>
void check_sliding_speed(const InitialState<D>& st, double rate) {
    if (rate == 0.0) return;
    double mass = 0.0, twice_kinetic = 0.0;
    for (std::uint32_t i = 0; i < st.particles.size(); ++i) {
        mass += st.particles.mass(i);
        twice_kinetic += st.particles.mass(i) * norm2(st.particles.state[i].v);
    }
    const double rms = std::sqrt(twice_kinetic / mass), sliding = std::abs(rate) * st.box.length[1];
    if (!(sliding <= 1000.0 * rms))
        throw InputError(fmt::format("box.shear_rate: the sliding speed |shear_rate| L_y = {:.6g} "
                                     "is more than 1000 times the particles' rms speed {:.6g} "
                                     "at the start; use a smaller rate (or moving particles)",
                                     sliding, rms));
}

// Lattice or random positions, species shuffled over them, then velocities.
template <int D>
void generate(const Config& c, const Box<D>& box, Particles<D>& particles, std::mt19937_64& rng) {
    std::vector<std::uint32_t> species;
    double volume = 0.0, largest = 0.0;
    for (std::size_t s = 0; s < c.species.size(); ++s) {
        species.insert(species.end(), c.species[s].count, static_cast<std::uint32_t>(s));
        volume += static_cast<double>(c.species[s].count) * ball_volume<D>(c.species[s].radius);
        largest = std::max(largest, c.species[s].radius);
    }
    std::shuffle(species.begin(), species.end(), rng);

    const std::string lattice = c.lattice.empty() ? (D == 3 ? "fcc" : "hex") : c.lattice;
    std::vector<Vec<D>> x;
    if (lattice == "random") {
        std::vector<double> radius(species.size());
        for (std::size_t i = 0; i < species.size(); ++i) radius[i] = c.species[species[i]].radius;
        Region<D> region;
        for (std::size_t a = 0; a < c.region_low.size(); ++a) {
            region.low[a] = c.region_low[a];
            region.high[a] = c.region_high[a];
        }
        x = random_packing(box, radius, rng, c.region_low.empty() ? nullptr : &region);
    } else {
        x = lattice_sites(lattice, box, species.size(), largest, volume, box_key(c), rng);
    }
    particles.state.reserve(species.size());
    for (std::size_t i = 0; i < species.size(); ++i) particles.add(x[i], Vec<D>{}, species[i]);

    std::vector<double> temperature;
    for (const auto& s : c.species) temperature.push_back(s.temperature.value_or(c.temperature));
    assign_velocities(particles, c.velocities, temperature, rng);
}

} // namespace

// Every particle on the allowed side of each [[walls]] plane, and away from each segment
// and triangle, by at least its radius (the box walls are kept clear by construction, or
// by the overlap check). A mesh's triangles are looked up by cell: a particle meets the
// few near it.
template <int D>
void check_clear_of_walls(const Config& config, const InitialState<D>& st) {
    const auto& box = st.box;
    const auto& particles = st.particles;
    // the [[walls]] planes come after the box's own walls
    std::size_t plane = box.walls.size(), segment = 0, triangle = 0;
    for (const auto& w : config.walls) plane -= !w.segment() && !w.triangle_wall();
    auto fail = [&](std::size_t k, std::uint32_t i, double d, const char* what,
                    const std::string& where) {
        throw InputError(fmt::format(
            "walls[{}]: particle {} at distance {:.6g} from the {}{} is closer than its radius "
            "{:.6g}{}; move the wall or change {}",
            k, i, d, what, where, particles.radius(i),
            std::string_view(what) == "wall" ? " or on the wrong side" : "",
            config.walls[k].triangle_wall() ? "where the particles start (init.region)"
                                            : box_key(config)));
    };
    for (std::size_t k = 0; k < config.walls.size(); ++k) {
        const auto& w = config.walls[k];
        if (w.triangle_wall() && w.one_sided && config.from) {
            // a frame may catch spheres passing through a one-sided wall from behind
            triangle += w.triangles.size();
            continue;
        }
        if (w.triangle_wall()) {
            // this entry's triangles, in a grid of cells one largest diameter wide
            const std::span<const Triangle<D>> mine(box.triangles.data() + triangle,
                                                    w.triangles.size());
            const double a = 0.5 * particles.table.largest_diameter();
            const Cells<D> grid(box, 2.0 * a, particles.size(), typename Cells<D>::NoLists{});
            const TriangleCells<D> near(grid, mine, a * (1.0 + 1e-9));
            for (std::uint32_t i = 0; i < particles.size(); ++i) {
                const Vec<D>& x = particles.state[i].x;
                const std::uint32_t c = grid.cell_at(x);
                for (const auto* t = near.begin(c); t != near.end(c); ++t)
                    if (mine[t->index].distance(x) < particles.radius(i))
                        fail(k, i, mine[t->index].distance(x), w.mesh.empty() ? "triangle" : "mesh",
                             w.mesh.empty() ? std::string() : fmt::format(" (facet {})", t->index));
            }
            triangle += w.triangles.size();
            continue;
        }
        const bool is_segment = w.segment();
        auto distance = [&](const Vec<D>& x) {
            return is_segment ? box.segments[segment].distance(x) : box.walls[plane].distance(x);
        };
        for (std::uint32_t i = 0; i < particles.size(); ++i)
            if (distance(particles.state[i].x) < particles.radius(i))
                fail(k, i, distance(particles.state[i].x), is_segment ? "segment" : "wall", "");
        ++(is_segment ? segment : plane);
    }
}

template <int D>
InitialState<D> make_initial_state(const Config& config) {
    if (config.dimension != D)
        throw std::logic_error(
            fmt::format("make_initial_state<{}> called with dimension = {}", D, config.dimension));
    if (config.species.empty()) throw InputError("species: at least one [[species]] is needed");

    std::vector<Species> species;
    for (std::size_t k = 0; k < config.species.size(); ++k) {
        const auto& s = config.species[k];
        // names are one whitespace-free word in trajectory files (the XYZ type column)
        if (s.name.empty() || s.name.find_first_of(" \t\r\n") != std::string::npos)
            throw InputError(fmt::format("species[{}].name: \"{}\" must be one word without "
                                         "spaces",
                                         k, s.name));
        species.push_back({s.name, s.radius, s.mass});
    }
    InitialState<D> st;
    st.particles.table = SpeciesTable(std::move(species));
    const double diameter = st.particles.table.largest_diameter();
    const std::string key = box_key(config);
    std::mt19937_64 rng(config.seed);

    if (config.from)
        st.time = from_snapshot(config, st.box, st.particles);
    else
        st.box = config_box<D>(config);
    check_box_fits(st.box, diameter, key);
    add_walls(st.box, config, diameter);
    if (!config.from) generate(config, st.box, st.particles, rng);

    check_clear_of_walls(config, st);

    // A snapshot may hold pairs at contact, whose written coordinates put them a rounding
    // (~1e-16 relative) inside it: the same relative contact tolerance as `choc collide`
    // (default_contact_tolerance, 1e-9) counts them as touching. Generated starts have gaps.
    const double overlap = max_overlap(st.box, st.particles, 0.0);
    if (overlap > (config.from ? default_contact_tolerance : 0.0))
        throw InputError(fmt::format("{}: the starting configuration overlaps (largest overlap "
                                     "{:.3g} of a contact distance){}",
                                     key, overlap,
                                     !config.from ? "; use a lower packing fraction"
                                     : config.shear_rate != 0.0
                                         ? " with the periodic images aligned, as a run with "
                                           "box.shear_rate starts them (a frame of a sheared "
                                           "run has them slid: continue such a run from its "
                                           "checkpoint, output.checkpoint)"
                                         : ""));
    // Sliding boundaries last: at t = 0 the images are aligned, so the placement and the
    // overlap check above see an ordinary periodic box (a sheared one's cells stop at the
    // y faces, cells.hpp, and would miss the pairs across them).
    st.box.shear_rate = config.shear_rate;
    check_sliding_speed(st, config.shear_rate);
    return st;
}

template InitialState<2> make_initial_state<2>(const Config&);
template InitialState<3> make_initial_state<3>(const Config&);

} // namespace choc
