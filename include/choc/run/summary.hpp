// The run summary of docs/REFERENCE.md as JSON. Every key is always written; a quantity the run
// cannot define is null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choc {

struct SpeciesSummary {
    std::string name;
    std::uint64_t count = 0;
    std::optional<double> temperature;
};

// Where a summary comes from, so that the summaries of a seed scan can be told apart and
// rerun: the build, the config as run, the command, the machine and the wall-clock times.
struct Provenance {
    std::string config;                    // the resolved config (TOML, --set applied)
    std::uint64_t seed = 0;                // init.seed
    std::vector<std::string> command_line; // as the program was called; empty from a library call
    std::string started, finished;         // UTC, ISO 8601 to the second
    std::string host;
};

struct Summary {
    int dimension = 3;
    std::uint64_t N = 0;
    double packing_fraction = 0.0;
    double sim_time = 0.0;
    std::uint64_t collisions = 0, wall_collisions = 0, events = 0;
    double wall_seconds = 0.0;
    double collisions_per_second = 0.0;
    double kinetic_energy_initial = 0.0, kinetic_energy_final = 0.0;
    std::vector<double> momentum_initial, momentum_final;
    double temperature = 0.0;
    double max_overlap = 0.0;
    std::optional<double> Z, Z_err;       // "pressure": null unless Z is known
    std::optional<double> collision_rate; // null when sim_time == 0
    std::vector<SpeciesSummary> species;
    std::optional<double> ks_distance, kurtosis; // "velocity_distribution": null unless known
    std::optional<double> mean_free_time;
    std::optional<double> D, D_err; // "diffusion": null unless known

    bool interrupted = false; // stopped by SIGINT or SIGTERM before its end
    bool collapsed = false;   // stopped by an inelastic collapse before its end
    // false when the run broke a runtime invariant (audit.hpp): nothing in it can be trusted
    bool valid = true;
    std::optional<std::string> violation; // which invariant, when, which particles
    Provenance provenance;
};

// The JSON text (pretty-printed, keys as in docs/REFERENCE.md, "choc_version" included).
std::string summary_json(const Summary& summary);

// Writes summary_json atomically. Throws InputError naming the path on failure.
void write_summary(const std::string& path, const Summary& summary);

} // namespace choc
