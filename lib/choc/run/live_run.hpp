// The run behind a Simulation (simulation.hpp) for one dimension and one Motion: the
// engine built or restored, equilibrated, its measured phase advanced step by step, and
// the summary and outputs of the run so far. `choc run` (run.cpp) and the Python module
// both go through it; nothing here is duplicated elsewhere.
#pragma once

#include "choc/errors.hpp"
#include "choc/init/initial_state.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/io/xyz.hpp"
#include "choc/kernel/ball_volume.hpp"
#include "choc/kernel/configuration_archive.hpp"
#include "choc/kernel/engine.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/overlap.hpp"
#include "choc/kernel/step_engine.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/observers/pressure.hpp"
#include "choc/observers/speed_histogram.hpp"
#include "choc/observers/time_series.hpp"
#include "choc/observers/velocity_distribution.hpp"
#include "choc/run/checkpoint.hpp"
#include "choc/run/checkpoint_schedule.hpp"
#include "choc/run/collapse_watch.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/run/kernel_errors.hpp"
#include "choc/run/measured_phase.hpp"
#include "choc/run/progress.hpp"
#include "choc/run/provenance_text.hpp"
#include "choc/run/settings_from_config.hpp"
#include "choc/run/simulation.hpp"
#include "choc/run/simulation_impl.hpp"
#include "choc/run/summary_physics.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

namespace choc {

namespace live {

// Sums over the particles in the caller's order: that order fixes their round-off, so a
// run started from a frame reproduces them bit for bit.
template <int D>
struct ParticleSums {
    double kinetic = 0.0;                                       // Σ ½ m v²
    std::vector<double> momentum = std::vector<double>(D, 0.0); // Σ m v
    double volume = 0.0;                                        // Σ of the balls' volumes

    void add(const Species& s, const Vec<D>& v) {
        kinetic += kinetic_energy(s.mass, v);
        for (int a = 0; a < D; ++a) momentum[a] += s.mass * v[a];
        volume += ball_volume<D>(s.radius);
    }
};

template <int D>
ParticleSums<D> sums_of(const Particles<D>& p) {
    ParticleSums<D> sums;
    for (const auto& state : p.state) sums.add(p.table.species[state.species], state.v);
    return sums;
}

// The same of an engine's particles now, read in place (Engine::visit_in_order): a snapshot
// copy would add 64 bytes per particle to the run's peak memory.
template <int D, class EngineT>
ParticleSums<D> sums_now(const EngineT& engine) {
    ParticleSums<D> sums;
    const auto& species = engine.particles().table.species;
    engine.visit_in_order(engine.time(), [&](std::uint32_t, const ParticleState<D>& p) {
        sums.add(species[p.species], p.v);
    });
    return sums;
}

// The first restitution key below 1, which the collapse message names; none when every
// collision is elastic (then nothing can collapse and the watch stays off).
inline std::optional<std::string> inelastic_key(const Config& config) {
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
// phase (chunk_budget). Its progress line counts time from `origin` (the run's start).
template <class E>
void equilibrate(E& engine, double until, CollapseWatch& watch, CheckpointSchedule& checkpoints,
                 const CheckpointSchedule::State& state, Progress& progress, double origin) {
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
            watch.check(engine.time(), engine.tally().events(), engine.short_flights());
        else
            checkpoints.due(engine.time(), state);
        progress.update(engine.time() - origin, engine.tally().collisions);
    }
    progress.finish();
}

// A time-limited run knows its frame count: refuse, before the first event, a trajectory
// that cannot fit in its budget (output.trajectory.max_bytes, or its share of the free
// space if less; a collision-limited one is stopped when it reaches it,
// MeasuredPhase::write_frame). An H5MD frame is compressed and has no useful lower bound on
// its size (a 2D frame took 27 bytes per particle, one at rest far less): it is only
// stopped.
inline void check_trajectory_size(const Config& config, std::size_t particles) {
    if (!config.trajectory || !config.run_time ||
        config.trajectory->format == TrajectoryFormat::h5md)
        return;
    const double frames = std::floor(*config.run_time / config.trajectory->every) + 1.0;
    const double least = frames * static_cast<double>(particles) * least_line_bytes;
    const TrajectoryBudget budget = trajectory_budget(*config.trajectory);
    if (least > budget.bytes)
        throw InputError(fmt::format("{}: {:.0f} frames of {} particles take at least {:.3g} "
                                     "bytes, more than {}",
                                     budget.key(), frames, particles, least, over_budget(budget)));
}

// The part of a checkpoint's state written around the engine, the watch and the
// measured phase.
enum class Stage : std::uint8_t { equilibrating = 0, measuring = 1 };
constexpr std::uint32_t run_tag = 0x4e555243; // "CRUN"

struct RunClock {
    Stage stage = Stage::equilibrating;
    double start = 0.0;            // the time the run (or its stage) began
    double equilibrated = 0.0;     // the time equilibration ends
    std::uint64_t checkpoints = 0; // periodic checkpoints written
    double wall_seconds = 0.0;     // of the measured phase before this process
    double label = 0.0;            // the clock of frames and rows at the measured phase's start
    // The time since the measured phase began that the last step asked for, when the
    // engine stands exactly there (NaN otherwise): the next step counts from it, so that a
    // continued Simulation's run(time=b) stops where the uninterrupted one's does.
    double asked = std::numeric_limits<double>::quiet_NaN();
    // The stages begun by steering so far (Simulation::steer), 0 for the config's own.
    std::uint64_t stages = 0;

    // The checkpoint's fields (archive.hpp), one list for save and restore.
    template <class Archive>
    void fields(Archive& ar) {
        ar(stage, start, equilibrated, label, checkpoints, wall_seconds, asked, stages);
        if (stage != Stage::equilibrating && stage != Stage::measuring)
            throw ArchiveError("the state's stage is damaged");
    }
};

// What the summary knew before the measured phase that a checkpoint keeps: the initial
// kinetic energy and momentum (one list for save and restore).
template <class Archive>
void initial_fields(Archive& ar, Summary& base) {
    ar(base.kinetic_energy_initial, base.momentum_initial);
}

// EngineT: the event-driven engine (engine.hpp), or the time-stepped one
// (step_engine.hpp, run.integrator = "timestep"), whose overlaps are measured rather than
// checked (EngineT::exact).
template <int D, class Motion, class EngineT = Engine<D, DefaultCalendar, Motion>>
class LiveRun final : public Simulation::Impl {
  public:
    using Phase = MeasuredPhase<D, EngineT>;

    // The engine from the config's start, or (resume) from a checkpoint's state, or (stage)
    // from the state a run stood in when it was steered; then the watch, the checkpoints,
    // equilibration (none for a stage) and the measured phase, ready for advance.
    LiveRun(const Config& config, const RunOptions& options, std::string started, Motion motion,
            const Checkpoint* resume, const StageStart* stage = nullptr)
        : config_(config), options_(options), started_(std::move(started)) {
        std::optional<ArchiveReader> in;
        if (stage) {
            // A new engine from the particles as they stood (every one at time 0 of its
            // clock), as a run from a snapshot starts: its predictions, restitution table
            // and field are the new config's; the clock of frames and rows goes on.
            ArchiveReader bytes(stage->configuration);
            auto now = restore_configuration<D>(bytes);
            EngineSettings settings = engine_settings(config_);
            // the thermal walls draw anew, not the start's draws again
            settings.thermal_seed ^= 0xbf58476d1ce4e5b9u * stage->stages;
            engine_.reset(config_worded([&] {
                return new EngineT(std::move(now.first), std::move(now.second), settings, motion);
            }));
            clock_.start = clock_.equilibrated = engine_->time();
            clock_.label = stage->label;
            clock_.stages = stage->stages;
        } else if (!resume) {
            auto start = make_initial_state<D>(config_);
            if (options_.files) check_trajectory_size(config_, start.particles.size());
            engine_.reset(config_worded([&] {
                return new EngineT(std::move(start.box), std::move(start.particles),
                                   engine_settings(config_), motion);
            }));
            clock_.start = engine_->time();
            clock_.equilibrated = clock_.start + equilibration_time(config_);
            // A run from a snapshot goes on with the snapshot's clock.
            clock_.label = start.time;
            if (config_.from && config_.equilibrate > 0.0 && equilibration_time(config_) == 0.0)
                spdlog::info("init.from: run.equilibrate = {} is not done (the snapshot is taken "
                             "as equilibrated; init.equilibrate = true equilibrates it again)",
                             config_.equilibrate);
        } else {
            in.emplace(resume->state);
            in->expect(run_tag, "start");
            clock_.fields(*in);
            engine_.reset(config_worded([&] {
                return new EngineT(EngineT::restore(*in, engine_settings(config_), motion));
            }));
        }
        set_up(in ? &*in : nullptr);
        if constexpr (!EngineT::exact)
            if (config_.compare_edmd) {
                // the same start, run event-driven, quietly and without files
                RunOptions quiet;
                quiet.quiet = true;
                quiet.files = false;
                quiet.report_interrupts = false; // (this run reports them)
                reference_ =
                    std::make_unique<LiveRun<D, Motion>>(config_, quiet, started_, motion, nullptr);
                if (time() > reference_->time()) {
                    Advance to;
                    to.time = time() - reference_->time();
                    reference_->advance(to);
                }
            }
    }

    StepEnd advance(const Advance& by) override {
        const StepEnd end = advance_run(by);
        // the event-driven run beside a time-stepped one, to where this one stands
        // (outside this run's Timer: its wall time is its own)
        if (reference_ && time() > reference_->time()) {
            Advance to;
            to.time = time() - reference_->time();
            reference_->advance(to);
        }
        return end;
    }

    Summary summary() const override { return summary_of(engine_->snapshot(engine_->time())); }

    ParticleArrays particles() const override {
        const auto p = engine_->snapshot(engine_->time());
        ParticleArrays a;
        a.dimension = D;
        a.count = p.size();
        for (std::uint32_t i = 0; i < p.size(); ++i) {
            for (int k = 0; k < D; ++k) {
                a.positions.push_back(p.state[i].x[k]);
                a.velocities.push_back(p.state[i].v[k]);
            }
            a.radii.push_back(p.radius(i));
            a.masses.push_back(p.mass(i));
            a.species.push_back(p.state[i].species);
        }
        return a;
    }

    Measurements measurements() const override {
        const auto final = engine_->snapshot(engine_->time());
        const auto names = species_names();
        const auto speeds = speed_sample(final);
        Measurements m;
        m.speed_histogram = speed_histogram_csv(speeds, names);
        m.velocity_histogram = component_histogram_csv(speeds, names);
        m.speed_histogram_series = histogram_series(HistogramVariable::speed, speeds);
        m.velocity_histogram_series = histogram_series(HistogramVariable::vx, speeds);
        const auto& moved = displacement();
        const auto samples = moved.samples(final, engine_->time());
        if (const auto rdf = moved.rdf(final)) m.rdf = rdf->csv();
        m.vacf = vacf_csv();
        if (config_.profile) m.profile = profile_csv();
        if (config_.timeseries) {
            std::string text = timeseries_columns(names, config_.crossing.has_value());
            for (const auto& row : phase_->rows()) text += timeseries_line(row);
            m.timeseries = std::move(text);
        }
        m.msd_times = samples.times();
        m.msd = samples.msd_samples();
        return m;
    }

    double time() const override { return phase_->label() + (engine_->time() - phase_->start()); }

    Summary finish(const std::string& summary_path, const std::string& summary_key) override {
        // Nothing runs after this: the event loop's memory goes before the final state's
        // copy and the outputs take theirs.
        engine_->retire();
        const auto final = engine_->snapshot(engine_->time());
        if (violation_) { // none of the measurements can be trusted: only the summary says so
            write_summary(summary_path, summary_of(final));
            throw *violation_;
        }
        phase_->end();
        Summary s = summary_of(final);
        const auto names = species_names();
        const auto velocities = speed_sample(final);
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
        if (config_.histogram)
            stage(config_.histogram->key, config_.histogram->path,
                  histogram_series(HistogramVariable::speed, velocities)
                      .value_or(speed_histogram_csv(velocities, names)));
        if (config_.velocity_histogram)
            stage(config_.velocity_histogram->key, config_.velocity_histogram->path,
                  histogram_series(HistogramVariable::vx, velocities)
                      .value_or(component_histogram_csv(velocities, names)));
        if (config_.rdf)
            if (const auto rdf = displacement().rdf(final))
                stage("output.rdf", *config_.rdf, rdf->csv());
        if (config_.vacf)
            stage("output.vacf", *config_.vacf,
                  vacf_csv().value_or("lag,vacf,vacf_err,normalized,origins\n"));
        if (config_.profile)
            stage(config_.profile->key, config_.profile->path,
                  provenance_header(provenance(config_, options_, started_)) + profile_csv());

        const Tally& t = engine_->tally();
        spdlog::info("events: {} pair collisions, {} wall collisions, {} cell crossings, {} "
                     "stale predictions renewed ({} by a new scan, the others by the runner-up)",
                     t.collisions, t.wall_collisions, t.crossings, t.stale, t.rescans);
        if (config_.epsilon > 0.0)
            spdlog::info("simultaneous groups of two or more contacts: {}", t.groups);
        if (t.singular_groups > 0 || t.fallback_groups > 0)
            spdlog::warn("{} simultaneous groups had rank-deficient contact geometry; {} of them "
                         "were resolved by the sequential plastic fallback (docs/REFERENCE.md, "
                         "\"Simultaneous collisions in a run\")",
                         t.singular_groups, t.fallback_groups);
        stage(summary_key, summary_path, summary_json(s) + "\n");
        phase_->publish(s.provenance.finished);
        for (auto& output : staged) output->publish();
        if (s.interrupted)
            spdlog::warn("summary written for the interrupted run: {}", summary_path);
        // Every output of the part run is in place; the app reports the collapse (exit 3).
        if (phase_->collapse()) throw *phase_->collapse();
        return s;
    }

    const Config& config() const override { return config_; }
    const std::optional<InelasticCollapse>& collapse() const override { return phase_->collapse(); }
    const std::optional<InvariantViolation>& violation() const override { return violation_; }
    const RunOptions& options() const override { return options_; }
    const std::string& started() const override { return started_; }

    // A checkpoint of the run now, as output.checkpoint's: `choc run --continue` and a
    // continued Simulation go on from it as if the run had never stopped.
    void save_checkpoint(const std::string& path, const std::string& key) override {
        if (violation_)
            throw InputError(key + " \"" + path +
                             "\": the run broke a runtime invariant; its state is not saved");
        Checkpoint c = checkpoint_header();
        ArchiveWriter out;
        save(out);
        c.state = out.bytes();
        write_checkpoint(path, c, key);
    }

    // The state a new stage starts from (Simulation::steer): the particles now, in the
    // start's order, with their velocities scaled to kinetic temperature `kT` if given.
    StageStart stage_start(std::optional<double> kT, const std::string& key) const override {
        if (violation_)
            throw InputError(key + ": the run broke a runtime invariant; it cannot go on");
        if (reference_)
            throw InputError(key + ": run.compare_edmd: a time-stepped run compared with its "
                                   "event-driven twin cannot be steered");
        if (engine_->box().sheared())
            throw InputError(key + ": box.shear_rate: a run under sliding boundaries cannot be "
                                   "steered (the images' offset would jump)");
        const Particles<D> now = engine_->snapshot(engine_->time());
        const auto before = sums_of(now);
        const double n = static_cast<double>(now.size());
        double scale = 1.0;
        if (kT) {
            // kT = 2 K / (d N), the summary's temperature (kinetic.hpp): every velocity
            // times sqrt(kT / kT now) gives K' = K kT / kT now, to round-off; the momentum
            // is scaled alike (zero stays zero, to round-off).
            const double kT_now = temperature(before.kinetic, n, D);
            if (!(kT_now > 0.0))
                throw InputError(key + ": every particle is at rest (kT = 0): there is no "
                                       "velocity to scale");
            scale = std::sqrt(*kT / kT_now);
        }
        Particles<D> start;
        start.table = now.table;
        start.state.reserve(now.size());
        for (const auto& p : now.state)
            start.add(folded_position(engine_->box(), p.x), p.v * scale, p.species);
        StageStart s;
        ArchiveWriter out;
        save_configuration(out, engine_->box(), start);
        s.configuration = out.bytes();
        s.label = time();
        s.stages = clock_.stages + 1;
        s.kinetic_before = before.kinetic;
        s.kinetic_after = sums_of(start).kinetic;
        return s;
    }

  private:
    StepEnd advance_run(const Advance& by) {
        if (violation_) return StepEnd::violated;
        // (a collapse in equilibration is reported by the first step, which still checks
        // the state as every step does)
        if (phase_->collapse() && stepped_) return StepEnd::collapsed;
        stepped_ = true;
        double until = phase_->end_time();
        std::uint64_t limit = phase_->collision_limit();
        std::optional<double> asked; // the time since the phase began that this step asks for
        if (by.time || by.collisions) {
            until = never;
            limit = ~std::uint64_t{0};
            if (by.time) {
                // From the time the last step asked for when it got there, so that steps of
                // a and b stop where one of a + b does, to the bit.
                asked = time_asked_.value_or(engine_->time() - phase_->start()) + *by.time;
                until = phase_->start() + *asked;
            }
            if (by.collisions)
                limit = engine_->tally().collisions +
                        std::min(*by.collisions, limit - engine_->tally().collisions);
        } else if (config_.run_time) {
            asked = *config_.run_time; // (end_time() is start + run.time)
        }
        // Without files (the Python module) a step that asks for nothing beyond where the
        // run stands ends at once: the engine's clock must never be set back.
        if (!options_.files && !phase_->collapse() &&
            (until <= engine_->time() || engine_->tally().collisions >= limit))
            return StepEnd::reached;

        Timer timer(*this);
        step_asked_ = asked; // (a checkpoint at the step's end records it: asked_now)
        guarded([&] {
            phase_broken_ = true;
            phase_->run_to(until, limit);
            phase_broken_ = false;
            engine_->check_conservation(); // the stretch since the last maintenance step
            injected_violation();
        });
        step_asked_.reset();
        time_asked_ = phase_->reached() && asked && engine_->time() == until
                          ? asked
                          : std::optional<double>();
        // (the time-stepped engine's overlaps are its model's, measured in its summary)
        if (EngineT::exact && !violation_) {
            const double overlap = max_overlap_now();
            if (!(overlap <= engine_->contact_tolerance()))
                violation_ = InvariantViolation(
                    "overlap",
                    fmt::format("invariant 'overlap' violated at t = {:.17g}: max_overlap {:.3g} "
                                "is above the tolerance {:.3g}",
                                engine_->time(), overlap, engine_->contact_tolerance()));
        }
        if (violation_) return StepEnd::violated;
        if (phase_->collapse()) return StepEnd::collapsed;
        if (phase_->interrupted()) return StepEnd::interrupted;
        return phase_->reached() ? StepEnd::reached : StepEnd::no_events;
    }

    // Wall-clock seconds of the run: those of the measured phase before this process
    // (a continuation's), then the time spent in set_up and advance.
    class Timer {
      public:
        explicit Timer(LiveRun& run) : run_(run) { run_.since_ = std::chrono::steady_clock::now(); }
        ~Timer() {
            run_.wall_ += seconds_since(*run_.since_);
            run_.since_.reset();
        }
        Timer(const Timer&) = delete;
        Timer& operator=(const Timer&) = delete;

      private:
        LiveRun& run_;
    };
    static double seconds_since(std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    }
    double wall_seconds() const { return wall_ + (since_ ? seconds_since(*since_) : 0.0); }

    // The test hook of DEVELOPING ("Testing how a violation is reported"): with
    // CHOC_TEST_VIOLATION=NAME in the environment, every run step ends in a violation of
    // invariant NAME, so that the tests can follow the path from the engine's throw to the
    // command line's exit status 1, the summary and the Python module's exception without
    // an engine bug to trigger it. Read after each step (a lookup, nothing beside a step's
    // millions of events), never in the event loop.
    void injected_violation() const {
        const char* const name = std::getenv("CHOC_TEST_VIOLATION");
        if (name && *name)
            invariant_violated(name, engine_->time(),
                               "injected by CHOC_TEST_VIOLATION (a test of how a violation is "
                               "reported, not a fault of the run)");
    }

    // A broken runtime invariant (audit.hpp) stops the run; the summary is still
    // available, marked invalid with the reason.
    template <class Step>
    void guarded(Step&& step) {
        try {
            step();
        } catch (const InvariantViolation& e) {
            violation_ = e;
            broken_ = true;
        }
    }

    void set_up(ArchiveReader* resume) {
        has_walls_ = engine_->box().has_obstacles();
        if (options_.started) options_.started();
        const bool interrupted_early = InterruptGuard::requested();
        if (interrupted_early && options_.report_interrupts)
            spdlog::warn("interrupted during start-up: the summary is that of the start");
        // A collapse stops the run, or switches the armed TC model on (collisions.on_collapse).
        std::function<void(double)> switch_on_tc;
        if (config_.tc_on_collapse)
            switch_on_tc = [this](double time) {
                engine_->enable_tc();
                spdlog::warn("inelastic collapse at t = {:.6g}: the TC model is on from now "
                             "(collisions.tc = {:.6g})",
                             time, config_.tc);
            };
        const auto inelastic = inelastic_key(config_);
        // (fixed steps cannot collapse: the watch looks at the event-driven engine only)
        // under gravity a collapse is often a pile settling: the rest model is the cure
        const bool gravity = std::any_of(config_.gravity.begin(), config_.gravity.end(),
                                         [](double g) { return g != 0.0; });
        // the rest model answers a stall by stopping it (collapse_watch.hpp)
        std::function<void(double, double)> rescue;
        if (config_.rest_speed > 0.0)
            rescue = [this](double time, double span) {
                engine_->rescue_stall(span);
                spdlog::debug("stall at t = {:.17g} (over {:.3g}): its particles stopped", time,
                              span);
            };
        watch_.emplace(inelastic.has_value() && EngineT::exact, std::move(switch_on_tc), config_.tc,
                       inelastic.value_or(""),
                       gravity && config_.rest_speed == 0.0
                           ? " Under gravity, collisions.rest_speed > 0 (the rest model) puts "
                             "particles that have settled on their supports to rest instead."
                           : "",
                       std::move(rescue));
        if (resume) watch_->fields(*resume);

        if (config_.checkpoint && (options_.files || options_.checkpoints))
            checkpoints_ = CheckpointSchedule(config_.checkpoint->path, config_.checkpoint->every,
                                              checkpoint_header(), clock_.start, clock_.checkpoints,
                                              options_.report_interrupts);

        base_.dimension = D;
        base_.N = engine_->particles().size();
        // (in the caller's order, as every sum over particles here: the engine's order
        // depends on when it last renumbered, and a continuation must give the same bits)
        base_.packing_fraction = sums_now<D>(*engine_).volume / engine_->box().volume();
        wall_ = clock_.wall_seconds;
        // The wall clock counts the measured phase only (summary wall_seconds): it starts
        // once equilibration is over, or at once for a run restored in its measured phase.
        std::optional<Timer> timer;
        const CheckpointSchedule::State state = [this](ArchiveWriter& out) { save(out); };

        // A collapse in equilibration leaves the measured phase empty, as an interrupt does.
        std::optional<InelasticCollapse> early_collapse;
        if (clock_.stage == Stage::equilibrating) {
            guarded([&] {
                phase_broken_ = true;
                try {
                    Progress progress(!options_.quiet, options_.terminal,
                                      clock_.equilibrated - clock_.start, std::nullopt,
                                      "equilibrating");
                    equilibrate(*engine_, clock_.equilibrated, *watch_, checkpoints_, state,
                                progress, clock_.start);
                } catch (const InelasticCollapse& e) {
                    early_collapse = e;
                }
                phase_broken_ = false;
            });
            if (InterruptGuard::requested() && !interrupted_early &&
                clock_.equilibrated > clock_.start && options_.report_interrupts)
                spdlog::warn("interrupted during equilibration: the measured phase is empty");
            engine_->reset_tally();
            timer.emplace(*this);
            // Sums over particles in the caller's order, so that a run started from a frame
            // reproduces these bit for bit.
            const auto initial = sums_now<D>(*engine_);
            base_.kinetic_energy_initial = initial.kinetic;
            base_.momentum_initial = initial.momentum;
            clock_.stage = Stage::measuring;
            phase_.emplace(*engine_, config_, options_, *watch_,
                           provenance(config_, options_, started_), checkpoints_,
                           Streams{config_.checkpoint.has_value() && options_.files, {}, {}},
                           clock_.label);
        } else {
            timer.emplace(*this);
            initial_fields(*resume, base_);
            const Streams streams = Phase::restore_streams(*resume);
            phase_.emplace(*engine_, config_, options_, *watch_,
                           provenance(config_, options_, started_), checkpoints_, streams,
                           clock_.label);
            phase_->restore(*resume);
        }
        if (resume) resume->expect(run_tag + 1, "end");
        phase_->checkpoint_state(state);
        if (early_collapse) phase_->stop_at_collapse(*early_collapse);
        // the phase's clock is the engine's now (a step's time is counted from it), or where
        // the last step of the run continued asked it to stop
        if (engine_->time() == phase_->start())
            time_asked_ = 0.0;
        else if (!std::isnan(clock_.asked))
            time_asked_ = clock_.asked;
    }

    // What every checkpoint of this run says of it besides its state.
    Checkpoint checkpoint_header() const {
        Checkpoint header;
        header.config = config_.resolved;
        header.dimension = D;
        header.field = Motion::has_field;
        return header;
    }

    // The time since the phase began that the engine stands at exactly, as a step asked
    // for it: the last step's, or the one under way at its end (a checkpoint written when
    // it reached its limits). None elsewhere (a checkpoint between samples).
    std::optional<double> asked_now() const {
        for (const auto& asked : {step_asked_, time_asked_})
            if (asked && engine_->time() == phase_->start() + *asked) return asked;
        return std::nullopt;
    }

    // The whole run's state, for a checkpoint.
    void save(ArchiveWriter& out) {
        out.tag(run_tag);
        RunClock now = clock_;
        now.checkpoints = checkpoints_.done();
        now.wall_seconds = clock_.stage == Stage::measuring ? wall_seconds() : 0.0;
        now.asked = clock_.stage == Stage::measuring
                        ? asked_now().value_or(std::numeric_limits<double>::quiet_NaN())
                        : std::numeric_limits<double>::quiet_NaN();
        now.fields(out);
        engine_->save(out);
        watch_->fields(out);
        if (clock_.stage == Stage::measuring) {
            initial_fields(out, base_);
            phase_->save(out);
        }
        out.tag(run_tag + 1);
    }

    // The worst overlap seen: the engine's record, the frames', and a check of the state
    // now, made on the engine's own particles (a snapshot copy would add 64 bytes per
    // particle to the run's peak memory; the check's own grid adds 12).
    double max_overlap_now() const {
        // (a run already found broken may hold NaN positions, which no cell grid takes)
        const double t = engine_->time();
        const auto at = [&](std::uint32_t i) { return engine_->position(i, t); };
        return std::max({engine_->tally().max_overlap, phase_->frame_overlap(),
                         broken_ ? 0.0 : max_overlap_at(engine_->box(), engine_->particles(), at)});
    }

    std::vector<std::string> species_names() const {
        std::vector<std::string> names;
        for (const auto& sp : engine_->particles().table.species) names.push_back(sp.name);
        return names;
    }

    // The summary of the run so far, from the state now (`final`, a copy); a run found
    // broken says only that, with none of the observers' measurements.
    Summary summary_of(const Particles<D>& final) const {
        Summary s = base_;
        s.wall_seconds = wall_seconds();
        const Tally& t = engine_->tally();
        // Round-off in the clock's rebasing may give -4e-16 for a phase that never ran.
        s.sim_time = std::max(0.0, engine_->measured_time());
        s.collisions = t.collisions;
        s.wall_collisions = t.wall_collisions;
        s.events = t.events();
        s.collisions_per_second =
            s.wall_seconds > 0 ? static_cast<double>(t.collisions) / s.wall_seconds : 0.0;
        const auto sums = sums_of(final);
        s.kinetic_energy_final = sums.kinetic;
        s.momentum_final = sums.momentum;
        s.max_overlap = max_overlap_now();

        const auto& species = engine_->particles().table.species;
        std::vector<std::uint64_t> counts(species.size(), 0);
        for (const auto& p : engine_->particles().state) ++counts[p.species];
        const SummaryContext<D> context{config_, engine_->box(),  final,
                                        counts,  engine_->time(), has_walls_};
        particle_summary(
            s, context, t, [&](std::uint32_t k) { return engine_->kinetic(k); },
            [&](std::uint32_t k) { return engine_->kinetic_integral(k); });
        // The collision virial gives the bulk pressure of a periodic fluid; walls would add
        // their own momentum flux, which this version does not measure.
        // (none when the measured phase itself broke: its blocks were never closed)
        // (under sliding boundaries the lab kinetic energy holds the flow's: sliding_shear)
        if (!has_walls_ && !phase_broken_ && !engine_->box().sheared())
            if (auto z = compressibility(phase_->z_blocks())) {
                s.Z = z->mean;
                s.Z_err = z->error;
            }

        const auto stats = velocity_stats(speed_sample(final));
        // Every particle at rest: kT = 0, there is no Maxwell–Boltzmann to compare with, and
        // the statistics come out NaN; the summary's "velocity_distribution" is then null.
        if (std::isfinite(stats.ks_distance) && std::isfinite(stats.kurtosis)) {
            s.ks_distance = stats.ks_distance;
            s.ks_pvalue = stats.ks_pvalue;
            s.kurtosis = stats.kurtosis;
        }
        s.collapsed = phase_->collapse().has_value();
        if constexpr (EngineT::exact) {
            s.engine = EngineCosts{t.crossings, t.stale, t.rescans, t.pair_predictions,
                                   engine_->memory_bytes()};
            if (const RestRule& rule = engine_->rest_rule(); rule.on())
                s.rest = RestSummary{rule.speed, rule.reach,     rule.wake,          t.rests,
                                     t.wakes,    t.rest_impacts, engine_->at_rest(), t.rest_energy,
                                     t.glides,   t.leans,        t.rescues};
        } else
            s.timestep = stepping_summary();
        if (violation_) {
            s.valid = false;
            s.violation = violation_->what();
            return s;
        }
        // (a broken run's positions may be NaN: its summary says only that it broke, above)
        phase_->summarise(s, context);
        if (!phase_broken_) sliding_summary(s, context, phase_->z_blocks());
        s.interrupted = phase_->interrupted();
        s.provenance = provenance(config_, options_, started_);
        s.provenance.finished = utc_now();
        return s;
    }

    // The observers the finished run's outputs read (run/phase/).
    const DisplacementObserver<D>& displacement() const {
        return *phase_->template find<DisplacementObserver<D>>(); // always registered
    }
    // The CSV of a histogram series (output.histogram or output.velocity_histogram with
    // every) with the final velocities `final` as its last snapshot; none without that series.
    std::optional<std::string> histogram_series(HistogramVariable v,
                                                const SpeedSample& final) const {
        const auto* h = phase_->histograms(v);
        return h ? std::optional(h->csv(final)) : std::nullopt;
    }
    // The CSV of output.vacf so far; none without it (or when nothing moved at the start).
    std::optional<std::string> vacf_csv() const {
        const auto* v = phase_->template find<VacfObserver<D>>();
        return v ? v->csv() : std::nullopt;
    }
    // output.profile's CSV; its header alone when nothing moved at the start.
    std::string profile_csv() const { return phase_->template find<ProfileObserver<D>>()->csv(); }

    // What the time-stepped run cost, against the event-driven run beside it.
    SteppingSummary stepping_summary() const {
        const auto& e = *engine_;
        SteppingSummary t;
        t.dt = e.dt();
        t.passes = e.passes();
        t.steps = e.stepping().steps;
        t.passes_run = e.stepping().passes;
        t.unresolved = e.stepping().unresolved;
        t.overlapping_pairs = broken_ ? 0 : e.overlapping_pairs();
        t.max_overlap = e.tally().max_overlap;
        t.energy_error = e.energy_error();
        if (reference_) {
            const Summary r = reference_->summary();
            EdmdComparison c;
            c.sim_time = r.sim_time;
            c.collisions = r.collisions;
            c.wall_collisions = r.wall_collisions;
            c.collision_rate = r.collision_rate;
            c.Z = r.Z;
            c.Z_err = r.Z_err;
            c.wall_seconds = r.wall_seconds;
            c.valid = r.valid;
            c.collapsed = r.collapsed;
            t.edmd = c;
        }
        return t;
    }

    Config config_;
    RunOptions options_;
    std::string started_;
    RunClock clock_;
    std::unique_ptr<EngineT> engine_; // (built in place: Engine need not be movable)
    std::optional<CollapseWatch> watch_;
    CheckpointSchedule checkpoints_;
    std::optional<Phase> phase_;
    Summary base_; // what is known before the measured phase: N, packing, initial energy
    bool has_walls_ = false;
    std::optional<InvariantViolation> violation_;
    bool broken_ = false;       // the violation came from the engine (the state may hold NaN)
    bool phase_broken_ = false; // ... from equilibration or the measured phase's run itself
    bool stepped_ = false;      // advance was called
    std::optional<double> time_asked_;
    std::optional<double> step_asked_;            // what the step under way asks for (advance_run)
    std::unique_ptr<Simulation::Impl> reference_; // run.compare_edmd, beside a stepped run
    double wall_ = 0.0;
    std::optional<std::chrono::steady_clock::time_point> since_;
};

// The run with the integrator the config asks for: event-driven, or time-stepped.
template <int D, class M>
std::unique_ptr<Simulation::Impl> live_run_for(const Config& config, const RunOptions& options,
                                               const std::string& started, M motion,
                                               const Checkpoint* resume, const StageStart* stage) {
    if (config.integrator == Integrator::timestep)
        return std::make_unique<LiveRun<D, M, StepEngine<D, M>>>(config, options, started, motion,
                                                                 resume, stage);
    return std::make_unique<LiveRun<D, M>>(config, options, started, motion, resume, stage);
}

} // namespace live
} // namespace choc
