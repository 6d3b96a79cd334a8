// One `choc run`: check the outputs can be written, build the start, equilibrate, run the
// measured phase in blocks (for error bars), write frames, and fill the summary.
#include "run.hpp"

#include "choc_version.hpp"
#include "collapse_watch.hpp"
#include "engine.hpp"
#include "engine_settings.hpp"
#include "errors.hpp"
#include "init/ball_volume.hpp"
#include "init/initial_state.hpp"
#include "interrupt.hpp"
#include "io/atomic_file.hpp"
#include "io/xyz.hpp"
#include "overlap.hpp"
#include "progress.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

namespace choc {
namespace {

// Events per call into the engine between progress updates and interrupt checks.
constexpr std::uint64_t chunk = 1u << 16;
// Blocks of the measured phase for the block-average standard error of Z.
constexpr int blocks = 20;
// More frames than this is a mistake in output.trajectory.every, not a wish.
constexpr std::uint64_t most_frames = 1'000'000;

// One block of the measured phase: its collision virial W = sum r.dp and its kinetic
// energy integral K = integral KE dt. Since N kT t = (2/d) K,
//     Z = 1 + W / (d N kT t) = 1 + W / (2 K).
struct Block {
    double virial, kinetic;
};

template <int D>
std::vector<double> momentum(const Particles<D>& p) {
    std::vector<double> m(D, 0.0);
    for (std::uint32_t i = 0; i < p.size(); ++i)
        for (int a = 0; a < D; ++a) m[a] += p.mass(i) * p.state[i].v[a];
    return m;
}

template <int D>
double kinetic_energy(const Particles<D>& p) {
    double k = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) k += 0.5 * p.mass(i) * norm2(p.state[i].v);
    return k;
}

template <int D>
double packing_fraction(const Box<D>& box, const Particles<D>& p) {
    double v = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) v += ball_volume<D>(p.radius(i));
    return v / box.volume();
}

// The measured phase, stopping at the run's time or collision limit, with `blocks`
// intermediate stops at equal fractions of whichever limit comes first, frames at
// multiples of `every`, and progress between chunks.
template <int D>
class MeasuredPhase {
  public:
    MeasuredPhase(Engine<D>& engine, const Config& config, const RunOptions& options,
                  CollapseWatch& watch)
        : engine_(engine), config_(config), watch_(watch),
          progress_(!options.quiet, config.run_time, config.run_collisions) {
        start_ = engine.time();
        end_ = config.run_time ? start_ + *config.run_time : never;
        collision_limit_ = config.run_collisions.value_or(~std::uint64_t{0});
        if (config.trajectory) {
            trajectory_.emplace(config.trajectory->path);
            next_frame_ = start_;
        }
    }

    // Runs to the end (or an interrupt); returns the blocks.
    std::vector<Block> run() {
        std::vector<Block> done;
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
            const double kinetic = t.kinetic_integral(engine_.local(engine_.time()));
            if (kinetic > kinetic0) done.push_back({t.virial - virial0, kinetic - kinetic0});
            virial0 = t.virial;
            kinetic0 = kinetic;
        }
        progress_.finish();
        if (trajectory_) trajectory_->commit();
        return done;
    }

    double frame_overlap() const { return frame_overlap_; }
    bool interrupted() const { return interrupted_; }

  private:
    using Stop = typename Engine<D>::Stop;

    void advance(double until, std::uint64_t limit) {
        while (true) {
            const double target = std::min(until, next_frame_);
            const Stop stop = engine_.run(target, limit, chunk);
            if (stop == Stop::time && target == next_frame_) write_frame();
            if (stop == Stop::time && engine_.time() >= end_) stopped_ = true;
            if (stop == Stop::collisions && engine_.tally().collisions >= collision_limit_)
                stopped_ = true;
            if (stop == Stop::no_events) {
                spdlog::warn("no further events: every particle moves freely forever; stopping");
                stopped_ = true;
            }
            progress_.update(engine_.time() - start_, engine_.tally().collisions);
            watch_.check(engine_.time(), engine_.tally().events());
            if (InterruptGuard::requested()) {
                spdlog::warn("interrupted at t = {:.6g}: the summary covers the part run so far",
                             engine_.time() - start_);
                interrupted_ = stopped_ = true;
            }
            if (stopped_ || stop == Stop::collisions ||
                (stop == Stop::time && engine_.time() >= until))
                return;
        }
    }

    void write_frame() {
        // Frames are labelled with the time since the measured phase began, like sim_time.
        const double t = engine_.time() - start_;
        auto frame = engine_.snapshot(engine_.time());
        for (auto& p : frame.state) p.t = t;
        write_xyz_frame(trajectory_->stream(), engine_.box(), frame, t);
        frame_overlap_ = std::max(frame_overlap_, max_overlap(engine_.box(), frame, t));
        // k * every from the start, not repeated addition: no drift, and a step below the
        // clock's resolution cannot write the same frame forever.
        if (++frames_ >= most_frames)
            throw InputError("output.trajectory.every: the run would write more than " +
                             std::to_string(most_frames) + " frames");
        next_frame_ = start_ + static_cast<double>(frames_) * config_.trajectory->every;
    }

    Engine<D>& engine_;
    const Config& config_;
    CollapseWatch& watch_;
    Progress progress_;
    std::uint64_t frames_ = 0;
    double start_ = 0.0, end_ = never, next_frame_ = never;
    std::uint64_t collision_limit_ = 0;
    std::optional<AtomicOutput> trajectory_;
    double frame_overlap_ = 0.0;
    bool stopped_ = false, interrupted_ = false;
};

template <int D>
void equilibrate(Engine<D>& engine, double duration, CollapseWatch& watch) {
    if (duration <= 0.0) return;
    spdlog::info("equilibrating for t = {:.6g}", duration);
    const double until = engine.time() + duration;
    while (engine.run(until, ~std::uint64_t{0}, chunk) == Engine<D>::Stop::budget) {
        watch.check(engine.time(), engine.tally().events());
        if (InterruptGuard::requested()) return;
    }
}

// Z over the whole measured phase, 1 + W / (2 K) with the totals, and its block-average
// standard error. Z is the K-weighted mean of the block values Z_b = 1 + W_b / (2 K_b),
// with weights w_b = K_b / K (blocks differ in length when they end at collision counts
// or at an interrupt); blocks long against the correlation time are independent, so
//     Z_err^2 = B / (B - 1) * sum_b w_b^2 (Z_b - Z)^2,
// which for equal blocks is the familiar spread / sqrt(B (B - 1)).
void pressure(const std::vector<Block>& done, Summary& summary) {
    double virial = 0.0, kinetic = 0.0;
    for (const auto& b : done) virial += b.virial, kinetic += b.kinetic;
    if (kinetic <= 0.0 || virial <= 0.0) return;
    const double z = 1.0 + virial / (2.0 * kinetic);
    summary.Z = z;
    if (done.size() < 2) return;
    double var = 0.0;
    for (const auto& b : done) {
        const double w = b.kinetic / kinetic;
        const double zb = 1.0 + b.virial / (2.0 * b.kinetic);
        var += w * w * (zb - z) * (zb - z);
    }
    const auto n = static_cast<double>(done.size());
    summary.Z_err = std::sqrt(var * n / (n - 1.0));
}

template <int D>
Summary run_in(const Config& config, const RunOptions& options, const std::string& summary_path) {
    auto start = make_initial_state<D>(config);
    const bool has_walls = !start.box.walls.empty();
    const std::size_t n = start.particles.size();
    Engine<D> engine(std::move(start.box), std::move(start.particles), engine_settings(config));

    if (options.started) options.started();
    InterruptGuard guard;
    CollapseWatch watch(config.restitution < 1.0 ||
                        std::any_of(config.pair_restitution.begin(), config.pair_restitution.end(),
                                    [](const PairRestitution& p) { return p.restitution < 1.0; }) ||
                        std::any_of(engine.box().walls.begin(), engine.box().walls.end(),
                                    [](const Wall<D>& w) { return w.restitution < 1.0; }));
    equilibrate(engine, config.equilibrate, watch);
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
    MeasuredPhase<D> phase(engine, config, options, watch);
    const auto done = phase.run();
    s.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    const Tally& t = engine.tally();
    const double now = engine.local(engine.time());
    s.sim_time = engine.measured_time();
    s.collisions = t.collisions;
    s.wall_collisions = t.wall_collisions;
    s.events = t.events();
    s.collisions_per_second =
        s.wall_seconds > 0 ? static_cast<double>(t.collisions) / s.wall_seconds : 0.0;
    const auto final = engine.snapshot(engine.time());
    s.kinetic_energy_final = kinetic_energy(final);
    s.momentum_final = momentum(final);
    s.max_overlap = std::max(
        {t.max_overlap, phase.frame_overlap(), max_overlap(engine.box(), final, engine.time())});

    // Temperatures: kT = 2 KE / (d N), time-averaged; at sim_time 0 the instantaneous one.
    const auto& species = engine.particles().table.species;
    std::vector<std::uint64_t> counts(species.size(), 0);
    for (const auto& p : engine.particles().state) ++counts[p.species];
    double kinetic_total = 0.0;
    for (std::uint32_t k = 0; k < species.size(); ++k) {
        const double mean_kinetic =
            s.sim_time > 0 ? t.kinetic_integral(k, now) / s.sim_time : t.kinetic[k];
        kinetic_total += mean_kinetic;
        s.species.push_back(
            {species[k].name, counts[k],
             counts[k] ? std::optional(2.0 * mean_kinetic / (D * counts[k])) : std::nullopt});
    }
    s.temperature = 2.0 * kinetic_total / (D * static_cast<double>(n));

    if (s.sim_time > 0 && t.collisions > 0) {
        s.collision_rate =
            2.0 * static_cast<double>(t.collisions) / (static_cast<double>(n) * s.sim_time);
        s.mean_free_time = 1.0 / *s.collision_rate;
    }
    // The collision virial gives the bulk pressure of a periodic fluid; walls would add
    // their own momentum flux, which this version does not measure.
    if (!has_walls) pressure(done, s);

    spdlog::info("events: {} pair collisions, {} wall collisions, {} cell crossings, {} stale "
                 "predictions renewed",
                 t.collisions, t.wall_collisions, t.crossings, t.stale);
    if (config.epsilon > 0.0)
        spdlog::info("simultaneous groups of two or more contacts: {}", t.groups);
    if (t.singular_groups > 0 || t.fallback_groups > 0)
        spdlog::warn("{} simultaneous groups had rank-deficient contact geometry; {} of them were "
                     "resolved by the sequential plastic fallback (see README, \"Simultaneous "
                     "collisions\")",
                     t.singular_groups, t.fallback_groups);
    s.interrupted = phase.interrupted();
    write_summary(summary_path, s);
    if (s.interrupted) spdlog::warn("summary written for the interrupted run: {}", summary_path);
    return s;
}

} // namespace

Summary run_simulation(const Config& config, const RunOptions& options) {
    // Every output path is checked before anything is created: bad input leaves no files.
    const bool summary_from_cli = options.summary_path.has_value();
    const std::string summary_path = options.summary_path.value_or(config.summary);
    check_writable(summary_path, summary_from_cli ? "--summary" : "output.summary");
    if (config.trajectory) {
        check_writable(config.trajectory->path, "output.trajectory.path");
        namespace fs = std::filesystem;
        if (fs::path(config.trajectory->path).lexically_normal() ==
            fs::path(summary_path).lexically_normal())
            throw InputError(std::string(summary_from_cli ? "--summary" : "output.summary") + ": " +
                             summary_path + " is also output.trajectory.path");
    }

    return config.dimension == 2 ? run_in<2>(config, options, summary_path)
                                 : run_in<3>(config, options, summary_path);
}

} // namespace choc
