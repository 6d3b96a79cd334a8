// A run kept alive between calls: built from a config (start, equilibration), then its
// measured phase advanced by steps, with the summary, the particles and the measurements
// available between them. `choc run` is one such run advanced to the config's limits and
// finished (run_simulation); the Python module's choc.Simulation is one advanced step by
// step. Both go through this one code path, so their physics and summaries are the same.
#pragma once

#include "choc/errors.hpp"
#include "choc/run/config.hpp"
#include "choc/run/run.hpp"
#include "choc/run/summary.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace choc {

class OutputLocks; // io/output_lock.hpp

// How far a step of the measured phase goes: this much more simulated time and/or this
// many more pair collisions, whichever comes first. Neither: to the config's own
// run.time / run.collisions, exactly as `choc run` does.
struct Advance {
    std::optional<double> time;
    std::optional<std::uint64_t> collisions;
};

// How a step ended. `collapsed` and `violated` are for good (collapse(), violation());
// after `interrupted` another step goes on as if there had been no stop.
enum class StepEnd { reached, interrupted, no_events, collapsed, violated };

// The particles now, in the start's order (species after species as the config lists
// them), as flat row-major arrays: positions and velocities N x D, the rest N.
struct ParticleArrays {
    int dimension = 3;
    std::size_t count = 0;
    std::vector<double> positions, velocities, radii, masses;
    std::vector<std::int64_t> species; // index into the config's [[species]]
};

// The measurements of the run so far, as the files `choc run` writes them (CSV text), so
// that columns and numbers are the CLI's own: speed and x-velocity histograms of the
// current state, g(r) (config output.rdf), the time series (config output.timeseries,
// rows kept in memory), the velocity autocorrelation (config output.vacf); and the
// displacement samples (time since the phase began, MSD).
struct Measurements {
    std::string speed_histogram, velocity_histogram;
    // the histogram series' CSVs with the state now as the last snapshot (output.histogram
    // and output.velocity_histogram with every; none otherwise)
    std::optional<std::string> speed_histogram_series, velocity_histogram_series;
    std::optional<std::string> rdf, timeseries, vacf, profile;
    std::vector<double> msd_times, msd;
};

// A change between stages of a run (Simulation::steer): config keys a physicist changes
// between stages, as `--set` overrides ("collisions.restitution=0.8",
// "field.gravity=[0, -1]"; only collisions.restitution, collisions.pair, field.gravity
// and field.drag), and the kinetic temperature kT = 2 K / (d N) to scale every velocity to.
struct Steer {
    std::vector<std::string> sets;
    std::optional<double> temperature;
    std::string key = "steer"; // names the call in errors
};

// The kinetic energy just before a change and as the new stage starts: what a rescale
// of the velocities gave the particles (the same for any other change).
struct SteerResult {
    double kinetic_before = 0.0, kinetic_after = 0.0;
};

// The config a checkpoint was written with, with `overrides` applied as `--set` (those a
// continuation may change: run.time, run.collisions, output.checkpoint, ...): for a
// continuation that goes on with the checkpoint's own config. InputError naming `key` and
// the file when it is not a checkpoint choc can read; its relative paths (init.from, a
// mesh) are read from the working directory.
Config checkpoint_config(const std::string& path, const std::string& key,
                         const std::vector<std::string>& overrides = {});

class Simulation {
  public:
    // Builds the start (or, with options.continue_from, restores the checkpoint) and
    // equilibrates. Throws InputError for bad input. An interrupt (SIGINT, SIGTERM) while
    // this runs is recorded by the caller's InterruptGuard and cuts equilibration short.
    Simulation(const Config& config, const RunOptions& options);
    ~Simulation();
    Simulation(Simulation&&) noexcept;
    Simulation& operator=(Simulation&&) noexcept;

    // One step of the measured phase (see Advance). A broken runtime invariant or an
    // inelastic collapse ends the run for good: the step says so and every later step
    // ends at once the same way.
    StepEnd advance(const Advance& by = {});

    // Ends the stage under way and starts a new one from the state now, with the change:
    // a new engine from the particles as they stand (velocities scaled to the
    // temperature asked for), no equilibration, the new config's restitution and field, a
    // new measured phase (the summary, the observers, the periodic checkpoints and
    // the energy checks from zero); the clock of time() goes on. Throws InputError for a
    // key that may not change or a bad value (naming it), for a run that broke an
    // invariant, under sliding boundaries and with run.compare_edmd; the run is then
    // unchanged.
    SteerResult steer(const Steer& change);

    // Writes a checkpoint of the run now to `path` (atomically: the old file, if any, stays
    // whole until the new one replaces it), as output.checkpoint would: `choc run
    // --continue` and a Simulation built with continue_from go on from it to the bit.
    // `key` names it in errors.
    void save(const std::string& path, const std::string& key = "save");

    // The summary as of now (summary.hpp; wall_seconds counts the time spent in the
    // constructor and in advance).
    Summary summary() const;
    ParticleArrays particles() const;
    Measurements measurements() const;
    // The time as the trajectory's frames and the time series label it: since the
    // measured phase began (on from init.from's clock).
    double time() const;
    const Config& config() const;
    // The collapse or the broken invariant that ended the run, if one did.
    const std::optional<InelasticCollapse>& collapse() const;
    const std::optional<InvariantViolation>& violation() const;

    // `choc run`'s end: writes the histograms, g(r), the summary (to `summary_path`,
    // named `summary_key` in errors) and puts the streamed outputs in place. Throws the
    // violation (after writing the summary marked invalid) or the collapse (after writing
    // everything).
    Summary finish(const std::string& summary_path, const std::string& summary_key);

    class Impl;

  private:
    // Without files (the Python module), the lock of output.checkpoint, which the run owns
    // as `choc run` owns its outputs: declared first, released last.
    std::unique_ptr<OutputLocks> checkpoint_lock_;
    std::unique_ptr<Impl> impl_;
};

} // namespace choc
