// One `choc run`: check the outputs can be written, build the start, equilibrate, run the
// measured phase in blocks (for error bars), write frames, and fill the summary.
#include "choc/run/run.hpp"

#include "choc/errors.hpp"
#include "choc/init/ball_volume.hpp"
#include "choc/init/initial_state.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/io/output_paths.hpp"
#include "choc/io/trajectory.hpp"
#include "choc/kernel/engine.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/overlap.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/observers/displacement.hpp"
#include "choc/observers/pair_correlation.hpp"
#include "choc/observers/pressure.hpp"
#include "choc/observers/speed_histogram.hpp"
#include "choc/observers/time_series.hpp"
#include "choc/observers/velocity_distribution.hpp"
#include "choc/run/checkpoint.hpp"
#include "choc/run/checkpoint_schedule.hpp"
#include "choc/run/collapse_watch.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/run/measured_phase.hpp"
#include "choc/run/progress.hpp"
#include "choc/run/provenance.hpp"
#include "choc/run/settings_from_config.hpp"
#include "choc_version.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

namespace choc {
namespace {

template <int D>
std::vector<double> momentum(const Particles<D>& p) {
    std::vector<double> m(D, 0.0);
    for (std::uint32_t i = 0; i < p.size(); ++i)
        for (int a = 0; a < D; ++a) m[a] += p.mass(i) * p.state[i].v[a];
    return m;
}

template <int D>
double packing_fraction(const Box<D>& box, const Particles<D>& p) {
    double v = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) v += ball_volume<D>(p.radius(i));
    return v / box.volume();
}

// The first restitution key below 1, which the collapse message names; none when every
// collision is elastic (then nothing can collapse and the watch stays off).
std::optional<std::string> inelastic_key(const Config& config) {
    if (config.restitution < 1.0) return "collisions.restitution";
    for (std::size_t k = 0; k < config.pair_restitution.size(); ++k)
        if (config.pair_restitution[k].restitution < 1.0)
            return "collisions.pair[" + std::to_string(k) + "].restitution";
    const bool box_walls =
        std::any_of(config.periodic.begin(), config.periodic.end(), [](bool p) { return !p; });
    if (box_walls && config.wall_restitution < 1.0) return "box.wall_restitution";
    for (std::size_t k = 0; k < config.walls.size(); ++k)
        if (config.walls[k].restitution < 1.0)
            return "walls[" + std::to_string(k) + "].restitution";
    return std::nullopt;
}

// Equilibration to absolute time `until`, with the periodic checkpoints that fall in it
// and one at an interrupt; the watch looks at the same grid of events as in the measured
// phase (chunk_budget).
template <class E>
void equilibrate(E& engine, double until, CollapseWatch& watch, CheckpointSchedule& checkpoints,
                 const CheckpointSchedule::State& state) {
    if (engine.time() < until && !InterruptGuard::requested())
        spdlog::info("equilibrating until t = {:.6g}", until);
    while (engine.time() < until) {
        if (InterruptGuard::requested()) {
            checkpoints.interrupted(state);
            return;
        }
        const double target = std::min(until, checkpoints.next());
        const auto stop = engine.run(target, ~std::uint64_t{0}, chunk_budget(engine));
        if (stop == E::Stop::budget)
            watch.check(engine.time(), engine.tally().events());
        else
            checkpoints.due(engine.time(), state);
    }
}

// The part of a checkpoint's state that run_with writes around the engine, the watch
// and the measured phase.
enum class Stage : std::uint8_t { equilibrating = 0, measuring = 1 };
constexpr std::uint32_t run_tag = 0x4e555243; // "CRUN"

struct RunClock {
    Stage stage = Stage::equilibrating;
    double start = 0.0;            // the time the run began
    double equilibrated = 0.0;     // the time equilibration ends
    std::uint64_t checkpoints = 0; // periodic checkpoints written
    double wall_seconds = 0.0;     // of the measured phase before this process
    double label = 0.0;            // the clock of frames and rows at the measured phase's start
};

template <int D, class Motion>
Summary run_with(const Config& config, const RunOptions& options, const std::string& summary_path,
                 const std::string& summary_key, const std::string& started,
                 Engine<D, DefaultCalendar, Motion>& engine, RunClock clock,
                 ArchiveReader* resume) {
    const bool has_walls = !engine.box().walls.empty() || !engine.box().segments.empty();
    const std::size_t n = engine.particles().size();

    if (options.started) options.started();
    const bool interrupted_early = InterruptGuard::requested();
    if (interrupted_early)
        spdlog::warn("interrupted during start-up: the summary is that of the start");
    // A collapse stops the run, or switches the armed TC model on (collisions.on_collapse).
    std::function<void(double)> switch_on_tc;
    if (config.tc_on_collapse)
        switch_on_tc = [&engine, &config](double time) {
            engine.enable_tc();
            spdlog::warn("inelastic collapse at t = {:.6g}: the TC model is on from now "
                         "(collisions.tc = {:.6g})",
                         time, config.tc);
        };
    const auto inelastic = inelastic_key(config);
    CollapseWatch watch(inelastic.has_value(), std::move(switch_on_tc), config.tc,
                        inelastic.value_or(""));
    if (resume) watch.restore(*resume);

    Checkpoint header;
    header.config = config.resolved;
    header.dimension = D;
    header.field = Motion::has_field;
    CheckpointSchedule checkpoints =
        config.checkpoint ? CheckpointSchedule(config.checkpoint->path, config.checkpoint->every,
                                               header, clock.start, clock.checkpoints)
                          : CheckpointSchedule();

    Summary s;
    s.dimension = D;
    s.N = n;
    // (in the caller's order, as every sum over particles here: the engine's order
    // depends on when it last renumbered, and a continuation must give the same bits)
    s.packing_fraction = packing_fraction(engine.box(), engine.snapshot(engine.time()));
    std::optional<MeasuredPhase<D, Motion>> phase;
    const auto wall_start = std::chrono::steady_clock::now();
    auto wall_seconds = [&] {
        return clock.wall_seconds +
               std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    };
    // The whole run's state, for a checkpoint.
    const CheckpointSchedule::State state = [&](ArchiveWriter& out) {
        out.tag(run_tag);
        out.put(clock.stage);
        out.put(clock.start);
        out.put(clock.equilibrated);
        out.put(clock.label);
        out.put(checkpoints.done());
        out.put(clock.stage == Stage::measuring ? wall_seconds() : 0.0);
        engine.save(out);
        watch.save(out);
        if (clock.stage == Stage::measuring) {
            out.put(s.kinetic_energy_initial);
            out.put(s.momentum_initial);
            phase->save(out);
        }
        out.tag(run_tag + 1);
    };

    // A broken runtime invariant (audit.hpp) stops the run; the summary is still written,
    // marked invalid with the reason, and the caller reports an internal error.
    std::optional<InvariantViolation> violation;
    auto guarded = [&violation](auto&& step) {
        try {
            step();
        } catch (const InvariantViolation& e) {
            violation = e;
        }
    };
    // A collapse in equilibration leaves the measured phase empty, as an interrupt does.
    std::optional<InelasticCollapse> early_collapse;
    if (clock.stage == Stage::equilibrating) {
        guarded([&] {
            try {
                equilibrate(engine, clock.equilibrated, watch, checkpoints, state);
            } catch (const InelasticCollapse& e) {
                early_collapse = e;
            }
        });
        if (InterruptGuard::requested() && !interrupted_early && clock.equilibrated > clock.start)
            spdlog::warn("interrupted during equilibration: the measured phase is empty");
        engine.reset_tally();
        // Sums over particles in the caller's order, so that a run started from a frame
        // reproduces these bit for bit.
        const auto initial = engine.snapshot(engine.time());
        s.kinetic_energy_initial = kinetic_energy(initial);
        s.momentum_initial = momentum(initial);
        clock.stage = Stage::measuring;
        phase.emplace(engine, config, options, watch, initial, provenance(config, options, started),
                      checkpoints, Streams{config.checkpoint.has_value(), {}, {}}, clock.label);
    } else {
        resume->get(s.kinetic_energy_initial);
        resume->get(s.momentum_initial);
        const Streams streams = MeasuredPhase<D, Motion>::restore_streams(*resume);
        phase.emplace(engine, config, options, watch, engine.snapshot(engine.time()),
                      provenance(config, options, started), checkpoints, streams, clock.label);
        phase->restore(*resume);
    }
    if (resume) resume->expect(run_tag + 1, "end");
    phase->checkpoint_state(state);
    if (early_collapse) phase->stop_at_collapse(*early_collapse);
    std::vector<VirialBlock> done;
    if (!violation)
        guarded([&] {
            done = phase->run();
            engine.check_conservation(); // the stretch since the last maintenance step
        });
    s.wall_seconds = wall_seconds();

    const Tally& t = engine.tally();
    // Round-off in the clock's rebasing may give -4e-16 for a phase that never ran.
    s.sim_time = std::max(0.0, engine.measured_time());
    s.collisions = t.collisions;
    s.wall_collisions = t.wall_collisions;
    s.events = t.events();
    s.collisions_per_second =
        s.wall_seconds > 0 ? static_cast<double>(t.collisions) / s.wall_seconds : 0.0;
    const auto final = engine.snapshot(engine.time());
    s.kinetic_energy_final = kinetic_energy(final);
    s.momentum_final = momentum(final);
    // (a run already found broken may hold NaN positions, which no cell grid takes)
    s.max_overlap = std::max({t.max_overlap, phase->frame_overlap(),
                              violation ? 0.0 : max_overlap(engine.box(), final, engine.time())});
    if (!violation && !(s.max_overlap <= engine.contact_tolerance()))
        violation = InvariantViolation(
            "overlap",
            fmt::format("invariant 'overlap' violated at t = {:.17g}: max_overlap {:.3g} "
                        "is above the tolerance {:.3g}",
                        engine.time(), s.max_overlap, engine.contact_tolerance()));

    // Temperatures: kT = 2 KE / (d N), time-averaged; at sim_time 0 the instantaneous one.
    const auto& species = engine.particles().table.species;
    std::vector<std::uint64_t> counts(species.size(), 0);
    for (const auto& p : engine.particles().state) ++counts[p.species];
    double kinetic_total = 0.0;
    for (std::uint32_t k = 0; k < species.size(); ++k) {
        const double mean_kinetic =
            s.sim_time > 0 ? engine.kinetic_integral(k) / s.sim_time : engine.kinetic(k);
        kinetic_total += mean_kinetic;
        s.species.push_back(
            {species[k].name, counts[k],
             counts[k] ? std::optional(temperature(mean_kinetic, static_cast<double>(counts[k]), D))
                       : std::nullopt});
    }
    s.temperature = temperature(kinetic_total, static_cast<double>(n), D);

    if (s.sim_time > 0 && t.collisions > 0) {
        s.collision_rate =
            2.0 * static_cast<double>(t.collisions) / (static_cast<double>(n) * s.sim_time);
        s.mean_free_time = 1.0 / *s.collision_rate;
    }
    // The collision virial gives the bulk pressure of a periodic fluid; walls would add
    // their own momentum flux, which this version does not measure.
    if (!has_walls)
        if (auto z = compressibility(done)) {
            s.Z = z->mean;
            s.Z_err = z->error;
        }

    const auto velocities = speed_sample(final);
    const auto stats = velocity_stats(velocities);
    // Every particle at rest: kT = 0, there is no Maxwell–Boltzmann to compare with, and
    // the statistics come out NaN; the summary's "velocity_distribution" is then null.
    if (std::isfinite(stats.ks_distance) && std::isfinite(stats.kurtosis)) {
        s.ks_distance = stats.ks_distance;
        s.kurtosis = stats.kurtosis;
    }
    s.collapsed = phase->collapse().has_value();
    if (violation) { // none of the measurements can be trusted: only the summary says so
        s.valid = false;
        s.violation = violation->what();
        write_summary(summary_path, s);
        throw *violation;
    }
    // Self-diffusion is a bulk property of 3D: in 2D the velocity autocorrelation decays
    // as 1/t and D does not exist (docs/PHYSICS.md, "Self-diffusion"), and walls confine
    // the walk.
    phase->finish(final);
    if (D == 3 && !has_walls)
        if (auto diffusion = phase->displacement().diffusion()) {
            s.D = diffusion->mean;
            s.D_err = diffusion->error;
        }
    std::vector<std::string> names;
    for (const auto& sp : species) names.push_back(sp.name);
    // All or nothing: every output is written to its temporary and checked before any is
    // renamed into place, so a full disk leaves none of this run's outputs (the
    // temporaries go with the exception). The summary comes last.
    std::vector<std::unique_ptr<AtomicOutput>> staged;
    auto stage = [&staged](const std::string& key, const std::string& path,
                           const std::string& content) {
        staged.push_back(std::make_unique<AtomicOutput>(path, key));
        staged.back()->stream() << content;
        staged.back()->finish();
    };
    if (config.histogram)
        stage("output.histogram", *config.histogram, speed_histogram_csv(velocities, names));
    if (config.velocity_histogram)
        stage("output.velocity_histogram", *config.velocity_histogram,
              component_histogram_csv(velocities, names));
    if (config.rdf && phase->rdf()) stage("output.rdf", *config.rdf, phase->rdf()->csv());

    spdlog::info("events: {} pair collisions, {} wall collisions, {} cell crossings, {} stale "
                 "predictions renewed ({} by a new scan, the others by the runner-up)",
                 t.collisions, t.wall_collisions, t.crossings, t.stale, t.rescans);
    if (config.epsilon > 0.0)
        spdlog::info("simultaneous groups of two or more contacts: {}", t.groups);
    if (t.singular_groups > 0 || t.fallback_groups > 0)
        spdlog::warn(
            "{} simultaneous groups had rank-deficient contact geometry; {} of them were "
            "resolved by the sequential plastic fallback (docs/REFERENCE.md, \"Simultaneous "
            "collisions in a run\")",
            t.singular_groups, t.fallback_groups);
    s.interrupted = phase->interrupted();
    s.provenance = provenance(config, options, started);
    s.provenance.finished = utc_now();
    stage(summary_key, summary_path, summary_json(s) + "\n");
    phase->publish(s.provenance.finished);
    for (auto& output : staged) output->publish();
    if (s.interrupted) spdlog::warn("summary written for the interrupted run: {}", summary_path);
    // Every output of the part run is in place; the app reports the collapse (exit 3).
    if (phase->collapse()) throw *phase->collapse();
    return s;
}

// A time-limited run knows its frame count: refuse, before the first event, a trajectory
// that cannot fit in its share of the free space (a collision-limited one is stopped when
// it reaches that share, MeasuredPhase::write_frame). An H5MD frame is compressed and has
// no useful lower bound on its size (a 2D frame took 27 bytes per particle, one at rest
// far less): it is only stopped at that share.
void check_trajectory_size(const Config& config, std::size_t particles) {
    if (!config.trajectory || !config.run_time ||
        config.trajectory->format == TrajectoryFormat::h5md)
        return;
    const double frames = std::floor(*config.run_time / config.trajectory->every) + 1.0;
    const double least = frames * static_cast<double>(particles) * least_line_bytes;
    const double allowed = trajectory_bytes_allowed(config.trajectory->path);
    if (least > allowed)
        throw InputError(fmt::format(
            "output.trajectory.every: {:.0f} frames of {} particles take at least {:.3g} bytes, "
            "more than half the {:.3g} bytes free on the trajectory's file system; use a "
            "larger every or a file system with more space",
            frames, particles, least, allowed / trajectory_share));
}

// The engine: built from the config's start, or restored from a checkpoint.
template <int D, class Motion>
Summary run_motion(const Config& config, const RunOptions& options, const std::string& summary_path,
                   const std::string& summary_key, const std::string& started, Motion motion,
                   const Checkpoint* resume) {
    using EngineT = Engine<D, DefaultCalendar, Motion>;
    RunClock clock;
    if (!resume) {
        auto start = make_initial_state<D>(config);
        check_trajectory_size(config, start.particles.size());
        EngineT engine(std::move(start.box), std::move(start.particles), engine_settings(config),
                       motion);
        clock.start = engine.time();
        clock.equilibrated = clock.start + equilibration_time(config);
        // A run from a snapshot goes on with the snapshot's clock.
        clock.label = start.time;
        if (config.from && config.equilibrate > 0.0 && equilibration_time(config) == 0.0)
            spdlog::info("init.from: run.equilibrate = {} is not done (the snapshot is taken as "
                         "equilibrated; init.equilibrate = true equilibrates it again)",
                         config.equilibrate);
        return run_with<D>(config, options, summary_path, summary_key, started, engine, clock,
                           nullptr);
    }
    ArchiveReader in(resume->state);
    in.expect(run_tag, "start");
    in.get(clock.stage);
    if (clock.stage != Stage::equilibrating && clock.stage != Stage::measuring)
        throw ArchiveError("the state's stage is damaged");
    in.get(clock.start);
    in.get(clock.equilibrated);
    in.get(clock.label);
    in.get(clock.checkpoints);
    in.get(clock.wall_seconds);
    EngineT engine = EngineT::restore(in, engine_settings(config), motion);
    return run_with<D>(config, options, summary_path, summary_key, started, engine, clock, &in);
}

// The engine for the field: straight flights unless there is gravity or drag (the
// field-free engine pays nothing for fields it does not have).
template <int D>
Summary run_in(const Config& config, const RunOptions& options, const std::string& summary_path,
               const std::string& summary_key, const std::string& started,
               const Checkpoint* resume) {
    Vec<D> g;
    for (int a = 0; a < D; ++a) g[a] = config.gravity.empty() ? 0.0 : config.gravity[a];
    if (norm2(g) == 0.0 && config.drag == 0.0)
        return run_motion<D>(config, options, summary_path, summary_key, started, Ballistic<D>{},
                             resume);
    return run_motion<D>(config, options, summary_path, summary_key, started,
                         Field<D>(g, config.drag), resume);
}

// The checkpoint to continue, checked against the config before anything is written.
std::optional<Checkpoint> checkpoint_to_continue(const Config& config, const RunOptions& options) {
    if (!options.continue_from) return std::nullopt;
    const std::string& path = *options.continue_from;
    Checkpoint c = read_checkpoint(path, "--continue");
    if (auto key = config_difference(c.config, config.resolved))
        throw InputError("--continue \"" + path + "\": " + *key +
                         ": the config differs from the one the checkpoint was written with "
                         "(a continuation may change only run.time, run.collisions, "
                         "output.checkpoint and the outputs' paths)");
    // (the dimension and the field follow from the config, which matched)
    if (c.dimension != config.dimension)
        throw InputError("--continue \"" + path + "\": the checkpoint is damaged");
    return c;
}

} // namespace

Summary run_simulation(const Config& config, const RunOptions& options) {
    // Signals are recorded from here on (the app installs them even earlier): a signal
    // while the start is built gives an interrupted run with a summary, never a kill.
    InterruptGuard interrupts;
    // Every output is checked before anything is created: bad input leaves no files.
    const std::string summary_key = options.summary_path ? "--summary" : "output.summary";
    const std::string summary_path = options.summary_path.value_or(config.summary);
    std::vector<NamedPath> outputs{{summary_key, summary_path}};
    for (const auto& [key, path] : output_paths(config)) outputs.push_back({key, path});
    std::vector<NamedPath> inputs{{"the config file", config.source}};
    if (config.from) inputs.push_back({"init.from", *config.from});
    check_outputs(outputs, inputs);
    // The checkpoint to continue is read whole before anything is written, and the run's
    // own checkpoints replace it; no other output may.
    if (options.continue_from) {
        std::vector<NamedPath> others;
        for (const auto& o : outputs)
            if (o.key != "output.checkpoint.path") others.push_back(o);
        check_outputs(others, {{"--continue", *options.continue_from}});
    }
    remove_stale_temporaries(outputs);

    const auto resume = checkpoint_to_continue(config, options);
    const Checkpoint* from = resume ? &*resume : nullptr;
    const std::string started = utc_now();
    try {
        return config.dimension == 2
                   ? run_in<2>(config, options, summary_path, summary_key, started, from)
                   : run_in<3>(config, options, summary_path, summary_key, started, from);
    } catch (const ArchiveError& e) {
        // (a state whose checksum held but that does not fit this config or build)
        throw InputError("--continue \"" + *options.continue_from +
                         "\": the checkpoint cannot be continued: " + e.what());
    }
}

} // namespace choc
