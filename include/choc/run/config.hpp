// A run's configuration: the TOML file of docs/REFERENCE.md, with `--set` overrides applied,
// checked and resolved into plain values. Everything here is validated by load_config:
// the rest of the library can trust it.
#pragma once

#include "choc/kernel/tolerances.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choc {

struct SpeciesConfig {
    std::string name;
    std::uint64_t count = 0;
    double radius = 0.5;
    double mass = 1.0;
    std::optional<double> temperature; // starting kT; init.temperature when absent
};

// A plane (normal, point) or, in 2D, a segment (from, to; normal and point empty).
struct WallConfig {
    std::vector<double> normal; // `dimension` entries, normalised by load_config
    std::vector<double> point;
    std::vector<double> from, to; // a segment's end points
    // triangles (3D): one from `vertices`, or a mesh file's facets, scaled and translated
    std::vector<std::array<std::array<double, 3>, 3>> triangles;
    std::string mesh;       // the mesh file (resolved against the config's directory), or empty
    bool one_sided = false; // triangles: `sides = 1`, a wall on the normals' side only
    double restitution = 1.0;
    std::optional<double> temperature; // a thermal wall (planes only)
    std::vector<double> velocity;      // a thermal wall's own velocity, in its plane

    bool segment() const { return !from.empty(); }
    bool triangle_wall() const { return !triangles.empty(); }
};

// [[collisions.pair]]: restitution of one unordered pair of species (indices).
struct PairRestitution {
    std::uint32_t a = 0, b = 0;
    double restitution = 1.0;
};

// run.integrator: exact event-driven dynamics, or fixed time steps with overlaps rewound
// to their contacts (kernel/step_engine.hpp).
enum class Integrator { edmd, timestep };
// run.passes: overlap passes per step unless given, and the most a config may ask for.
inline constexpr std::uint32_t default_passes = 3;
inline constexpr std::uint32_t max_passes = 1000;

// output.trajectory.format: extended XYZ (text, the default) or H5MD 1.1 (HDF5).
enum class TrajectoryFormat { xyz, h5md };

// output.crossing: a plane through `point` with unit `normal`, perpendicular to every
// periodic axis; the run counts the particles crossing it (observers/crossing_count.hpp).
struct CrossingPlane {
    std::vector<double> point, normal;
};

// output.trajectory.max_bytes unless given: 10 GB, ample for long runs of 10^4 to 10^5
// particles (a 3D XYZ line takes about 130 bytes), and a bound on what a tiny `every` in a
// collision-limited run writes (about 100 MB a second).
inline constexpr double default_trajectory_max_bytes = 1e10;

struct PeriodicOutput {
    std::string path;
    double every = 0.0;
    TrajectoryFormat format = TrajectoryFormat::xyz; // output.trajectory only
    double max_bytes = default_trajectory_max_bytes; // output.trajectory only
};

// output.checkpoint: the run's complete state, every `every` of simulated time (if given),
// at an interrupt and at the run's end (for `choc run --continue`).
struct CheckpointOutput {
    std::string path;
    std::optional<double> every;
};

// output.histogram and output.velocity_histogram: a path alone (the final state), or a
// table with `every` (a snapshot every `every` of the measured phase, and the final state,
// in one file: observers/histogram_series.hpp).
struct HistogramOutput {
    std::string path;
    std::optional<double> every;
    std::string key; // the path's dotted key: output.<name>, or output.<name>.path with every
};

// output.profile: a path alone, or a table with the axis and the number of slabs.
struct ProfileOutput {
    std::string path;
    std::optional<int> axis; // default: the thermal walls' axis, else the first walled one, else x
    std::size_t slabs = 20;
    std::string key; // the path's dotted key
};

struct Config {
    int dimension = 3;

    // [box]: exactly one of packing_fraction and size
    std::optional<double> packing_fraction;
    std::optional<std::vector<double>> box_size;
    std::vector<bool> periodic;    // one per axis, resolved from box.boundary
    double wall_restitution = 1.0; // of the hard box walls (boundary = "wall")
    // box.wall_temperature: the box walls at 0 and at L of every walled axis are thermal
    // walls at these temperatures
    std::optional<std::array<double, 2>> wall_temperature;
    // box.wall_velocity: the thermal box walls' own velocities (at 0, at L), in their planes
    std::vector<std::vector<double>> wall_velocity;
    // box.shear_rate: gamma of Lees-Edwards sliding boundaries (the images one y period up
    // slide along x at gamma L_y); 0: none
    double shear_rate = 0.0;
    // box.shear_temperature: the peculiar kT a thermostat holds under shear; none: no thermostat
    std::optional<double> shear_temperature;

    std::vector<SpeciesConfig> species;

    // [collisions]
    double restitution = 1.0;
    double epsilon = 0.0; // events this close in time are resolved together
    double contact_gap =
        default_contact_gap;     // with epsilon > 0: relative gap below which pairs touch
    double tc = 0.0;             // TC-model time (0: off)
    bool tc_on_collapse = false; // on_collapse = "tc": TC off until a collapse is detected
    double rest_speed = 0.0;     // the rest model under gravity (0: off)
    std::vector<PairRestitution> pair_restitution; // overrides `restitution` per pair

    std::vector<WallConfig> walls;

    // [field]
    std::vector<double> gravity; // `dimension` entries
    double drag = 0.0;

    // [init]
    std::string lattice; // default: "fcc" in 3D, "hex" in 2D
    std::string velocities = "maxwell";
    double temperature = 1.0;
    std::uint64_t seed = 1;
    std::optional<std::string> from;
    // init.equilibrate: whether run.equilibrate applies; by default yes for a generated
    // start, no for init.from (a snapshot is taken as equilibrated already).
    std::optional<bool> equilibrate_start;
    // init.region: lattice "random" places centres only in [low, high] (`dimension` each)
    std::vector<double> region_low, region_high;

    // [run]
    std::optional<double> run_time;
    std::optional<std::uint64_t> run_collisions;
    double equilibrate = 0.0;
    // run.integrator = "timestep": fixed steps dt, at most `passes` overlap passes in each,
    // and (compare_edmd) an event-driven run of the same start beside it for the summary
    Integrator integrator = Integrator::edmd;
    double dt = 0.0;
    std::uint32_t passes = default_passes;
    bool compare_edmd = false;

    // [output]
    std::string summary = "summary.json";
    std::optional<PeriodicOutput> trajectory;
    std::optional<PeriodicOutput> timeseries;
    std::optional<CrossingPlane> crossing;
    std::optional<HistogramOutput> histogram;          // speed histogram (CSV)
    std::optional<HistogramOutput> velocity_histogram; // x-velocity histogram (CSV)
    std::optional<std::string> rdf;       // g(r) averaged over the measured phase (CSV)
    std::optional<std::string> vacf;      // velocity autocorrelation function (CSV)
    std::optional<ProfileOutput> profile; // slab profiles along one axis (CSV)
    std::optional<CheckpointOutput> checkpoint;

    std::string source; // the config file's path, for messages
    // The config as it was run: the file's TOML with every --set applied, printed back as
    // TOML (the summary's provenance records it).
    std::string resolved;
};

// The equilibration a run does: run.equilibrate, unless init.equilibrate (or, by default,
// init.from) says the start needs none.
inline double equilibration_time(const Config& config) {
    return config.equilibrate_start.value_or(!config.from) ? config.equilibrate : 0.0;
}

// Reads the TOML file at `path`, applies each "dotted.key=value" override in order, and
// validates everything. Throws InputError naming the file or the key on any problem:
// unreadable file, TOML syntax, unknown key, wrong type, out-of-range value, missing
// required key, a feature that this version does not implement yet.
Config load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from the text of the file at `path`, read already (a sweep reads its base
// config once for all its points): `path` names it in messages, and its directory is where
// the file's relative paths start, as for load_config.
Config load_config_text(const std::string& toml_text, const std::string& path,
                        const std::vector<std::string>& overrides = {});

// Every output file of `config` but the summary, as (dotted key, path): trajectory,
// time series, histograms, g(r).
std::vector<std::pair<std::string, std::string>> output_paths(const Config& config);

// The same from TOML text (tests and `choc collide` use it); `source` names it in errors.
Config parse_config(const std::string& toml_text, const std::string& source,
                    const std::vector<std::string>& overrides = {});

} // namespace choc
