// One case of the seed scan (soak_scan.cpp): every choice drawn from one 64-bit seed, so
// that `soak_scan --case SEED` rebuilds it exactly. The case is a config text (the same
// TOML a user would write, read by the library's own parse_config) plus the few things a
// config cannot say: how often the engine does its maintenance, velocities aligned with the
// lattice (to make collisions simultaneous), and how long to run.
#pragma once

#include <choc/kernel/particles.hpp>

#include <algorithm>
#include <array>
#include <bitset>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace scan {

// SplitMix64: the whole state is one integer, and its stream is fixed by this code (not by
// a standard library's distributions), so a seed means the same case everywhere.
class Rng {
  public:
    explicit Rng(std::uint64_t seed) : s_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; } // [0, 1)
    double uniform(double a, double b) { return a + (b - a) * uniform(); }
    double log_uniform(double a, double b) { return a * std::exp(std::log(b / a) * uniform()); }
    bool chance(double p) { return uniform() < p; }
    int integer(int lo, int hi) {
        return lo + static_cast<int>(next() % (hi - lo + 1));
    } // [lo, hi]

  private:
    std::uint64_t s_;
};

// The seed of case k of a list that starts at `base`.
inline std::uint64_t case_seed(std::uint64_t base, std::uint64_t k) {
    return Rng(base ^ (k * 0xd1b54a32d192ed03ull)).next();
}
// Bit 63 of a seed makes its case long (many more events): the long slice draws both kinds,
// the fast slice only short ones, and --case needs nothing but the seed either way.
constexpr std::uint64_t long_bit = std::uint64_t{1} << 63;

// A start the config cannot have (a lattice too dense for its box, random placement
// beyond its jamming, a periodic edge under three diameters) is tried again at a lower
// density: up to `start_attempts` times, each at `start_lowering` times the density before
// (soak_scan.cpp, run_case).
constexpr int start_attempts = 20;
constexpr double start_lowering = 0.8;

// Feature families, for the summary: a case counts under every family it has.
enum Feature {
    two_d,
    three_d,
    periodic,
    walled,
    planes,
    segments,
    gravity,
    drag,
    mixture,
    inelastic,
    epsilon,
    lattice,
    aligned,
    maintenance,
    dilute,
    dense,
    disperse,
    thermal,
    sheared,
    triangles,
    resting,
    piles,
    feature_count
};
inline constexpr std::array<const char*, feature_count> feature_names = {
    "2D",      "3D",          "periodic", "walled",       "planes",   "segments",
    "gravity", "drag",        "mixture",  "inelastic+TC", "epsilon",  "lattice",
    "aligned", "maintenance", "dilute",   "dense",        "disperse", "thermal",
    "sheared", "triangles",   "resting",  "piles"};

// Velocities set after the config's start (lattice starts only): every particle moving
// along one lattice axis at speed 0 or ±1 (`axis`), or with every component in {-1, 0, 1}
// (`grid`). Particles on a lattice then meet in many pairs at one instant (up to the
// round-off of their sites), and three at once where a resting one is hit from both sides.
enum class Aligned { none, axis, grid };

struct SpeciesParams {
    std::uint64_t count = 1;
    double radius = 0.5, mass = 1.0;
    std::optional<double> temperature;
};
struct PlaneParams {
    std::vector<double> normal;
    double depth = 0.0; // the plane passes this far (in units of the shortest edge) from the centre
    double restitution = 1.0;
    std::vector<double> point; // a point of the plane in box coordinates (piles): not by depth
};
struct SegmentParams {
    std::array<double, 2> centre{}; // in fractions of the free range on each axis
    double length = 1.0, angle = 0.0, restitution = 1.0;
    // its ends in box coordinates (piles): not by centre, length and angle
    std::optional<std::array<std::array<double, 2>, 2>> ends;
};
struct TriangleParams {
    // vertices in fractions of the free range on each axis ([margin, L - margin])
    std::array<std::array<double, 3>, 3> vertex{};
    double restitution = 1.0;
    bool absolute = false; // vertices in box coordinates instead (piles)
};

struct Params {
    std::uint64_t seed = 0;
    int dimension = 3;
    double fraction = 0.1;      // Σ particle volume / box volume
    std::vector<double> aspect; // edge ratios of the box
    std::vector<bool> periodic;
    double wall_restitution = 1.0;
    std::optional<std::array<double, 2>> wall_temperature; // thermal box walls
    std::vector<std::vector<double>> wall_velocity;        // theirs, along periodic axes
    double shear_rate = 0.0;                               // sliding boundaries
    std::optional<double> shear_temperature;               // their thermostat
    std::vector<SpeciesParams> species;
    double restitution = 1.0;
    std::vector<std::array<double, 3>> pair; // {a, b, e}
    double epsilon = 0.0;
    std::optional<double> contact_gap;
    double tc = 0.0;
    double rest_speed = 0.0; // the rest model (resting.hpp)
    std::vector<PlaneParams> planes;
    std::vector<SegmentParams> segments;
    std::vector<TriangleParams> triangles;
    std::vector<double> gravity;
    double drag = 0.0;
    std::string lattice, velocities = "maxwell";
    std::uint64_t init_seed = 1;
    std::vector<double> size; // the box's edges when drawn as such (piles); else by `fraction`
    std::optional<std::array<std::vector<double>, 2>> region; // init.region: low, high
    // beyond the config
    Aligned aligned = Aligned::none;
    int axis = 0;
    // Sites set after the config's start (piles' touching rows and dropped lattices): the
    // particles of species 0, in the engine's order, moved onto them, each moving along
    // `axis` at placed_speed times its site's last number (0 or ±1). Exact coordinates:
    // neighbours spaced one diameter apart touch exactly, as do those one radius from a wall.
    std::vector<std::array<double, 4>> placed;
    double placed_speed = 0.0;
    double duration = 0.0; // a time to run to (piles: time to settle); 0: the checkpoints' own
    std::string pile;      // what the pile family drew (scan_piles.cpp), for the report
    std::uint64_t maintain_every = 0; // 0: the engine's default
    std::uint64_t event_cap = 0, collision_cap = 0;
    int checkpoints = 10;
    double step = 1.0; // checkpoint spacing in units of the warm-up's duration
    std::bitset<feature_count> features;

    std::uint64_t particles() const {
        std::uint64_t n = 0;
        for (const auto& s : species) n += s.count;
        return n;
    }
    double largest_diameter() const {
        double d = 0.0;
        for (const auto& s : species) d = std::max(d, 2.0 * s.radius);
        return d;
    }
    bool any_walled() const { return std::count(periodic.begin(), periodic.end(), false) > 0; }
    double ball(double radius) const {
        return dimension == 3 ? 4.0 / 3.0 * std::numbers::pi * std::pow(radius, 3)
                              : std::numbers::pi * radius * radius;
    }
    // The particles' volume (area in 2D).
    double volume() const {
        double v = 0.0;
        for (const auto& s : species) v += static_cast<double>(s.count) * ball(s.radius);
        return v;
    }
    // What a lattice start holds: its sites are spaced for the largest particle, so N of
    // those, however small the others.
    double lattice_volume() const {
        return static_cast<double>(particles()) * ball(0.5 * largest_diameter());
    }
    // Edge lengths for the packing fraction.
    std::vector<double> lengths() const {
        if (!size.empty()) return size;
        const double volume = this->volume();
        double shape = 1.0;
        for (const double a : aspect) shape *= a;
        const double unit = std::pow(volume / fraction / shape, 1.0 / dimension);
        // An edge the config refuses (periodic: under three largest diameters, for the
        // cell grid) or no lattice fits grows to fit: the packing fraction is then lower.
        std::vector<double> l;
        for (std::size_t a = 0; a < aspect.size(); ++a)
            l.push_back(std::max(unit * aspect[a], (periodic[a] ? 3.2 : 1.2) * largest_diameter()));
        return l;
    }
};

// Shortest text that reads back as the same double (a valid TOML number).
inline std::string num(double x) {
    char buffer[32];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
    return std::string(buffer, end);
}
inline std::string list(const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + num(v[k]);
    return s + "]";
}

Params draw(std::uint64_t seed);
// The pile family (scan_piles.cpp): whether the seed draws a pile, and if so the pile in p.
bool draw_pile(std::uint64_t seed, Params& p);
// What the oracle's pile families (oracle_systems.hpp) fix of a pile drawn from a seed: its
// dimension and N, and no rest model (the reference simulator has none), so neither
// touching rows on the floor nor plastic walls (both need it) and TC for any loss.
struct OraclePile {
    int dimension = 3;
    std::uint64_t n = 200;
};
Params draw_oracle_pile(std::uint64_t seed, const OraclePile& fixed);

// Sites set after the start (piles' rows and lattices: Params::placed): the particles of
// species 0, in the engine's order, moved onto them (from the random start's gas above
// them), each moving along p.axis at placed_speed times its site's 0 or ±1.
template <int D>
void place(const Params& p, choc::Particles<D>& particles) {
    std::size_t k = 0;
    for (auto& s : particles.state) {
        if (k == p.placed.size()) break;
        if (s.species != 0) continue;
        for (int a = 0; a < D; ++a) s.x[a] = p.placed[k][static_cast<std::size_t>(a)];
        s.v = {};
        s.v[p.axis] = p.placed_speed * p.placed[k][3];
        ++k;
    }
}
std::string config_text(const Params& p);

} // namespace scan
