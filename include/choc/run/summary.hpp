// The run summary of docs/REFERENCE.md as JSON. Every key is always written; a quantity the run
// cannot define is null.
#pragma once

#include "choc/run/provenance.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choc {

struct SpeciesSummary {
    std::string name;
    std::uint64_t count = 0;
    std::optional<double> temperature;
    // Pair collisions per particle of this species per unit time, with each species in
    // the config's order (`collision_rates`), and in all (`collision_rate`); empty or null
    // when sim_time is 0 or the species has no particle.
    std::vector<double> collision_rates;
    std::optional<double> collision_rate;
};

// A transport coefficient from pairs of consecutive windows of one length ("diffusion.lags",
// "shear_viscosity.lags", "thermal_conductivity.lags").
struct WindowLag {
    double lag = 0.0;
    std::uint64_t pairs = 0;
    double value = 0.0;
    std::optional<double> error;
};

// Shear viscosity or thermal conductivity from its Einstein–Helfand moment.
struct TransportCoefficient {
    std::optional<double> value, error; // `windows`' value, unless 2D or too short a run
    std::optional<double> enskog;       // Enskog's value: one species only
    std::vector<WindowLag> lags;
    std::optional<WindowLag> windows; // the lag its value is read at (plateau_lag)
    bool plateau = false;             // `windows` is where it stopped rising beyond its noise
};

// A transport coefficient from two thermal walls across one axis (observers/gap_fit.hpp):
// heat conduction between walls at two temperatures ("heat_conduction"), or shear flow
// between walls moving in their planes ("shear_flow").
struct GapTransport {
    int axis = 0;
    std::array<double, 2> wall_temperature{};
    std::vector<std::vector<double>> wall_velocity; // low, high
    std::vector<double> direction;                  // of the flow (shear only)
    std::array<double, 2> given{};                  // per unit wall area and time: low, high
    double flux = 0.0, gradient = 0.0, coefficient = 0.0, temperature = 0.0, packing_fraction = 0.0;
    std::optional<double> flux_err, gradient_err, coefficient_err, temperature_err,
        packing_fraction_err;
    std::uint64_t blocks = 0;
    double fit_from = 0.0, fit_to = 0.0;
    std::optional<double> enskog; // at the fitted slabs' mean temperature and packing fraction
};

// Steady shear between sliding boundaries ("sliding_shear"; observers/sliding_shear.hpp):
// the stress and the viscosity from it, the peculiar temperature and its rise, and the
// viscosity from that rise.
// The particles that crossed output.crossing's plane ("crossing";
// observers/crossing_count.hpp): net count along its normal over the measured phase, and
// that count over the phase's duration (none for a phase of no duration).
struct CrossingSummary {
    std::int64_t count = 0;
    std::optional<double> rate;
};

// The rest model ("rest"; collisions.rest_speed, the kernel's resting.hpp) over the
// measured phase: particles put to rest and woken, slow impacts met by a particle at rest
// as a fixed one, the kinetic energy the model took, and the particles at rest at the end.
struct RestSummary {
    double speed = 0.0, reach = 0.0, wake = 0.0;
    std::uint64_t rests = 0, wakes = 0, slow_impacts = 0, at_rest = 0;
    double energy = 0.0;
    std::uint64_t glides = 0, leans = 0;
    std::uint64_t rescues = 0; // stalls stopped (Engine::rescue_stall)
};

struct ShearSummary {
    double shear_rate = 0.0, stress = 0.0, eta = 0.0;
    std::optional<double> stress_err, eta_err;
    double temperature = 0.0, temperature_first = 0.0, temperature_last = 0.0;
    std::optional<double> heating; // d kT / dt
    double packing_fraction = 0.0;
    std::uint64_t blocks = 0;
    std::optional<double> enskog; // at the mean peculiar temperature
};

// One species' own self-diffusion coefficient ("diffusion.species").
struct SpeciesDiffusion {
    std::string name;
    std::optional<double> D, D_err;
};

// The event-driven run of the same start over the same time, beside a time-stepped one
// (run.compare_edmd).
struct EdmdComparison {
    double sim_time = 0.0;
    std::uint64_t collisions = 0, wall_collisions = 0;
    std::optional<double> collision_rate, Z, Z_err;
    double wall_seconds = 0.0;
    bool valid = true, collapsed = false;
};

// What a time-stepped run (run.integrator = "timestep") cost in exactness.
struct SteppingSummary {
    double dt = 0.0;
    std::uint32_t passes = 0;            // run.passes
    std::uint64_t steps = 0;             // in the measured phase
    std::uint64_t passes_run = 0;        // overlap passes that found something to resolve
    std::uint64_t unresolved = 0;        // contacts the passes ran out on, summed over steps
    std::uint64_t overlapping_pairs = 0; // pairs overlapping at the end
    double max_overlap = 0.0;            // worst found at a step's end, relative
    double energy_error = 0.0;           // |E - (E0 + collision and drag changes)| / energy scale
    std::optional<EdmdComparison> edmd;
};

// What the event-driven engine did in the measured phase besides collisions, and the
// bytes of its arrays: the figures behind its speed and memory (data/bench).
struct EngineCosts {
    std::uint64_t cell_crossings = 0, stale = 0, rescans = 0, pair_predictions = 0;
    std::uint64_t memory_bytes = 0;
};

struct Summary {
    int dimension = 3;
    std::uint64_t N = 0;
    double packing_fraction = 0.0;
    double sim_time = 0.0;
    std::uint64_t collisions = 0, wall_collisions = 0, events = 0;
    double wall_seconds = 0.0;
    double collisions_per_second = 0.0;
    std::optional<EngineCosts> engine; // null for a time-stepped run
    double kinetic_energy_initial = 0.0, kinetic_energy_final = 0.0;
    std::vector<double> momentum_initial, momentum_final;
    double temperature = 0.0;
    double max_overlap = 0.0;
    std::optional<double> Z, Z_err; // "pressure": null unless Z is known
    // "pressure.tensor": d x d, kinetic and collisional, of a bulk fluid; empty otherwise
    std::vector<std::vector<double>> pressure_tensor, pressure_tensor_err;
    std::optional<double> collision_rate; // null when sim_time == 0
    std::vector<SpeciesSummary> species;
    // "velocity_distribution": null unless known
    std::optional<double> ks_distance, ks_pvalue, kurtosis;
    std::optional<double> mean_free_time;
    std::optional<double> D, D_err; // "diffusion": null unless known
    // Beside D: D at infinite size with its error (the periodic cube's finite-size
    // correction added to D from many time origins, or from one without windows), and
    // Enskog's D, for an elastic one-species fluid; null otherwise.
    std::optional<double> D_infinite, D_infinite_err, D_enskog;
    struct FiniteSize {
        double correction = 0.0;         // Yeh-Hummer's xi kT / (6 pi eta L)
        bool from_windows = false;       // added to diffusion.windows' D (else to D)
        bool measured_viscosity = false; // eta the run's shear_viscosity (else Enskog's)
    };
    std::optional<FiniteSize> finite_size;
    std::vector<SpeciesDiffusion> species_diffusion; // one per species with particles
    std::vector<WindowLag> diffusion_lags;           // D from many time origins, per lag
    std::optional<WindowLag> diffusion_windows;      // the longest lag with enough pairs
    std::optional<TransportCoefficient> shear_viscosity, thermal_conductivity;
    std::optional<GapTransport> heat_conduction, shear_flow; // two thermal walls across one axis
    std::optional<ShearSummary> sliding_shear;               // box.shear_rate
    std::optional<CrossingSummary> crossing;                 // output.crossing
    std::optional<RestSummary> rest;                         // collisions.rest_speed
    std::optional<SteppingSummary> timestep;                 // null for an event-driven run

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
