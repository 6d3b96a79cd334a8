// load_config / parse_config: TOML (toml++) -> Config. The document is first parsed,
// then the --set overrides are applied to the parsed tree, and only then is the whole
// tree validated, so an override is checked exactly like a key written in the file.
#include "choc/run/config.hpp"

#include "choc/run/config_scales.hpp"

#include "choc/errors.hpp"
#include "choc/io/stl_mesh.hpp"
#include "choc/io/toml_file.hpp"
#include "choc/io/toml_reader.hpp"
#include "choc/io/unit_vector.hpp"
#include "choc/kernel/ball_volume.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/triangle.hpp"
#include "choc/message_text.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/run/run_limits.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <new>
#include <set>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace choc {
namespace {

// Largest total particle count (over all species).
constexpr std::uint64_t max_particles = std::uint64_t{1} << 31;

// Most slabs of output.profile: each is a CSV row and a few sums per block.
constexpr std::size_t max_profile_slabs = 100'000;

// Species names: they head CSV columns and XYZ type fields and appear in messages, so
// only characters that need no quoting anywhere.
constexpr std::size_t max_name_length = 64;
bool valid_name(std::string_view name) {
    if (name.empty() || name.size() > max_name_length) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
               c == '+';
    });
}

using choc::show;

std::string show(double x) {
    return number_text(x);
}

// A whole count held in a double: digits while they are exact, else the shortest form.
std::string count(double x) {
    if (x < 9e15) return std::to_string(static_cast<std::uint64_t>(std::floor(x)));
    return show(x);
}

std::string trim(std::string_view text) {
    auto begin = text.find_first_not_of(" \t");
    if (begin == std::string_view::npos) return "";
    auto end = text.find_last_not_of(" \t");
    return std::string(text.substr(begin, end - begin + 1));
}

// One element of an override's key path: a table key, or an array index written either
// as a dotted element ("species.0") or in brackets ("species[0]", as messages spell it).
struct KeyElement {
    std::string text;
    bool bracketed = false;
};

// "species[0].radius" -> species, [0], radius; "box.size.1" -> box, size, 1. Empty when
// the key is malformed (an unclosed bracket, text after "]", a trailing dot).
std::optional<std::vector<KeyElement>> split_key(const std::string& dotted) {
    std::vector<KeyElement> path;
    if (dotted.empty() || dotted.ends_with('.')) return std::nullopt;
    std::istringstream parts(dotted);
    for (std::string part; std::getline(parts, part, '.');) {
        auto bracket = part.find('[');
        path.push_back({trim(std::string_view(part).substr(0, bracket)), false});
        while (bracket != std::string::npos) {
            auto close = part.find(']', bracket);
            if (close == std::string::npos) return std::nullopt;
            path.push_back(
                {trim(std::string_view(part).substr(bracket + 1, close - bracket - 1)), true});
            std::string after = trim(std::string_view(part).substr(close + 1));
            if (after.empty()) break;
            if (after.front() != '[') return std::nullopt;
            bracket = part.find('[', close + 1);
        }
    }
    return path;
}

// Applies one "dotted.key=value" to the tree and returns the key as messages spell it
// ("species[0].count").
// Tables that the override created (absent from the file) go to `created`: a key missing
// from such a table is the override's omission, not the file's.
std::string apply_override(toml::table& root, const std::string& text,
                           std::vector<std::string>& created) {
    auto equals = text.find('=');
    std::string dotted = equals == std::string::npos ? "" : trim(text.substr(0, equals));
    auto path = split_key(dotted);
    auto empty = [](const KeyElement& element) { return element.text.empty(); };
    if (!path || path->empty() || std::any_of(path->begin(), path->end(), empty))
        throw InputError("--set " + escaped(text) + ": expected KEY=VALUE");
    auto fail = [&](const std::string& what) {
        // Every part of `what` but our own words is the user's text.
        throw InputError("--set: " + escaped(dotted) + ": " + escaped(what));
    };

    // A TOML value if it parses as one, else the raw text, so `init.lattice=sc` works.
    std::string raw = trim(std::string_view(text).substr(equals + 1));
    toml::table parsed;
    try {
        parsed = toml::parse(std::string_view("v = " + raw), std::string_view("--set"));
    } catch (const toml::parse_error&) {
    }
    if (parsed.size() != 1 || !parsed.contains("v")) parsed = toml::table{{"v", raw}};
    toml::node& value = *parsed.get("v");

    toml::node* node = &root;
    std::string shown;
    for (std::size_t i = 0; i < path->size(); ++i) {
        const std::string& element = (*path)[i].text;
        bool last = i + 1 == path->size();
        if (toml::table* table = node->as_table()) {
            if ((*path)[i].bracketed)
                fail((shown.empty() ? "the top level" : shown) +
                     " is a table, not an array, so it has no index [" + element + "]");
            shown += (shown.empty() ? "" : ".") + element;
            if (last) {
                value.visit([&](auto& v) { table->insert_or_assign(element, std::move(v)); });
            } else {
                node = table->get(element);
                if (!node) {
                    node = &table->insert(element, toml::table{}).first->second;
                    created.push_back(shown);
                }
            }
        } else if (toml::array* array = node->as_array()) {
            std::size_t index = 0;
            auto [end, error] =
                std::from_chars(element.data(), element.data() + element.size(), index);
            if (error != std::errc{} || end != element.data() + element.size())
                fail(shown + " is an array: expected an index, got \"" + element + "\"");
            if (index >= array->size()) {
                const std::size_t n = array->size();
                fail("index " + element + " is out of range: " + shown + " has " +
                     (n == 1 ? std::string("1 entry (index 0)")
                             : std::to_string(n) + " entries (indices 0 to " +
                                   std::to_string(n - 1) + ")") +
                     "; --set changes an entry, it cannot add one: " +
                     (array->is_array_of_tables()
                          ? "add a [[" + shown + "]] table to the config file"
                          : "give the whole array (--set " + shown + "=[...])"));
            }
            shown += "[" + element + "]";
            if (last) {
                value.visit(
                    [&](auto& v) { array->replace(array->cbegin() + index, std::move(v)); });
            } else {
                node = array->get(index);
            }
        } else {
            fail(shown + " is " + show(*node) + ", not a table, so it has no key \"" + element +
                 "\"");
        }
    }
    return shown;
}

void check_readable(const KeySource& source, const std::string& key, const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        source.fail(key, "cannot read file \"" + escaped(path) + "\": is a directory");
    if (::access(path.c_str(), R_OK) != 0)
        source.fail(key, "cannot read file \"" + escaped(path) + "\": " + std::strerror(errno));
}

// output.trajectory and output.timeseries: path and every; the trajectory also a format
// and the most bytes it may take.
std::optional<PeriodicOutput> periodic_output(const Section& output, std::string_view name) {
    if (!output.has(name)) return std::nullopt;
    Section table = output.table(name);
    const bool trajectory = name == "trajectory";
    if (trajectory)
        table.allow({"path", "every", "format", "max_bytes"});
    else
        table.allow({"path", "every"});
    PeriodicOutput result;
    if (trajectory)
        if (const auto format = table.string("format")) {
            if (*format == "h5md")
                result.format = TrajectoryFormat::h5md;
            else if (*format != "xyz")
                table.fail("format",
                           "must be \"xyz\" or \"h5md\", got \"" + escaped(*format) + "\"");
        }
    if (trajectory)
        if (const auto most = table.number("max_bytes", Range::positive)) {
            if (*most < 1.0) table.fail("max_bytes", "must be >= 1 (bytes), got " + show(*most));
            result.max_bytes = *most;
        }
    result.path = table.required_string("path");
    auto every = table.number("every", Range::positive);
    if (!every) table.fail("every", "required key is missing");
    result.every = *every;
    return result;
}

// box.wall_temperature: one temperature for every box wall, or [at 0, at L] of each
// walled axis. Whether an axis is walled is checked once box.boundary is read.
void read_wall_temperature(const Section& box, Config& config) {
    const toml::node* node = box.get("wall_temperature");
    if (!node) return;
    std::array<double, 2> t{};
    if (node->is_array()) {
        const auto pair = box.numbers("wall_temperature", 2);
        t = {(*pair)[0], (*pair)[1]};
        for (std::size_t k = 0; k < 2; ++k)
            if (!(t[k] > 0.0))
                box.fail("wall_temperature[" + std::to_string(k) + "]",
                         "must be > 0 (a thermal wall's temperature), got " + show(t[k]));
    } else {
        const double one = *box.number("wall_temperature", Range::positive);
        t = {one, one};
    }
    if (box.has("wall_restitution"))
        box.fail("wall_temperature", "thermal walls re-emit what hits them and have no "
                                     "restitution: give wall_temperature or wall_restitution, "
                                     "not both");
    config.wall_temperature = t;
}

void read_box(const Section& root, Config& config) {
    const int dimension = config.dimension;
    Section box = root.table("box");
    box.allow({"packing_fraction", "size", "boundary", "wall_restitution", "wall_temperature",
               "wall_velocity", "shear_rate", "shear_temperature"});
    config.shear_rate = box.number("shear_rate", Range::any).value_or(0.0);
    config.shear_temperature = box.number("shear_temperature", Range::positive);
    if (config.shear_temperature && config.shear_rate == 0.0)
        box.fail("shear_temperature", "needs box.shear_rate: it is the temperature of the "
                                      "sheared fluid's thermostat");
    config.packing_fraction = box.number("packing_fraction", Range::unit_open);
    config.wall_restitution = box.number("wall_restitution", Range::unit_closed).value_or(1.0);
    read_wall_temperature(box, config);
    config.box_size = box.numbers("size", dimension);
    if (config.box_size)
        for (int i = 0; i < dimension; ++i)
            if (!((*config.box_size)[i] > 0))
                root.fail("box.size[" + std::to_string(i) + "]",
                          "must be > 0, got " + show((*config.box_size)[i]));
    if (config.packing_fraction && config.box_size)
        root.fail("box", "give either packing_fraction or size, not both");
    if (!config.packing_fraction && !config.box_size && !config.from)
        root.fail("box", "give packing_fraction or size (or start from a snapshot with init.from)");

    config.periodic.assign(dimension, true);
    const toml::node* node = box.get("boundary");
    if (!node) return;
    const KeySource& source = box.source();
    auto is_periodic = [&](const toml::node& axis, const std::string& key) {
        std::string kind = source.string(axis, key);
        if (kind != "periodic" && kind != "wall")
            source.fail(key, "must be \"periodic\" or \"wall\", got \"" + escaped(kind) + "\"");
        return kind == "periodic";
    };
    if (const toml::array* axes = node->as_array()) {
        if (axes->size() != static_cast<std::size_t>(dimension))
            box.fail("boundary", "expected one entry per axis (" + std::to_string(dimension) +
                                     "), got " + std::to_string(axes->size()));
        for (int i = 0; i < dimension; ++i)
            config.periodic[i] =
                is_periodic(*axes->get(i), box.key("boundary") + "[" + std::to_string(i) + "]");
    } else if (node->is_string()) {
        config.periodic.assign(dimension, is_periodic(*node, box.key("boundary")));
    } else {
        box.fail("boundary", "expected \"periodic\", \"wall\" or an array of them (one per "
                             "axis), got " +
                                 show(*node));
    }
}

// box.wall_velocity: [[velocity of the walls at 0], [velocity of the walls at L]], each
// along the periodic axes only (in the plane of every box wall).
void read_wall_velocity(const Section& box, Config& config) {
    const toml::node* node = box.get("wall_velocity");
    if (!node) return;
    const toml::array* pair = node->as_array();
    if (!pair || pair->size() != 2)
        box.fail("wall_velocity", "expected two velocities [[at 0], [at L]], got " + show(*node));
    const KeySource& source = box.source();
    for (std::size_t k = 0; k < 2; ++k) {
        const std::string key = box.key("wall_velocity") + "[" + std::to_string(k) + "]";
        auto v = source.numbers(*pair->get(k), key, static_cast<std::size_t>(config.dimension));
        for (int a = 0; a < config.dimension; ++a)
            if (!config.periodic[a] && v[static_cast<std::size_t>(a)] != 0.0)
                source.fail(key, "must be 0 along every walled axis (axis " + std::to_string(a) +
                                     "): a wall moves in its own plane");
        config.wall_velocity.push_back(std::move(v));
    }
    if (!config.wall_temperature)
        box.fail("wall_velocity", "needs box.wall_temperature: only a thermal wall drags the "
                                  "gas (a specular one reflects it unchanged)");
}

// Thermal walls are re-emitted one at a time by the event-driven engine.
void check_thermal_walls(const Section& root, const Config& config) {
    const bool box_walls =
        std::find(config.periodic.begin(), config.periodic.end(), false) != config.periodic.end();
    if (config.wall_temperature && !box_walls)
        root.fail("box.wall_temperature", "the box has no walls: set box.boundary to \"wall\" on "
                                          "the axis the heat should cross");
    std::optional<std::string> thermal;
    if (config.wall_temperature) thermal = "box.wall_temperature";
    for (std::size_t k = 0; k < config.walls.size() && !thermal; ++k)
        if (config.walls[k].temperature) thermal = "walls[" + std::to_string(k) + "].temperature";
    if (!thermal) return;
    if (config.epsilon > 0.0)
        root.fail("collisions.epsilon", "must be 0 with thermal walls (" + *thermal +
                                            "): a simultaneous group's impulses cannot "
                                            "re-emit a particle at a wall's temperature");
    if (config.integrator == Integrator::timestep)
        root.fail("run.integrator", "thermal walls (" + *thermal +
                                        ") need the event-driven integrator: leave "
                                        "run.integrator out");
}

// Triangle walls are met by the event-driven engine only.
void check_triangle_walls(const Section& root, const Config& config) {
    if (config.integrator != Integrator::timestep) return;
    for (std::size_t k = 0; k < config.walls.size(); ++k)
        if (config.walls[k].triangle_wall())
            root.fail("run.integrator", "triangle walls (walls[" + std::to_string(k) +
                                            "]) need the event-driven integrator: leave "
                                            "run.integrator out");
}

// collisions.rest_speed: the rest model (the kernel's resting.hpp). Particles rest on their
// supports against gravity; the time-stepped integrator knows no particle at rest.
void check_rest(const Section& root, const Config& config) {
    if (config.rest_speed == 0.0) return;
    if (std::all_of(config.gravity.begin(), config.gravity.end(), [](double g) { return g == 0; }))
        root.fail("collisions.rest_speed",
                  "needs field.gravity: particles are put to rest against gravity");
    if (config.integrator == Integrator::timestep)
        root.fail("collisions.rest_speed", "needs the event-driven integrator: leave "
                                           "run.integrator out");
}

// box.shear_rate: Lees-Edwards sliding boundaries (the engine's lees_edwards.hpp). The
// images slide across the y faces of a box periodic on every axis; anything that needs a
// wall, a curved flight, a simultaneous group or a fixed image convention is refused.
void check_sliding(const Section& root, const Config& config) {
    if (config.shear_rate == 0.0) return;
    const std::string why = " with box.shear_rate (sliding boundaries)";
    if (std::find(config.periodic.begin(), config.periodic.end(), false) != config.periodic.end())
        root.fail("box.boundary", "must be \"periodic\" on every axis" + why +
                                      ": the images slide across the y faces");
    if (!config.walls.empty())
        root.fail("walls[0]", "a box with box.shear_rate (sliding boundaries) has no walls");
    if (std::any_of(config.gravity.begin(), config.gravity.end(), [](double g) { return g != 0; }))
        root.fail("field.gravity",
                  "must be 0" + why + ": the sliding images need straight flights");
    if (config.drag > 0.0)
        root.fail("field.drag", "must be 0" + why + ": the sliding images need straight flights");
    if (config.epsilon > 0.0)
        root.fail("collisions.epsilon",
                  "must be 0" + why +
                      ": a simultaneous group is not resolved across the sliding face");
    if (config.integrator == Integrator::timestep)
        root.fail("run.integrator", "sliding boundaries (box.shear_rate) need the event-driven "
                                    "integrator: leave run.integrator out");
    // These observers fold positions or velocities with the plain periodic images.
    if (config.rdf)
        root.fail("output.rdf",
                  "is not measured" + why +
                      " (the pairs across the sliding face are seen through moving images)");
    if (config.vacf)
        root.fail("output.vacf",
                  "is not measured" + why +
                      " (a particle crossing the sliding face changes its velocity)");
}

void read_species(const Section& root, Config& config) {
    const toml::node* node = root.get("species");
    if (!node || (node->is_array() && node->as_array()->empty()))
        root.fail("species", "at least one [[species]] table is required");
    std::set<std::string> names;
    if (node->is_array() && node->as_array()->size() > max_species)
        root.fail("species", std::to_string(node->as_array()->size()) +
                                 " species, more than the limit of " + std::to_string(max_species) +
                                 " (the engine keeps tables over every pair of species)");
    std::uint64_t total = 0;
    for (const Section& entry : root.tables("species")) {
        entry.allow({"name", "count", "radius", "mass", "temperature"});
        SpeciesConfig species;
        species.name = entry.required_string("name");
        if (!valid_name(species.name))
            entry.fail("name",
                       "\"" + escaped(species.name) + "\" is not a valid species name: use 1 to " +
                           std::to_string(max_name_length) + " ASCII letters, digits and _ - . +");
        if (!names.insert(species.name).second)
            entry.fail("name", "duplicate species name \"" + species.name + "\"");
        auto count = entry.integer("count", 1);
        if (!count) entry.fail("count", "required key is missing");
        species.count = static_cast<std::uint64_t>(*count);
        // Particle indices are 32-bit; each count is below 2^63, so the sum cannot wrap
        // before it is caught here.
        total += species.count;
        if (total > max_particles)
            entry.fail("count", "the total particle count over all species would be " +
                                    std::to_string(total) + ", more than the limit " +
                                    std::to_string(max_particles) + " (2^31)");
        species.radius = entry.number("radius", Range::positive).value_or(species.radius);
        species.mass = entry.number("mass", Range::positive).value_or(species.mass);
        species.temperature = entry.number("temperature", Range::positive);
        config.species.push_back(species);
    }
}

// The cubic (square) box that box.packing_fraction implies, edge (sum_i v_i / phi)^(1/D),
// checked against the same bounds as a given box.size before anything is sized from it:
// with huge radii the volume overflowed to inf and the lattice was never filled (a hang).
void check_derived_box(const Section& root, const Config& config) {
    if (!config.packing_fraction) return;
    double volume = 0.0;
    for (const auto& s : config.species)
        volume += static_cast<double>(s.count) *
                  (config.dimension == 3 ? ball_volume<3>(s.radius) : ball_volume<2>(s.radius));
    const double edge = std::pow(volume / *config.packing_fraction, 1.0 / config.dimension);
    if (!(edge >= min_magnitude && edge <= max_magnitude))
        root.table("box").fail("packing_fraction",
                               "gives a box edge of " + show(edge) + ", outside [" +
                                   show(min_magnitude) + ", " + show(max_magnitude) +
                                   "]; use other radii, counts or packing fraction");
}

void read_collisions(const Section& root, Config& config) {
    Section collisions = root.table("collisions");
    collisions.allow(
        {"restitution", "epsilon", "contact_gap", "tc", "on_collapse", "rest_speed", "pair"});
    config.restitution = collisions.number("restitution", Range::unit_closed).value_or(1.0);
    config.epsilon = collisions.number("epsilon", Range::non_negative).value_or(0.0);
    config.contact_gap =
        collisions.number("contact_gap", Range::non_negative).value_or(config.contact_gap);
    // A "touching" pair a percent apart is no longer touching: larger values are a mistake.
    if (config.contact_gap > 0.01)
        collisions.fail("contact_gap", "must be at most 0.01 (a fraction of the contact "
                                       "distance), got " +
                                           show(config.contact_gap));
    config.tc = collisions.number("tc", Range::non_negative).value_or(0.0);
    config.rest_speed = collisions.number("rest_speed", Range::non_negative).value_or(0.0);
    if (auto mode = collisions.string("on_collapse")) {
        if (*mode != "stop" && *mode != "tc")
            collisions.fail("on_collapse",
                            "expected \"stop\" or \"tc\", got \"" + escaped(*mode) + "\"");
        config.tc_on_collapse = *mode == "tc";
        if (config.tc_on_collapse && config.tc <= 0)
            collisions.fail("on_collapse", "\"tc\" switches the TC model on at a collapse: it "
                                           "needs collisions.tc > 0");
    }
    auto pairs = collisions.tables("pair");
    for (const Section& pair : pairs) {
        pair.allow({"a", "b", "restitution"});
        std::array<std::uint32_t, 2> index{};
        for (int k = 0; k < 2; ++k) {
            const char* side = k == 0 ? "a" : "b";
            std::string name = pair.required_string(side);
            auto known = [&](const SpeciesConfig& s) { return s.name == name; };
            const auto it = std::find_if(config.species.begin(), config.species.end(), known);
            if (it == config.species.end())
                pair.fail(side, "no species is named \"" + escaped(name) + "\"");
            index[k] = static_cast<std::uint32_t>(it - config.species.begin());
        }
        const auto e = pair.number("restitution", Range::unit_closed);
        if (!e) pair.fail("restitution", "required key is missing");
        for (const PairRestitution& seen : config.pair_restitution)
            if (std::minmax(seen.a, seen.b) == std::minmax(index[0], index[1]))
                pair.fail("b", "this pair of species already has a restitution");
        config.pair_restitution.push_back({index[0], index[1], *e});
    }
    // Refused rather than ignored: a run must never silently use different physics.
}

// A segment (2D): `from` and `to` instead of `normal` and `point`. Whether it lies inside
// the box is checked with the box (make_initial_state): its size may come from elsewhere.
void read_segment(const Section& entry, const Config& config, WallConfig& wall) {
    const char* form = entry.has("from") ? "from" : "to";
    if (config.dimension != 2)
        entry.fail(form, "segments (from, to) are 2D walls; in 3D give normal and point");
    for (const char* plane_key : {"normal", "point"})
        if (entry.has(plane_key))
            entry.fail(plane_key, "give either normal and point (a plane) or from and to (a "
                                  "segment), not both");
    auto from = entry.numbers("from", 2);
    if (!from) entry.fail("from", "required key is missing (a segment needs from and to)");
    auto to = entry.numbers("to", 2);
    if (!to) entry.fail("to", "required key is missing (a segment needs from and to)");
    if (*from == *to) entry.fail("to", "must differ from `from` (a segment needs a length)");
    wall.from = *from;
    wall.to = *to;
}

// Triangles (3D): `vertices` (one triangle) or `mesh` (an STL file's facets), each optionally
// scaled (a factor, or one per axis) and then translated. Whether they lie inside the box
// and clear of the particles is checked with the box and the particles (make_initial_state).
void read_triangles(const Section& entry, const Config& config, WallConfig& wall) {
    const char* form = entry.has("vertices") ? "vertices" : "mesh";
    if (config.dimension != 3)
        entry.fail(form, "triangles (vertices, mesh) are 3D walls; in 2D give from and to");
    if (entry.has("vertices") && entry.has("mesh"))
        entry.fail("mesh", "give either vertices (one triangle) or mesh (a file), not both");
    for (const char* other : {"normal", "point", "from", "to"})
        if (entry.has(other))
            entry.fail(other, std::string("a triangle wall (") + form + ") takes no " + other);
    if (wall.temperature)
        entry.fail("temperature", "only plane walls (normal and point) can be thermal");
    std::array<double, 3> scale{1.0, 1.0, 1.0}, shift{0.0, 0.0, 0.0};
    if (const toml::node* node = entry.get("scale")) {
        if (node->is_array()) {
            const auto s = entry.source().numbers(*node, entry.key("scale"), 3);
            std::copy(s.begin(), s.end(), scale.begin());
        } else {
            scale.fill(*entry.number("scale"));
        }
        for (const double s : scale)
            if (!(s > 0.0)) entry.fail("scale", "must be > 0 (one factor, or one per axis)");
    }
    if (auto t = entry.numbers("translate", 3)) std::copy(t->begin(), t->end(), shift.begin());
    if (const auto sides = entry.integer("sides", 1)) {
        if (*sides > 2)
            entry.fail("sides", "must be 1 (a wall on the side its normal points to, passed "
                                "through from behind) or 2 (a wall on both sides, the default)");
        wall.one_sided = *sides == 1;
    }
    std::vector<MeshTriangle> given;
    const char* key = form;
    if (entry.has("vertices")) {
        const toml::array* rows = entry.get("vertices")->as_array();
        if (!rows || rows->size() != 3)
            entry.fail("vertices", "expected three points, [[x, y, z], [x, y, z], [x, y, z]]");
        MeshTriangle t;
        for (std::size_t k = 0; k < 3; ++k) {
            const auto p = entry.source().numbers(
                *rows->get(k), entry.key("vertices") + "[" + std::to_string(k) + "]", 3);
            std::copy(p.begin(), p.end(), t[k].begin());
        }
        given.push_back(t);
    } else {
        wall.mesh = entry.required_string("mesh");
        if (wall.mesh.empty()) entry.fail("mesh", "must not be empty");
        // relative to the config file's directory, as init.from
        const std::string& base = entry.source().base_directory;
        if (!base.empty() && !entry.source().from_override(entry.key("mesh")) &&
            std::filesystem::path(wall.mesh).is_relative())
            wall.mesh = (std::filesystem::path(base) / wall.mesh).string();
        check_readable(entry.source(), entry.key("mesh"), wall.mesh);
        // (a device or a pipe would be read without end)
        std::error_code error;
        if (!std::filesystem::is_regular_file(wall.mesh, error))
            entry.fail("mesh", "\"" + escaped(wall.mesh) + "\" is not a regular file");
        if (std::filesystem::file_size(wall.mesh, error) > max_mesh_bytes)
            entry.fail("mesh", "\"" + escaped(wall.mesh) + "\" is larger than " +
                                   std::to_string(max_mesh_bytes >> 20) +
                                   " MiB (about 20 million binary STL facets)");
        try {
            given = read_stl(wall.mesh);
        } catch (const Interrupted&) {
            throw;
        } catch (const std::bad_alloc&) {
            entry.fail("mesh", "\"" + escaped(wall.mesh) + "\": not enough memory to read it (" +
                                   std::to_string(std::filesystem::file_size(wall.mesh, error)) +
                                   " bytes); use a coarser mesh");
        } catch (const std::runtime_error& e) {
            entry.fail("mesh", "\"" + escaped(wall.mesh) + "\": " + e.what());
        }
    }
    for (std::size_t f = 0; f < given.size(); ++f) {
        if ((f & 0xffff) == 0xffff) stop_if_interrupted("reading a mesh");
        MeshTriangle t = given[f];
        for (auto& v : t)
            for (int a = 0; a < 3; ++a) {
                v[a] = v[a] * scale[a] + shift[a];
                if (!std::isfinite(v[a]) || std::abs(v[a]) > max_magnitude)
                    entry.fail(key, (given.size() > 1 ? "facet " + std::to_string(f) + ": " : "") +
                                        "a coordinate is " + show(v[a]) +
                                        " after scale and translate");
            }
        const auto vec = [](const std::array<double, 3>& p) { return Vec<3>{{p[0], p[1], p[2]}}; };
        if (Triangle<3>::shape(vec(t[0]), vec(t[1]), vec(t[2])) < min_triangle_shape)
            entry.fail(key, (given.size() > 1 ? "facet " + std::to_string(f) : "the triangle") +
                                " is degenerate: its three vertices lie on a line (or two "
                                "coincide), so it has no plane");
        wall.triangles.push_back(t);
    }
}

void read_walls(const Section& root, Config& config) {
    for (const Section& entry : root.tables("walls")) {
        entry.allow({"normal", "point", "from", "to", "vertices", "mesh", "scale", "translate",
                     "sides", "restitution", "temperature", "velocity"});
        WallConfig wall;
        wall.restitution = entry.number("restitution", Range::unit_closed).value_or(1.0);
        wall.temperature = entry.number("temperature", Range::positive);
        if (auto velocity = entry.numbers("velocity", config.dimension)) {
            if (!wall.temperature)
                entry.fail("velocity", "needs temperature: only a thermal wall drags the gas "
                                       "(a specular one reflects it unchanged)");
            wall.velocity = *velocity;
        }
        if (wall.temperature && entry.has("restitution"))
            entry.fail("temperature", "a thermal wall re-emits what hits it and has no "
                                      "restitution: give temperature or restitution, not both");
        if (entry.has("vertices") || entry.has("mesh")) {
            read_triangles(entry, config, wall);
            config.walls.push_back(wall);
            continue;
        }
        for (const char* transform : {"scale", "translate"})
            if (entry.has(transform))
                entry.fail(transform, "only triangle walls (vertices, mesh) are scaled and "
                                      "translated");
        if (entry.has("sides"))
            entry.fail("sides", "only triangle walls (vertices, mesh) can be one-sided: a "
                                "plane has one side to a particle, a segment is two-sided");
        if (entry.has("from") || entry.has("to")) {
            if (wall.temperature)
                entry.fail("temperature", "only plane walls (normal and point) can be thermal");
            read_segment(entry, config, wall);
            config.walls.push_back(wall);
            continue;
        }
        auto normal = entry.numbers("normal", config.dimension, false);
        if (!normal) entry.fail("normal", "required key is missing");
        const auto unit = unit_vector(*normal);
        if (!unit) entry.fail("normal", "must not be the zero vector");
        wall.normal = *unit;
        // A particle leaving through a periodic face comes back on the other side: a wall
        // tilted along that axis would be behind it, so it could pass straight through.
        for (int a = 0; a < config.dimension; ++a)
            if (config.periodic[a] && (*normal)[a] != 0)
                entry.fail("normal", "must be perpendicular to every periodic axis (axis " +
                                         std::to_string(a) +
                                         " is periodic); make that component 0 or set "
                                         "box.boundary to \"wall\" on that axis");
        auto point = entry.numbers("point", config.dimension);
        if (!point) entry.fail("point", "required key is missing");
        wall.point = *point;
        if (!wall.velocity.empty()) {
            double along = 0.0, size = 0.0;
            for (int a = 0; a < config.dimension; ++a) {
                along += wall.velocity[a] * wall.normal[a];
                size += std::abs(wall.velocity[a]);
            }
            if (std::abs(along) > 1e-12 * size)
                entry.fail("velocity", "must lie in the wall's plane (perpendicular to its "
                                       "normal): a wall moves in its own plane");
        }
        config.walls.push_back(wall);
    }
}

void read_field(const Section& root, Config& config) {
    Section field = root.table("field");
    field.allow({"gravity", "drag"});
    config.gravity = field.numbers("gravity", config.dimension)
                         .value_or(std::vector<double>(config.dimension, 0.0));
    config.drag = field.number("drag", Range::non_negative).value_or(0.0);
}

void read_init(const Section& root, Config& config) {
    Section init = root.table("init");
    init.allow({"lattice", "velocities", "temperature", "seed", "from", "region", "equilibrate"});
    const bool three_d = config.dimension == 3;
    config.lattice = init.string("lattice").value_or(three_d ? "fcc" : "hex");
    const std::set<std::string> lattices_3d{"fcc", "sc", "random"};
    const std::set<std::string> lattices_2d{"hex", "square", "random"};
    const auto& allowed = three_d ? lattices_3d : lattices_2d;
    if (!allowed.contains(config.lattice)) {
        const auto& other = three_d ? lattices_2d : lattices_3d;
        std::string message = other.contains(config.lattice)
                                  ? "\"" + escaped(config.lattice) + "\" is a " +
                                        (three_d ? "2D" : "3D") + " lattice, but dimension is " +
                                        std::to_string(config.dimension) + ";"
                                  : "unknown lattice \"" + escaped(config.lattice) + "\";";
        init.fail("lattice",
                  message + (three_d ? " use fcc, sc or random" : " use hex, square or random"));
    }
    Section region = init.table("region");
    region.allow({"low", "high"});
    if (region.has("low") || region.has("high")) {
        if (config.lattice != "random")
            init.fail("region", "places particles only with lattice = \"random\"");
        auto low = region.numbers("low", config.dimension);
        if (!low) region.fail("low", "required key is missing");
        auto high = region.numbers("high", config.dimension);
        if (!high) region.fail("high", "required key is missing");
        for (int a = 0; a < config.dimension; ++a)
            if (!((*low)[a] < (*high)[a]))
                region.fail("high",
                            "must exceed low on every axis (axis " + std::to_string(a) + ")");
        config.region_low = *low;
        config.region_high = *high;
    }
    config.velocities = init.string("velocities").value_or("maxwell");
    if (config.velocities != "maxwell" && config.velocities != "fixed_speed")
        init.fail("velocities", "must be \"maxwell\" or \"fixed_speed\", got \"" +
                                    escaped(config.velocities) + "\"");
    config.temperature = init.number("temperature", Range::positive).value_or(1.0);
    config.seed = static_cast<std::uint64_t>(init.integer("seed", 0).value_or(1));
    config.from = init.string("from");
    config.equilibrate_start = init.boolean("equilibrate");
    if (config.from) {
        if (config.from->empty()) init.fail("from", "must not be empty");
        // A relative path written in the file is relative to the file's directory (the
        // config and its snapshot travel together); one given with --set is relative to
        // the working directory, like any path typed on a command line.
        const std::string& base = init.source().base_directory;
        if (!base.empty() && !init.source().from_override(init.key("from")) &&
            std::filesystem::path(*config.from).is_relative())
            config.from = (std::filesystem::path(base) / *config.from).string();
        check_readable(init.source(), init.key("from"), *config.from);
    }
}

// run.integrator: event-driven (the default) or time-stepped with run.dt and run.passes,
// whose keys mean nothing to the other.
void read_integrator(const Section& root, const Section& run, Config& config) {
    const std::string integrator = run.string("integrator").value_or("edmd");
    if (integrator != "edmd" && integrator != "timestep")
        run.fail("integrator", "must be \"edmd\" or \"timestep\"");
    const auto dt = run.number("dt", Range::positive);
    const auto passes = run.integer("passes", 1);
    const auto compare = run.boolean("compare_edmd");
    if (integrator == "edmd") {
        for (const char* key : {"dt", "passes", "compare_edmd"})
            if (run.has(key))
                run.fail(key, "belongs to run.integrator = \"timestep\" (the integrator is "
                              "\"edmd\")");
        return;
    }
    config.integrator = Integrator::timestep;
    if (!dt) run.fail("dt", "is required with run.integrator = \"timestep\" (the time step)");
    config.dt = *dt;
    if (passes) {
        if (*passes > static_cast<std::int64_t>(max_passes))
            run.fail("passes", "must be at most " + std::to_string(max_passes));
        config.passes = static_cast<std::uint32_t>(*passes);
    }
    config.compare_edmd = compare.value_or(true);
    if (config.epsilon > 0.0)
        root.fail("collisions.epsilon", "the time-stepped integrator (run.integrator = "
                                        "\"timestep\") has no simultaneous groups: leave it 0");
    if (config.tc_on_collapse)
        root.fail("collisions.on_collapse",
                  "the time-stepped integrator cannot collapse (it moves by fixed steps): "
                  "leave on_collapse out, or give collisions.tc alone for the TC model");
}

void read_run(const Section& root, Config& config) {
    Section run = root.table("run");
    run.allow({"time", "collisions", "equilibrate", "integrator", "dt", "passes", "compare_edmd"});
    config.run_time = run.number("time", Range::positive);
    if (auto collisions = run.integer("collisions", 1))
        config.run_collisions = static_cast<std::uint64_t>(*collisions);
    config.equilibrate = run.number("equilibrate", Range::non_negative).value_or(0.0);
    if (!config.run_time && !config.run_collisions)
        root.fail("run", "give run.time, run.collisions or both");
    read_integrator(root, run, config);
}

// A periodic output at most `max_frames` times per run (rows or frames). A run of length T
// writes one at t = 0 and one at each k * every <= T: floor(T / every) + 1 in all, where
// round-off in the run's clock may add one when T / every is within an ulp of an integer.
// T / every + 1 <= max_frames keeps even that count within the limit run.cpp stops at, so
// a config accepted here never fails at its end.
void check_count(const Section& output, std::string_view name, const Config& config,
                 const std::optional<PeriodicOutput>& periodic, const std::string& what) {
    if (!periodic || !config.run_time) return;
    const double every = periodic->every;
    const double written = *config.run_time / every + 1.0;
    if (written > static_cast<double>(max_frames))
        output.table(name).fail(
            "every", "run.time = " + show(*config.run_time) + " / every = " + show(every) +
                         " gives " + count(std::ceil(written)) + " " + what +
                         ", more than the limit of " + count(static_cast<double>(max_frames)) +
                         "; use a larger every");
}

// output.histogram and output.velocity_histogram: a path, or { path = "...", every = T }.
std::optional<HistogramOutput> histogram_output(const Section& output, std::string_view name,
                                                const Config& config) {
    const toml::node* node = output.get(name);
    if (!node) return std::nullopt;
    HistogramOutput result;
    if (node->is_string()) {
        result.path = *output.string(name);
        result.key = output.key(name);
        if (result.path.empty()) output.fail(name, "must not be empty");
        return result;
    }
    if (!node->is_table())
        output.fail(name, fmt::format("expected a path or a table {{ path = \"...\", every = ... "
                                      "}}, got {}",
                                      show(*node)));
    Section table = output.table(name);
    table.allow({"path", "every"});
    result.path = table.required_string("path");
    result.key = table.key("path");
    result.every = table.number("every", Range::positive);
    if (!result.every) table.fail("every", "required key is missing");
    // the snapshots at 0, every, 2 every, ... and the final state
    if (config.run_time) {
        const double snapshots = std::floor(*config.run_time / *result.every) + 2.0;
        if (snapshots > static_cast<double>(max_histogram_snapshots))
            table.fail("every", "run.time = " + show(*config.run_time) +
                                    " / every = " + show(*result.every) + " gives " +
                                    count(snapshots) + " snapshots, more than the limit of " +
                                    count(static_cast<double>(max_histogram_snapshots)) +
                                    "; use a larger every");
    }
    return result;
}

// output.profile: a path, or { path, axis = "x" | "y" | "z", slabs }.
std::optional<ProfileOutput> profile_output(const Section& output, const Config& config) {
    const toml::node* node = output.get("profile");
    if (!node) return std::nullopt;
    ProfileOutput result;
    if (node->is_string()) {
        result.path = *output.string("profile");
        result.key = output.key("profile");
        if (result.path.empty()) output.fail("profile", "must not be empty");
        return result;
    }
    if (!node->is_table())
        output.fail("profile", "expected a path or a table { path = \"...\", axis = \"x\", "
                               "slabs = 20 }, got " +
                                   show(*node));
    Section table = output.table("profile");
    table.allow({"path", "axis", "slabs"});
    result.path = table.required_string("path");
    result.key = table.key("path");
    if (result.path.empty()) table.fail("path", "must not be empty");
    if (auto axis = table.string("axis")) {
        const std::string names = config.dimension == 3 ? "xyz" : "xy";
        const auto a = names.find(*axis);
        if (axis->size() != 1 || a == std::string::npos)
            table.fail("axis", "must be one of " +
                                   std::string(config.dimension == 3 ? "\"x\", \"y\", \"z\""
                                                                     : "\"x\", \"y\"") +
                                   ", got \"" + escaped(*axis) + "\"");
        result.axis = static_cast<int>(a);
    }
    if (auto slabs = table.integer("slabs", 1)) {
        if (*slabs > static_cast<std::int64_t>(max_profile_slabs))
            table.fail("slabs", "must be at most " + std::to_string(max_profile_slabs));
        result.slabs = static_cast<std::size_t>(*slabs);
    }
    return result;
}

void read_output(const Section& root, Config& config) {
    Section output = root.table("output");
    output.allow({"summary", "trajectory", "timeseries", "histogram", "velocity_histogram", "rdf",
                  "vacf", "profile", "checkpoint", "crossing"});
    config.summary = output.string("summary").value_or(config.summary);
    if (config.summary.empty()) output.fail("summary", "must not be empty");
    config.trajectory = periodic_output(output, "trajectory");
    check_count(output, "trajectory", config, config.trajectory, "frames");
    if (output.has("checkpoint")) {
        Section checkpoint = output.table("checkpoint");
        checkpoint.allow({"path", "every"});
        config.checkpoint = CheckpointOutput{checkpoint.required_string("path"),
                                             checkpoint.number("every", Range::positive)};
    }
    config.timeseries = periodic_output(output, "timeseries");
    check_count(output, "timeseries", config, config.timeseries, "rows");
    if (output.has("crossing")) {
        Section crossing = output.table("crossing");
        crossing.allow({"point", "normal"});
        CrossingPlane plane;
        plane.point = crossing.required_numbers("point", config.dimension);
        const auto normal = crossing.required_numbers("normal", config.dimension, false);
        const auto unit = unit_vector(normal);
        if (!unit) crossing.fail("normal", "must not be the zero vector");
        plane.normal = *unit;
        // a centre leaving through a periodic face would change sides without crossing
        for (int a = 0; a < config.dimension; ++a)
            if (config.periodic[static_cast<std::size_t>(a)] &&
                normal[static_cast<std::size_t>(a)] != 0)
                crossing.fail("normal", "must be perpendicular to every periodic axis (axis " +
                                            std::to_string(a) +
                                            " is periodic): a particle leaving through a "
                                            "periodic face changes sides without crossing");
        config.crossing = plane;
    }
    config.histogram = histogram_output(output, "histogram", config);
    config.velocity_histogram = histogram_output(output, "velocity_histogram", config);
    config.rdf = output.string("rdf");
    if (config.rdf && config.rdf->empty()) output.fail("rdf", "must not be empty");
    if (config.rdf &&
        std::find(config.periodic.begin(), config.periodic.end(), false) != config.periodic.end())
        output.fail("rdf", "needs a periodic box on every axis (g(r) is normalised by the "
                           "bulk density)");
    if (config.rdf && !config.walls.empty())
        output.fail("rdf", "needs a box without [[walls]] (g(r) is normalised by the bulk "
                           "density)");

    config.vacf = output.string("vacf");
    if (config.vacf && config.vacf->empty()) output.fail("vacf", "must not be empty");
    config.profile = profile_output(output, config);

    // Every output its own file: two outputs on one path would overwrite each other.
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, std::string>> paths{{"output.summary", config.summary}};
    for (const auto& output : output_paths(config)) paths.push_back(output);
    for (std::size_t a = 0; a < paths.size(); ++a)
        for (std::size_t b = a + 1; b < paths.size(); ++b)
            if (fs::path(paths[a].second).lexically_normal() ==
                fs::path(paths[b].second).lexically_normal())
                root.fail(paths[b].first, "\"" + paths[b].second + "\" is the same file as " +
                                              paths[a].first + " (\"" + paths[a].second +
                                              "\"); give each output its own path");
}

} // namespace

std::vector<std::pair<std::string, std::string>> output_paths(const Config& config) {
    std::vector<std::pair<std::string, std::string>> paths;
    if (config.trajectory) paths.emplace_back("output.trajectory.path", config.trajectory->path);
    if (config.checkpoint) paths.emplace_back("output.checkpoint.path", config.checkpoint->path);
    if (config.timeseries) paths.emplace_back("output.timeseries.path", config.timeseries->path);
    for (const auto& histogram : {config.histogram, config.velocity_histogram})
        if (histogram) paths.emplace_back(histogram->key, histogram->path);
    if (config.rdf) paths.emplace_back("output.rdf", *config.rdf);
    if (config.vacf) paths.emplace_back("output.vacf", *config.vacf);
    if (config.profile) paths.emplace_back(config.profile->key, config.profile->path);
    return paths;
}

namespace {

Config parse(const std::string& toml_text, const std::string& source,
             const std::vector<std::string>& overrides, const std::string& base_directory) {
    toml::table document = parse_toml(toml_text, source);
    std::vector<std::string> overridden;
    for (const auto& text : overrides)
        overridden.push_back(apply_override(document, text, overridden));

    KeySource context(source, overridden);
    context.base_directory = base_directory;
    Section root(context, &document, "");
    root.allow(
        {"dimension", "box", "species", "collisions", "walls", "field", "init", "run", "output"});
    Config config;
    config.source = source;
    config.dimension = read_dimension(root, 3);

    read_init(root, config); // first: init.from relaxes the [box] rules
    read_box(root, config);
    read_wall_velocity(root.table("box"), config);
    read_species(root, config);
    check_derived_box(root, config);
    read_collisions(root, config);
    read_walls(root, config);
    read_field(root, config);
    read_run(root, config);
    check_thermal_walls(root, config);
    check_triangle_walls(root, config);
    read_output(root, config);
    check_sliding(root, config);
    check_rest(root, config);
    check_time_scales(root, config);
    config.resolved = document_text(document); // (floats in shortest round-trip form)
    return config;
}

} // namespace

Config parse_config(const std::string& toml_text, const std::string& source,
                    const std::vector<std::string>& overrides) {
    return parse(toml_text, source, overrides, "");
}

Config load_config(const std::string& path, const std::vector<std::string>& overrides) {
    return load_config_text(read_text_file(path), path, overrides);
}

Config load_config_text(const std::string& toml_text, const std::string& path,
                        const std::vector<std::string>& overrides) {
    // "" for a config in the working directory: its relative paths need no prefix.
    const std::string directory = std::filesystem::path(path).parent_path().string();
    return parse(toml_text, path, overrides, directory);
}

} // namespace choc
