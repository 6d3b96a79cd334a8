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
#include "choc/run/collapse_watch.hpp"
#include "choc/run/interrupt.hpp"
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

// Events per call into the engine between progress updates and interrupt checks.
constexpr std::uint64_t chunk = 1u << 16;
// Blocks of the measured phase for the block-average standard error of Z.
constexpr int blocks = 20;
// The trajectory may fill at most this fraction of the space free on its file system when
// the run starts: a run never fills a disk that others (and its other outputs) share.
constexpr double trajectory_share = 0.5;
// A frame takes at least this many bytes per particle (name, eight numbers, separators;
// a real 3D line is about 130), for the up-front bound of a time-limited run.
constexpr double least_line_bytes = 32.0;

// The most bytes the trajectory may take: a share of the space free where it goes.
double trajectory_bytes_allowed(const std::string& path) {
    const auto free = free_bytes(path);
    return free ? trajectory_share * static_cast<double>(*free) : never;
}

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

// Samples at start + k * every (k = 0, 1, ...): k * every rather than repeated addition,
// so no drift, and a step below the clock's resolution cannot sample the same time forever.
struct Every {
    double every = never;
    std::uint64_t done = 0;
    double next(double start) const {
        return every == never ? never : start + static_cast<double>(done) * every;
    }
};

// Time to the next snapshot that unwraps positions for the mean-squared displacement and
// averages g(r): a particle must not move half an edge between two of them. An eighth of
// the shortest periodic edge at the fastest current speed leaves a margin of four times
// that speed (enough even for equal starting speeds relaxing to Maxwell–Boltzmann, whose
// tail reaches about 2.6 times the common speed for N ~ 1e4);
// Displacement::largest_step checks it afterwards.
template <int D>
double displacement_interval(const Box<D>& box, const Particles<D>& p) {
    double edge = never, fastest = 0.0;
    for (int a = 0; a < D; ++a)
        if (box.periodic[a]) edge = std::min(edge, box.length[a]);
    for (const auto& s : p.state) fastest = std::max(fastest, norm(s.v));
    return edge == never || fastest == 0.0 ? never : edge / (8.0 * fastest);
}

// The measured phase, stopping at the run's time or collision limit, with `blocks`
// intermediate stops at equal fractions of whichever limit comes first, and snapshots
// for the trajectory, the time series and the displacement/g(r) observers at their own
// times, with progress between chunks.
template <int D, class Motion>
class MeasuredPhase {
  public:
    using EngineT = Engine<D, DefaultCalendar, Motion>;
    MeasuredPhase(EngineT& engine, const Config& config, const RunOptions& options,
                  CollapseWatch& watch, const Particles<D>& initial, const std::string& started)
        : engine_(engine), config_(config), watch_(watch),
          progress_(!options.quiet, options.terminal, config.run_time, config.run_collisions),
          displacement_(engine.box(), initial, engine.time()) {
        start_ = engine.time();
        end_ = config.run_time ? start_ + *config.run_time : never;
        collision_limit_ = config.run_collisions.value_or(~std::uint64_t{0});
        if (config.trajectory) {
            trajectory_.emplace(*config.trajectory, engine.box(), initial,
                                provenance(config, options, started),
                                config.timeseries.has_value());
            frames_.every = config.trajectory->every;
            trajectory_budget_ = trajectory_bytes_allowed(config.trajectory->path);
        }
        std::vector<std::string> names;
        for (const auto& s : engine.particles().table.species) names.push_back(s.name);
        if (config.timeseries) {
            series_.emplace(config.timeseries->path, names);
            rows_.every = config.timeseries->every;
        }
        // Diffusion needs the displacement in 3D with every axis periodic; the time series
        // shows it in any box; g(r) is averaged over the same snapshots.
        const bool bulk = std::all_of(engine.box().periodic.begin(), engine.box().periodic.end(),
                                      [](bool p) { return p; }) &&
                          engine.box().walls.empty() && engine.box().segments.empty();
        if (config.rdf)
            rdf_.emplace(engine.box(),
                         PairCorrelation<D>::range(engine.box(),
                                                   rdf_range * initial.table.largest_diameter()),
                         rdf_bin * initial.table.largest_diameter());
        if ((D == 3 && bulk) || series_ || rdf_) next_unwrap_ = start_;
    }

    // Runs to the end (or an interrupt); returns the blocks.
    std::vector<VirialBlock> run() {
        std::vector<VirialBlock> done;
        double virial0 = 0.0, kinetic0 = 0.0;
        for (int b = 1; b <= blocks && !stopped_; ++b) {
            // by time when the run has a time limit, else by collisions
            const double until = config_.run_time ? start_ + *config_.run_time * b / blocks : end_;
            const std::uint64_t limit =
                config_.run_time ? collision_limit_
                                 : static_cast<std::uint64_t>(std::ceil(
                                       static_cast<double>(collision_limit_) * b / blocks));
            advance(until, limit);
            const auto& t = engine_.tally();
            const double kinetic = engine_.kinetic_integral();
            if (kinetic > kinetic0) done.push_back({t.virial - virial0, kinetic - kinetic0});
            virial0 = t.virial;
            kinetic0 = kinetic;
        }
        progress_.finish();
        if (trajectory_) trajectory_->finish();
        return done;
    }

    // The streamed outputs into place, once everything else of the run is written: the
    // time series first (its commit may still fail and leave nothing), then the frames.
    void publish() {
        if (series_) series_->commit();
        if (trajectory_) trajectory_->publish();
    }

    // The last state: a final displacement sample when the clock moved past the last one.
    void finish(const Particles<D>& final) {
        if (next_unwrap_ != never) displacement_.sample(final, engine_.time());
        if (rdf_ && engine_.tally().collisions > rdf_collisions_) rdf_->sample(final);
        if (displacement_.largest_step() > 0.25)
            spdlog::warn("a particle moved {:.3g} of a box edge between two displacement "
                         "samples: the unwrapped mean-squared displacement may be wrong",
                         displacement_.largest_step());
    }

    double frame_overlap() const { return frame_overlap_; }
    bool interrupted() const { return interrupted_; }
    // The collapse that stopped the run, here or (stop_at_collapse) in equilibration.
    const std::optional<InelasticCollapse>& collapse() const { return collapse_; }
    // A physical outcome: the run stops, and the part run so far is measured and written.
    void stop_at_collapse(const InelasticCollapse& e) {
        collapse_ = e;
        stopped_ = true;
    }
    const Displacement<D>& displacement() const { return displacement_; }
    const std::optional<PairCorrelation<D>>& rdf() const { return rdf_; }

  private:
    using Stop = typename EngineT::Stop;
    // g(r) out to 5 largest diameters (or a third of the shortest edge) in shells of 1/50.
    static constexpr double rdf_range = 5.0, rdf_bin = 0.02;
    // g(r) costs about as much per particle as two pair collisions (every particle within
    // the 3^D cells around each one), so it is sampled at most once per 10 N collisions
    // (20 per particle, ~10 % of the run's time); snapshots that close are correlated
    // anyway.
    static constexpr double rdf_spacing = 10.0;

    double next_sample() const {
        return std::min({frames_.next(start_), rows_.next(start_), next_unwrap_});
    }

    void advance(double until, std::uint64_t limit) {
        while (true) {
            // Checked before any work: a signal during start-up or equilibration stops
            // the run before its first event.
            if (InterruptGuard::requested()) {
                // (a signal before the phase began was reported where it arrived)
                if (begun_)
                    spdlog::warn("interrupted at t = {:.6g} of the measured phase: the summary "
                                 "covers the part run so far",
                                 std::max(0.0, engine_.time() - start_));
                interrupted_ = stopped_ = true;
                return;
            }
            begun_ = true;
            const double target = std::min(until, next_sample());
            const Stop stop = engine_.run(target, limit, chunk);
            if (stop == Stop::time && target == next_sample()) sample();
            if (stop == Stop::time && engine_.time() >= end_) stopped_ = true;
            if (stop == Stop::collisions && engine_.tally().collisions >= collision_limit_)
                stopped_ = true;
            if (stop == Stop::no_events) {
                spdlog::warn("no further events: every particle moves freely forever; stopping");
                stopped_ = true;
            }
            progress_.update(engine_.time() - start_, engine_.tally().collisions);
            try {
                watch_.check(engine_.time(), engine_.tally().events());
            } catch (const InelasticCollapse& e) {
                stop_at_collapse(e);
            }
            if (stopped_ || stop == Stop::collisions ||
                (stop == Stop::time && engine_.time() >= until))
                return;
        }
    }

    // One snapshot at the current time, shared by every observer due now.
    void sample() {
        const double now = engine_.time();
        const auto snapshot = engine_.snapshot(now);
        if (next_unwrap_ == now) {
            displacement_.sample(snapshot, now);
            const auto collisions = engine_.tally().collisions;
            if (rdf_ &&
                (rdf_->samples() == 0 || static_cast<double>(collisions - rdf_collisions_) >=
                                             rdf_spacing * static_cast<double>(snapshot.size()))) {
                rdf_->sample(snapshot);
                rdf_collisions_ = collisions;
            }
            // A step below the clock's resolution would sample this time forever.
            const double next = now + displacement_interval(engine_.box(), snapshot);
            next_unwrap_ = next > now ? next : never;
        }
        if (frames_.next(start_) == now) write_frame(snapshot);
        if (rows_.next(start_) == now) write_row(snapshot);
    }

    // At most max_frames frames and rows, the count config.cpp allows for a run of given
    // time; only a run bounded by collisions alone can ask for more, and stops here.
    void write_frame(Particles<D> frame) {
        if (frames_.done >= max_frames)
            throw InputError("output.trajectory.every: the run would write more than " +
                             std::to_string(max_frames) + " frames");
        // Frames are labelled with the time since the measured phase began, like sim_time.
        const double t = engine_.time() - start_;
        for (auto& p : frame.state) p.t = t;
        trajectory_->write_frame(engine_.box(), frame, t, engine_.tally().collisions);
        const double written = trajectory_->bytes();
        if (written > trajectory_budget_)
            throw InputError(fmt::format(
                "output.trajectory.every: the trajectory reached {:.3g} bytes after {} frames, "
                "half the space that was free on its file system when the run started; use "
                "a larger every, fewer particles or a file system with more space",
                written, frames_.done + 1));
        frame_overlap_ = std::max(frame_overlap_, max_overlap(engine_.box(), frame, t));
        ++frames_.done;
    }

    void write_row(const Particles<D>& snapshot) {
        if (rows_.done >= max_frames)
            throw InputError("output.timeseries.every: the run would write more than " +
                             std::to_string(max_frames) + " rows");
        displacement_.sample(snapshot, engine_.time());
        const auto& t = engine_.tally();
        const auto n = static_cast<double>(snapshot.size());
        TimeSeriesRow row;
        row.time = engine_.time() - start_;
        row.collisions_per_particle = 2.0 * static_cast<double>(t.collisions) / n;
        // kT = 2 KE / (d N), overall and per species, from the engine's running energies.
        const auto& species = snapshot.table.species;
        std::vector<double> count(species.size(), 0.0);
        for (const auto& p : snapshot.state) count[p.species] += 1.0;
        double kinetic = 0.0;
        for (std::size_t k = 0; k < species.size(); ++k) {
            const double k_now = engine_.kinetic(static_cast<std::uint32_t>(k));
            kinetic += k_now;
            row.species_temperature.push_back(count[k] > 0 ? temperature(k_now, count[k], D)
                                                           : std::nan(""));
        }
        row.temperature = temperature(kinetic, n, D);
        row.Z = running_z(t.virial, engine_.kinetic_integral());
        row.velocities = velocity_stats(speed_sample(snapshot));
        row.msd = displacement_.msd();
        series_->write(row);
        if (trajectory_) trajectory_->write_observables(row);
        ++rows_.done;
    }

    EngineT& engine_;
    const Config& config_;
    CollapseWatch& watch_;
    Progress progress_;
    double start_ = 0.0, end_ = never;
    std::uint64_t collision_limit_ = 0;
    std::optional<TrajectoryOutput<D>> trajectory_;
    double trajectory_budget_ = never;
    std::optional<TimeSeries> series_;
    Displacement<D> displacement_;
    std::optional<PairCorrelation<D>> rdf_;
    Every frames_, rows_;
    double next_unwrap_ = never;       // never: no displacement or g(r) snapshots wanted
    std::uint64_t rdf_collisions_ = 0; // collisions at the last g(r) sample
    double frame_overlap_ = 0.0;
    bool stopped_ = false, interrupted_ = false, begun_ = false;
    std::optional<InelasticCollapse> collapse_;
};

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

template <class E>
void equilibrate(E& engine, double duration, CollapseWatch& watch) {
    if (duration <= 0.0 || InterruptGuard::requested()) return;
    spdlog::info("equilibrating for t = {:.6g}", duration);
    const double until = engine.time() + duration;
    while (engine.run(until, ~std::uint64_t{0}, chunk) == E::Stop::budget) {
        watch.check(engine.time(), engine.tally().events());
        if (InterruptGuard::requested()) return;
    }
}

template <int D, class Motion>
Summary run_with(const Config& config, const RunOptions& options, const std::string& summary_path,
                 const std::string& summary_key, const std::string& started, InitialState<D> start,
                 Motion motion) {
    const bool has_walls = !start.box.walls.empty() || !start.box.segments.empty();
    const std::size_t n = start.particles.size();
    Engine<D, DefaultCalendar, Motion> engine(std::move(start.box), std::move(start.particles),
                                              engine_settings(config), motion);

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
    guarded([&] {
        try {
            equilibrate(engine, config.equilibrate, watch);
        } catch (const InelasticCollapse& e) {
            early_collapse = e;
        }
    });
    if (InterruptGuard::requested() && !interrupted_early && config.equilibrate > 0.0)
        spdlog::warn("interrupted during equilibration: the measured phase is empty");
    engine.reset_tally();

    Summary s;
    s.dimension = D;
    s.N = n;
    s.packing_fraction = packing_fraction(engine.box(), engine.particles());
    // Sums over particles in the caller's order, so that a run started from a frame
    // reproduces these bit for bit.
    const auto initial = engine.snapshot(engine.time());
    s.kinetic_energy_initial = kinetic_energy(initial);
    s.momentum_initial = momentum(initial);

    const auto wall_start = std::chrono::steady_clock::now();
    MeasuredPhase<D, Motion> phase(engine, config, options, watch, initial, started);
    if (early_collapse) phase.stop_at_collapse(*early_collapse);
    std::vector<VirialBlock> done;
    if (!violation)
        guarded([&] {
            done = phase.run();
            engine.check_conservation(); // the stretch since the last maintenance step
        });
    s.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

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
    s.max_overlap = std::max({t.max_overlap, phase.frame_overlap(),
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
    s.collapsed = phase.collapse().has_value();
    if (violation) { // none of the measurements can be trusted: only the summary says so
        s.valid = false;
        s.violation = violation->what();
        write_summary(summary_path, s);
        throw *violation;
    }
    // Self-diffusion is a bulk property of 3D: in 2D the velocity autocorrelation decays
    // as 1/t and D does not exist (docs/PHYSICS.md, "Self-diffusion"), and walls confine
    // the walk.
    phase.finish(final);
    if (D == 3 && !has_walls)
        if (auto diffusion = phase.displacement().diffusion()) {
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
    if (config.rdf && phase.rdf()) stage("output.rdf", *config.rdf, phase.rdf()->csv());

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
    s.interrupted = phase.interrupted();
    s.provenance = provenance(config, options, started);
    s.provenance.finished = utc_now();
    stage(summary_key, summary_path, summary_json(s) + "\n");
    phase.publish();
    for (auto& output : staged) output->publish();
    if (s.interrupted) spdlog::warn("summary written for the interrupted run: {}", summary_path);
    // Every output of the part run is in place; the app reports the collapse (exit 3).
    if (phase.collapse()) throw *phase.collapse();
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

// The start, then the engine for its field: straight flights unless there is gravity or
// drag (the field-free engine pays nothing for fields it does not have).
template <int D>
Summary run_in(const Config& config, const RunOptions& options, const std::string& summary_path,
               const std::string& summary_key, const std::string& started) {
    auto start = make_initial_state<D>(config);
    check_trajectory_size(config, start.particles.size());
    Vec<D> g;
    for (int a = 0; a < D; ++a) g[a] = config.gravity.empty() ? 0.0 : config.gravity[a];
    if (norm2(g) == 0.0 && config.drag == 0.0)
        return run_with<D>(config, options, summary_path, summary_key, started, std::move(start),
                           Ballistic<D>{});
    return run_with<D>(config, options, summary_path, summary_key, started, std::move(start),
                       Field<D>(g, config.drag));
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
    remove_stale_temporaries(outputs);

    const std::string started = utc_now();
    return config.dimension == 2 ? run_in<2>(config, options, summary_path, summary_key, started)
                                 : run_in<3>(config, options, summary_path, summary_key, started);
}

} // namespace choc
