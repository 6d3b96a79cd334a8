// The measured phase of a run: the engine runs to the run's time or collision limit,
// stopping at the edges of Z's blocks (a doubling grid, see run()), for the trajectory, the
// time series, the displacement and g(r) snapshots, the histogram series and the
// checkpoints at their own times, with progress, interrupt checks and the collapse watch
// between chunks of events.
//
// It runs to the run's limits (choc run) or, in steps, to any limits a caller sets
// (run_to: the Python module's Simulation.run); a step's end is one more stop.
//
// A checkpoint holds the phase as it stands (save/restore): the block under way, every
// observer's accumulators, where the streamed outputs are. A continuation re-enters the
// same block and goes on as the uninterrupted run would: stops for samples and
// checkpoints change nothing in the engine's arithmetic, and the watch looks at the same
// events (chunk_budget), so the two runs are the same to the bit.
#pragma once

#include "choc/errors.hpp"
#include "choc/init/ball_volume.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/io/output_paths.hpp"
#include "choc/io/trajectory.hpp"
#include "choc/io/xyz.hpp"
#include "choc/kernel/archive.hpp"
#include "choc/kernel/engine.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/overlap.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/observers/axial_profile.hpp"
#include "choc/observers/block_edges.hpp"
#include "choc/observers/crossing_count.hpp"
#include "choc/observers/diffusion_windows.hpp"
#include "choc/observers/displacement.hpp"
#include "choc/observers/enskog.hpp"
#include "choc/observers/histogram_series.hpp"
#include "choc/observers/pair_correlation.hpp"
#include "choc/observers/pressure.hpp"
#include "choc/observers/time_series.hpp"
#include "choc/observers/transport_windows.hpp"
#include "choc/observers/velocity_autocorrelation.hpp"
#include "choc/observers/velocity_distribution.hpp"
#include "choc/run/checkpoint_schedule.hpp"
#include "choc/run/collapse_watch.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/run/progress.hpp"
#include "choc/run/provenance.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace choc {

// Events per call into the engine between progress updates and interrupt checks.
// Each call's budget ends on a multiple of it (chunk_budget): the collapse watch then looks
// at the same events whatever other stops (samples, checkpoints) the run makes.
inline constexpr std::uint64_t chunk = 1u << 16;
// Blocks of the measured phase for the block-average standard error of Z: between this
// many and twice as many (MeasuredPhase::close_block).
inline constexpr int blocks = 20;
// The first block's length in a time-limited run (a power of two, so that every edge
// start + j width is exact); the widths double from there.
inline constexpr double first_block_time = 0x1p-20;
// The trajectory may fill at most this fraction of the space free on its file system when
// the run starts: a run never fills a disk that others (and its other outputs) share.
inline constexpr double trajectory_share = 0.5;
// A frame takes at least this many bytes per particle (name, eight numbers, separators;
// a real 3D line is about 130), for the up-front bound of a time-limited run.
inline constexpr double least_line_bytes = 32.0;

// The most bytes the trajectory may take, and the key that sets it: its own limit
// (output.trajectory.max_bytes), or a share of the space free where it goes if less
// (output.trajectory.every names that one: fewer frames is the way to fit).
struct TrajectoryBudget {
    double bytes = never;
    bool by_free_space = false;
    const char* key() const {
        return by_free_space ? "output.trajectory.every" : "output.trajectory.max_bytes";
    }
};
inline TrajectoryBudget trajectory_budget(const PeriodicOutput& trajectory) {
    const auto free = free_bytes(trajectory.path);
    const double share = free ? trajectory_share * static_cast<double>(*free) : never;
    return share < trajectory.max_bytes ? TrajectoryBudget{share, true}
                                        : TrajectoryBudget{trajectory.max_bytes, false};
}
// Why a trajectory of `bytes` does not fit `budget`.
inline std::string over_budget(const TrajectoryBudget& budget) {
    return budget.by_free_space
               ? fmt::format("half the {:.3g} bytes free on the trajectory's file system when the "
                             "run started; use a larger every or a file system with more space",
                             budget.bytes / trajectory_share)
               : fmt::format("max_bytes = {:.3g}; raise it, or use a larger every", budget.bytes);
}

// The events to the next multiple of `chunk` processed by the engine.
template <class E>
std::uint64_t chunk_budget(const E& engine) {
    return chunk - engine.processed() % chunk;
}

// Where the streamed outputs of a checkpointed run stood at its checkpoint: a
// continuation appends to the same file, cut back to the mark (atomic_file.hpp, InPlace);
// a file at another path starts afresh.
struct StreamMark {
    std::string path;
    OutputMark mark;
};
struct Streams {
    bool in_place = false;                        // output.checkpoint is on
    std::optional<StreamMark> trajectory, series; // a continuation's marks
};

inline void save_mark(ArchiveWriter& out, const std::optional<StreamMark>& m) {
    out.put(m.has_value());
    if (!m) return;
    out.put(m->path);
    out.put(m->mark);
}
inline std::optional<StreamMark> restore_mark(ArchiveReader& in) {
    if (!in.get<bool>()) return std::nullopt;
    StreamMark m;
    in.get(m.path);
    in.get(m.mark);
    return m;
}

// How a streamed output at `path` is opened: atomically (no checkpoints), in place from
// scratch, or in place resumed at its mark.
inline std::optional<InPlace>
placement(const Streams& streams, const std::optional<StreamMark>& mark, const std::string& path) {
    if (!streams.in_place) return std::nullopt;
    InPlace p;
    if (mark && mark->path == path) p.resume = mark->mark;
    return p;
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
double displacement_interval(const Box<D>& box, double fastest) {
    double edge = never;
    for (int a = 0; a < D; ++a)
        if (box.periodic[a]) edge = std::min(edge, box.length[a]);
    return edge == never || fastest == 0.0 ? never : edge / (8.0 * fastest);
}

// The engine's particles at time t as Displacement reads them: visit(f) calls f(id, x, s)
// for each, from the engine's own states (no copy).
template <class EngineT>
auto positions_at(const EngineT& engine, double t) {
    return [&engine, t](auto&& f) {
        engine.visit(t, [&](std::uint32_t id, const auto& p) { f(id, p.x, p.species); });
    };
}

// The step of the transport windows (D, viscosity, heat conduction): half the time to
// cross the largest diameter, or a dilute gas's mean free path 1 / (sqrt 2 pi n sigma^2) if
// longer, at the rms speed. Each sample of D reads every particle, so samples much closer
// than the mean free time would cost more than the collisions between them in a dilute gas.
// It is also kept below an eighth of the shortest edge at the fastest speed, as the
// displacement's interval is, so that unwrapping with the nearest image holds. Infinite when
// nothing moves.
template <int D, class EngineT>
double window_step(const EngineT& engine) {
    double v2 = 0.0, fastest = 0.0;
    engine.visit(engine.time(), [&](std::uint32_t, const auto& p) {
        v2 += norm2(p.v);
        fastest = std::max(fastest, norm(p.v));
    });
    const auto n = engine.particles().size();
    if (n == 0 || v2 == 0.0) return never;
    v2 /= static_cast<double>(n);
    double volume = 1.0;
    for (int a = 0; a < D; ++a) volume *= engine.box().length[a];
    const double sigma = engine.particles().table.largest_diameter();
    const double free_path =
        volume / (std::sqrt(2.0) * std::numbers::pi * static_cast<double>(n) * sigma * sigma);
    return std::min(std::max(sigma, free_path) / (2.0 * std::sqrt(v2)),
                    displacement_interval(engine.box(), fastest));
}

// The step of the velocity autocorrelation: a quarter of Enskog's mean free time of a
// one-size fluid of the largest diameter at the box's density and the particles' mean
// v^2 / d (a rough guess for a mixture or far from equilibrium; it sets only the resolution),
// 1 / (4 Gamma) with Gamma = 4 n sigma^2 g sqrt(pi kT / m) in 3D, 2 n sigma g sqrt(pi kT / m)
// in 2D. Infinite when nothing moves.
template <int D, class EngineT>
double vacf_step(const EngineT& engine) {
    double v2 = 0.0, volume = 1.0, occupied = 0.0;
    engine.visit(engine.time(), [&](std::uint32_t, const auto& p) { v2 += norm2(p.v); });
    const auto& table = engine.particles().table;
    for (const auto& p : engine.particles().state)
        occupied +=
            D == 3 ? std::numbers::pi / 6.0 * std::pow(2.0 * table.species[p.species].radius, 3)
                   : std::numbers::pi / 4.0 * std::pow(2.0 * table.species[p.species].radius, 2);
    const auto n = static_cast<double>(engine.particles().size());
    if (n == 0.0 || v2 == 0.0) return never;
    for (int a = 0; a < D; ++a) volume *= engine.box().length[a];
    const double sigma = table.largest_diameter(), density = n / volume;
    const double g = enskog::contact_value(D, std::min(occupied / volume, 0.6));
    const double speed = std::sqrt(std::numbers::pi * v2 / (n * D)); // sqrt(pi kT / m)
    const double rate =
        D == 3 ? 4.0 * density * sigma * sigma * g * speed : 2.0 * density * sigma * g * speed;
    return 1.0 / (4.0 * rate);
}

// The measured phase (see the top of this file), of the event-driven engine (engine.hpp)
// or of the time-stepped one (step_engine.hpp).
template <int D, class EngineT>
class MeasuredPhase {
  public:
    // The phase starts from the engine's particles now (a continuation's restore() then
    // puts back what was measured).
    MeasuredPhase(EngineT& engine, const Config& config, const RunOptions& options,
                  CollapseWatch& watch, const Provenance& origin, CheckpointSchedule& checkpoints,
                  const Streams& streams, double label)
        : engine_(engine), config_(config), watch_(watch), checkpoints_(checkpoints), label_(label),
          progress_(!options.quiet, options.terminal, config.run_time, config.run_collisions),
          displacement_(engine.box(),
                        wants_displacement(engine.box(), config) ? engine.particles().size() : 0,
                        engine.particles().table.size(), positions_at(engine, engine.time()),
                        engine.time()) {
        // Without files (RunOptions::files) the samples are taken all the same, at the same
        // times: frames for their overlap check, rows kept in memory (rows()).
        start_ = engine.time();
        end_ = config.run_time ? start_ + *config.run_time : never;
        collision_limit_ = config.run_collisions.value_or(~std::uint64_t{0});
        block_width_ = config.run_time ? first_block_time : 1.0;
        if (config.trajectory) frames_.every = config.trajectory->every;
        if (config.trajectory && options.files) {
            trajectory_.emplace(*config.trajectory, engine.box(), engine.snapshot(engine.time()),
                                origin, config.timeseries.has_value(),
                                placement(streams, streams.trajectory, config.trajectory->path));
            frame_keys_ = xyz_provenance(origin);
            trajectory_budget_ = trajectory_budget(*config.trajectory);
        }
        std::vector<std::string> names;
        for (const auto& s : engine.particles().table.species) names.push_back(s.name);
        if (config.timeseries) {
            if (options.files)
                series_.emplace(config.timeseries->path, names, config.crossing.has_value(),
                                timeseries_header(origin),
                                placement(streams, streams.series, config.timeseries->path));
            rows_.every = config.timeseries->every;
        }
        if (config.crossing) {
            Vec<D> point, normal;
            for (int a = 0; a < D; ++a)
                point[a] = config.crossing->point[static_cast<std::size_t>(a)],
                normal[a] = config.crossing->normal[static_cast<std::size_t>(a)];
            crossing_.emplace(point, normal);
            crossing_->start(in_front());
        }
        if (config.rdf)
            rdf_.emplace(engine.box(),
                         PairCorrelation<D>::range(
                             engine.box(), rdf_range * engine.particles().table.largest_diameter()),
                         rdf_bin * engine.particles().table.largest_diameter());
        // g(r) is averaged over the displacement's sampling times.
        if (wants_displacement(engine.box(), config) || rdf_) next_unwrap_ = start_;
        // D, viscosity and heat conduction from many time origins, sampled on one clock.
        const double step = window_step<D>(engine);
        if (std::isfinite(step) && start_ + step > start_) {
            if (bulk(engine.box()))
                windows_ =
                    DiffusionWindows<D>::from_visit(engine.box(), engine.particles().size(), step,
                                                    start_, positions_at(engine, start_));
            if constexpr (keeps_fluxes)
                if (engine.flux_moments() && !engine.box().sheared()) {
                    double mass = 0.0;
                    Vec<D> momentum{};
                    engine.visit(engine.time(), [&](std::uint32_t, const auto& p) {
                        const double m = engine.particles().table.species[p.species].mass;
                        mass += m;
                        momentum += p.v * m;
                    });
                    transport_.emplace(step, start_, mass, momentum * (1.0 / mass));
                }
        }
        if (config.vacf) {
            const double vacf_every = vacf_step<D>(engine);
            if (std::isfinite(vacf_every) && start_ + vacf_every > start_)
                vacf_.emplace(engine.particles().size(), vacf_every, start_);
        }
        // Slab profiles for output.profile, and for the heat and momentum between thermal
        // walls.
        if ((config.profile || thermal_walls(engine.box())) && std::isfinite(step) &&
            start_ + step > start_)
            profile_.emplace(new_profile(engine.box(), config, step));
        // Histogram series are kept in memory and written whole at the end (with files or
        // not: their snapshots are stops like any other sample's).
        for (auto v : {HistogramVariable::speed, HistogramVariable::vx}) {
            const auto& output =
                v == HistogramVariable::speed ? config.histogram : config.velocity_histogram;
            if (!output || !output->every) continue;
            histograms_[index(v)].emplace(v, names);
            snapshots_[index(v)].every = *output->every;
        }
    }

    // The run's state for a checkpoint, written when one is due (CheckpointSchedule).
    void checkpoint_state(CheckpointSchedule::State state) { state_ = std::move(state); }

    // Runs to the run's limits (or an interrupt, a collapse, the end of all events) and
    // ends the phase (end()); returns Z's blocks.
    std::vector<VirialBlock> run() {
        run_to(end_, collision_limit_);
        end();
        return z_blocks();
    }

    // Runs until absolute time `until` and `limit` collisions of the phase (the run's own
    // limits: end(), collision_limit()), or until an interrupt, a collapse or the end of all
    // events. Another call goes on from there as if there had been no stop.
    //
    // Z's blocks have edges at start + j w (a time-limited run) or at j w collisions (a
    // run limited by collisions alone), the width w doubling from a fixed first width each
    // time 2 * blocks blocks are closed (every other edge is dropped). The edges depend on
    // how far the run has come, not on how long it is meant to be: a run extended by a
    // continuation, or by another run_to, has the blocks of one that was as long from the
    // start.
    void run_to(double until, std::uint64_t limit) {
        reached_ = interrupted_ = false;
        while (!stopped_ && !reached_ && !interrupted_) {
            const double edge = static_cast<double>(edges_.size()) * block_width_;
            double block_until = until;
            std::uint64_t block_limit = limit;
            if (config_.run_time)
                block_until = std::min(until, start_ + edge);
            else
                block_limit = std::min(limit, static_cast<std::uint64_t>(edge));
            advance(block_until, block_limit, until, limit);
            const bool at_edge = config_.run_time
                                     ? engine_.time() >= start_ + edge
                                     : static_cast<double>(engine_.tally().collisions) >= edge;
            if (at_edge) close_block();
        }
    }

    // The phase's end: the progress line's last word, the trajectory's last flush.
    void end() {
        progress_.finish();
        if (trajectory_) trajectory_->finish();
    }

    // Z's blocks so far, the part since the last edge included as a block of its own
    // (nothing if the phase stands on an edge); the phase's own edges stay as they are,
    // so that it can go on.
    std::vector<VirialBlock> z_blocks() const {
        auto edges = edges_;
        const auto& last = edges.back();
        if (engine_.tally().virial != last.virial || engine_.kinetic_integral() != last.kinetic)
            close_block(edges);
        std::vector<VirialBlock> done;
        for (std::size_t k = 1; k < edges.size(); ++k)
            if (edges[k].kinetic > edges[k - 1].kinetic)
                done.push_back(
                    {edges[k].virial - edges[k - 1].virial, edges[k].kinetic - edges[k - 1].kinetic,
                     edges[k].shear - edges[k - 1].shear, edges[k].drift - edges[k - 1].drift,
                     edges[k].time - edges[k - 1].time});
        return done;
    }

    // The phase's start and the run's own limits (absolute time, collisions).
    double start() const { return start_; }
    double end_time() const { return end_; }
    std::uint64_t collision_limit() const { return collision_limit_; }
    // The clock of frames and rows at the phase's start.
    double label() const { return label_; }
    // The last run_to reached its limits (not stopped by an interrupt, a collapse or the
    // end of events).
    bool reached() const { return reached_; }

    // What the phase has measured and written so far, for a checkpoint: first where the
    // streamed outputs stand (read back before the phase is built, restore_streams), then
    // the rest (restore).
    void save(ArchiveWriter& out) {
        save_mark(out, trajectory_ && trajectory_->in_place()
                           ? std::optional<StreamMark>({trajectory_->path(), trajectory_->mark()})
                           : std::nullopt);
        save_mark(out, series_ && series_->in_place()
                           ? std::optional<StreamMark>({series_->path(), series_->mark()})
                           : std::nullopt);
        out.put(start_);
        out.put(edges_);
        out.put(block_width_);
        out.put(frames_.done);
        out.put(rows_.done);
        out.put(next_unwrap_);
        out.put(rdf_collisions_);
        out.put(frame_overlap_);
        if (crossing_) crossing_->save(out);
        displacement_.save(out);
        out.put(windows_.has_value());
        if (windows_) windows_->save(out);
        out.put(transport_.has_value());
        if (transport_) transport_->save(out);
        out.put(vacf_.has_value());
        if (vacf_) vacf_->save(out);
        out.put(profile_.has_value());
        if (profile_) profile_->save(out);
        out.put(rdf_.has_value());
        if (rdf_) rdf_->save(out);
        for (std::size_t k = 0; k < 2; ++k) {
            out.put(histograms_[k].has_value());
            if (!histograms_[k]) continue;
            out.put(snapshots_[k].done);
            histograms_[k]->save(out);
        }
    }
    static Streams restore_streams(ArchiveReader& in) {
        Streams s;
        s.in_place = true;
        s.trajectory = restore_mark(in);
        s.series = restore_mark(in);
        return s;
    }
    void restore(ArchiveReader& in) {
        in.get(start_);
        end_ = config_.run_time ? start_ + *config_.run_time : never;
        in.get(edges_);
        in.get(block_width_);
        in.get(frames_.done);
        in.get(rows_.done);
        in.get(next_unwrap_);
        in.get(rdf_collisions_);
        in.get(frame_overlap_);
        if (crossing_) crossing_->restore(in);
        displacement_.restore(in);
        // The windows exist when the saved phase began with particles moving, which the
        // state now restored need not tell: follow the saved state.
        if (!in.get<bool>()) {
            windows_.reset();
        } else {
            if (!windows_ && bulk(engine_.box()))
                windows_ =
                    DiffusionWindows<D>::from_visit(engine_.box(), engine_.particles().size(), 1.0,
                                                    start_, positions_at(engine_, engine_.time()));
            if (!windows_) throw ArchiveError("the state's diffusion windows do not match the run");
            windows_->restore(in); // (its step, origin and positions replace these)
        }
        if (!in.get<bool>()) {
            transport_.reset();
        } else {
            if (!transport_) transport_.emplace();
            transport_->restore(in);
        }
        // (like the windows, the autocorrelation exists when the saved phase's particles moved)
        if (!in.get<bool>()) {
            vacf_.reset();
        } else {
            if (!config_.vacf)
                throw ArchiveError("the state's autocorrelation does not match the config");
            if (!vacf_) vacf_.emplace(engine_.particles().size(), 1.0, start_);
            vacf_->restore(in); // (its step and origin replace these)
        }
        if (!in.get<bool>()) {
            profile_.reset();
        } else {
            if (!config_.profile && !thermal_walls(engine_.box()))
                throw ArchiveError("the state's profile does not match the config");
            if (!profile_) profile_.emplace(new_profile(engine_.box(), config_, 1.0));
            profile_->restore(in); // (its step and origin replace these)
        }
        if (in.get<bool>() != rdf_.has_value())
            throw ArchiveError("the state's g(r) does not match the config");
        if (rdf_) rdf_->restore(in);
        for (std::size_t k = 0; k < 2; ++k) {
            if (in.get<bool>() != histograms_[k].has_value())
                throw ArchiveError("the state's histogram series do not match the config");
            if (!histograms_[k]) continue;
            in.get(snapshots_[k].done);
            histograms_[k]->restore(in);
        }
        if (edges_.empty() || edges_.size() > 2 * blocks || !(block_width_ > 0.0))
            throw ArchiveError("the state's blocks are damaged");
    }

    // The streamed outputs into place, once everything else of the run is written: the
    // time series first (its commit may still fail and leave nothing), then the frames.
    void publish(const std::string& finished) {
        if (series_) series_->commit(timeseries_footer(finished));
        if (trajectory_) trajectory_->publish();
    }

    // The displacement and g(r) with the last state sampled too (when the clock moved past
    // their last sample): copies, so that the phase can go on with its own samples.
    struct Final {
        DisplacementSamples displacement;
        std::vector<typename DiffusionWindows<D>::Lag> windows; // D at each lag so far
        std::optional<PairCorrelation<D>> rdf;
    };
    Final finished(const Particles<D>& final) const {
        Final f{next_unwrap_ != never ? displacement_.with_sample(final, engine_.time())
                                      : displacement_.samples(),
                windows_ ? windows_->lags() : std::vector<typename DiffusionWindows<D>::Lag>{},
                rdf_};
        if (f.rdf && engine_.tally().collisions > rdf_collisions_) f.rdf->sample(final);
        if (f.displacement.largest_step() > 0.25)
            spdlog::warn("a particle moved {:.3g} of a box edge between two displacement "
                         "samples: the unwrapped mean-squared displacement may be wrong",
                         f.displacement.largest_step());
        // (particles sped up after the step was set, in a field say): no lags at all
        if (windows_ && windows_->largest_step() > 0.25) {
            spdlog::warn("a particle moved {:.3g} of a box edge between two diffusion-window "
                         "samples: diffusion.lags and diffusion.windows are left out",
                         windows_->largest_step());
            f.windows.clear();
        }
        return f;
    }

    // The CSV of a histogram series (output.histogram or output.velocity_histogram with
    // every) with the final state `final` as its last snapshot, unless a snapshot was taken
    // at this very time; none without that series.
    std::optional<std::string> histogram_series(HistogramVariable v,
                                                const SpeedSample& final) const {
        const auto& series = histograms_[index(v)];
        if (!series) return std::nullopt;
        const double now = label_ + (engine_.time() - start_);
        if (series->snapshots() > 0 && series->last_time() == now) return series->csv();
        auto with_final = *series;
        with_final.add(now, final);
        return with_final.csv();
    }

    // Viscosity, heat conduction and the pressure tensor so far: absent unless the engine
    // keeps the flux integrals and the particles moved at the start.
    const std::optional<TransportWindows<D>>& transport() const { return transport_; }
    // The CSV of output.vacf so far; none without it (or when nothing moved at the start).
    std::optional<std::string> vacf_csv() const {
        return vacf_ ? std::optional(vacf_->csv()) : std::nullopt;
    }

    // The slab profiles (output.profile, thermal walls) so far; absent without them or when
    // nothing moved at the start.
    const std::optional<AxialProfile<D>>& profile() const { return profile_; }

    // The axis of the profile: output.profile.axis, else the axis of the first thermal wall
    // whose normal lies along one, else the first walled axis, else x.
    static int profile_axis(const Box<D>& box, const Config& config) {
        if (config.profile && config.profile->axis) return *config.profile->axis;
        for (const auto& w : box.walls)
            if (w.thermal())
                for (int a = 0; a < D; ++a)
                    if (std::abs(w.normal[a]) == 1.0) return a;
        for (int a = 0; a < D; ++a)
            if (!box.periodic[a]) return a;
        return 0;
    }
    static bool thermal_walls(const Box<D>& box) {
        return std::any_of(box.walls.begin(), box.walls.end(),
                           [](const Wall<D>& w) { return w.thermal(); });
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
    // The time series rows of a run without files (RunOptions::files), in memory.
    const std::vector<TimeSeriesRow>& rows() const { return kept_rows_; }
    // output.crossing: the net crossings of its plane since the phase began, now.
    std::optional<std::int64_t> crossing() const {
        if (!crossing_) return std::nullopt;
        return crossed();
    }

  private:
    using Stop = typename EngineT::Stop;
    // The event-driven engine keeps the flux integrals of a bulk fluid; the time-stepped
    // one does not.
    static constexpr bool keeps_fluxes = requires(const EngineT& e) { e.flux_moments(); };

    // Diffusion needs the displacement in 3D with every axis periodic; the time series
    // shows it in any box. Other runs keep no record (its 2 positions per particle).
    static bool wants_displacement(const Box<D>& box, const Config& config) {
        return wants_diffusion(box) || config.timeseries.has_value();
    }
    // D from one origin is measured in 3D bulk boxes; D from windows in 2D too, as lags.
    static bool wants_diffusion(const Box<D>& box) { return D == 3 && bulk(box); }
    // Periodic on every axis, without walls, segments or triangles, at rest (not sheared).
    static bool bulk(const Box<D>& box) {
        return std::all_of(box.periodic.begin(), box.periodic.end(), [](bool p) { return p; }) &&
               !box.has_obstacles() && !box.sheared();
    }
    // g(r) out to 5 largest diameters (or a third of the shortest edge) in shells of 1/50.
    static constexpr double rdf_range = 5.0, rdf_bin = 0.02;
    // g(r) costs about as much per particle as two pair collisions (every particle within
    // the 3^D cells around each one), so it is sampled at most once per 10 N collisions
    // (20 per particle, ~10 % of the run's time); snapshots that close are correlated
    // anyway.
    static constexpr double rdf_spacing = 10.0;

    // An edge now; at 2 * blocks blocks, every other edge goes and the width doubles.
    void close_block() {
        if (close_block(edges_)) block_width_ *= 2.0;
    }
    // The edge now added to `edges`; true when that thinned them.
    bool close_block(std::vector<VirialBlock>& edges) const {
        double shear = 0.0, drift = 0.0;
        if constexpr (keeps_fluxes)
            if (const auto m = engine_.shear_moment())
                shear = *m, drift = *engine_.drift_integral();
        return add_block_edge(edges,
                              VirialBlock{engine_.tally().virial, engine_.kinetic_integral(), shear,
                                          drift, engine_.time() - start_},
                              blocks);
    }

    AxialProfile<D> new_profile(const Box<D>& box, const Config& config, double step) const {
        const int axis = profile_axis(box, config);
        double area = 1.0;
        for (int a = 0; a < D; ++a)
            if (a != axis) area *= box.length[a];
        return AxialProfile<D>(axis, box.length[axis], area,
                               config.profile ? config.profile->slabs : default_slabs,
                               wall_scalars(), step, start_);
    }
    // The walls' heat, then their momentum (three per wall), given the gas so far.
    std::vector<double> wall_scalars() const {
        std::vector<double> s = engine_.tally().wall_heat;
        const auto& m = engine_.tally().wall_momentum;
        s.insert(s.end(), m.begin(), m.end());
        return s;
    }
    static constexpr std::size_t default_slabs = 20;

    double next_sample() const {
        return std::min(
            {frames_.next(start_), rows_.next(start_), next_unwrap_,
             profile_ ? profile_->next_time() : never, windows_ ? windows_->next_time() : never,
             transport_ ? transport_->next_time() : never, vacf_ ? vacf_->next_time() : never,
             snapshots_[0].next(start_), snapshots_[1].next(start_), checkpoints_.next()});
    }

    // To the block's limits (until, limit), within the step's (step_until, step_limit).
    void advance(double until, std::uint64_t limit, double step_until, std::uint64_t step_limit) {
        while (true) {
            // Checked before any work: a signal during start-up or equilibration stops
            // the run before its first event.
            if (InterruptGuard::requested()) {
                // (a signal before the phase began was reported where it arrived)
                if (begun_)
                    spdlog::warn("interrupted at t = {:.6g} of the measured phase: the summary "
                                 "covers the part run so far",
                                 std::max(0.0, engine_.time() - start_));
                checkpoints_.interrupted(state_);
                interrupted_ = true;
                return;
            }
            begun_ = true;
            const double target = std::min(until, next_sample());
            Stop stop;
            try {
                stop = engine_.run(target, limit, chunk_budget(engine_));
            } catch (const InelasticCollapse& e) { // a stall the rest model could not end
                stop_at_collapse(e);
                return;
            }
            if (stop == Stop::time && target == next_sample()) sample();
            // The step's limits (the run's own in `choc run`): a checkpoint that a
            // continuation with larger limits extends (written before the last block
            // closes, which the continuation reopens).
            if ((stop == Stop::time && engine_.time() >= step_until) ||
                (stop == Stop::collisions && engine_.tally().collisions >= step_limit)) {
                reached_ = true;
                checkpoints_.write(state_);
            }
            if (stop == Stop::no_events) {
                spdlog::warn("no further events: every particle moves freely forever or is at "
                             "rest; stopping");
                stopped_ = true;
            }
            progress_.update(engine_.time() - start_, engine_.tally().collisions);
            try {
                // on the grid of processed events only (chunk_budget)
                if (stop == Stop::budget)
                    watch_.check(engine_.time(), engine_.tally().events(),
                                 short_flights_of(engine_));
            } catch (const InelasticCollapse& e) {
                stop_at_collapse(e);
            }
            if (stopped_ || reached_ || stop == Stop::collisions ||
                (stop == Stop::time && engine_.time() >= until))
                return;
        }
    }

    // The observers due now. The displacement reads the engine's particles where they
    // are; the others share one snapshot, copied only when one of them is due (a copy is
    // 64 bytes per particle in 3D: the largest memory a plain run would add to the engine's).
    void sample() {
        const double now = engine_.time();
        std::optional<Particles<D>> copy;
        const auto snapshot = [&]() -> const Particles<D>& {
            if (!copy) copy = engine_.snapshot(now);
            return *copy;
        };
        if (windows_ && windows_->next_time() == now)
            windows_->sample_visit(positions_at(engine_, now));
        if (vacf_ && vacf_->next_time() == now)
            vacf_->sample_visit([&](auto&& f) {
                engine_.visit(now, [&](std::uint32_t id, const auto& p) { f(id, p.v); });
            });
        if (profile_ && profile_->next_time() == now) {
            const auto& species = engine_.particles().table.species;
            profile_->sample(
                [&](auto&& f) {
                    engine_.visit(now, [&](std::uint32_t, const auto& p) {
                        const auto& s = species[p.species];
                        f(p.x, p.v, s.mass, ball_volume<D>(s.radius));
                    });
                },
                wall_scalars());
        }
        if constexpr (keeps_fluxes)
            if (transport_ && transport_->next_time() == now)
                transport_->sample(*engine_.flux_moments(), engine_.kinetic_integral());
        if (next_unwrap_ == now) {
            displacement_.sample(positions_at(engine_, now), now);
            double fastest = 0.0;
            engine_.visit(
                now, [&](std::uint32_t, const auto& p) { fastest = std::max(fastest, norm(p.v)); });
            const auto collisions = engine_.tally().collisions;
            if (rdf_ && (rdf_->samples() == 0 ||
                         static_cast<double>(collisions - rdf_collisions_) >=
                             rdf_spacing * static_cast<double>(engine_.particles().size()))) {
                rdf_->sample(snapshot());
                rdf_collisions_ = collisions;
            }
            // A step below the clock's resolution would sample this time forever.
            const double next = now + displacement_interval(engine_.box(), fastest);
            next_unwrap_ = next > now ? next : never;
        }
        if (frames_.next(start_) == now) write_frame(snapshot());
        if (rows_.next(start_) == now) write_row(snapshot());
        if (snapshots_[0].next(start_) == now || snapshots_[1].next(start_) == now) {
            const auto velocities = speed_sample(snapshot());
            for (auto v : {HistogramVariable::speed, HistogramVariable::vx})
                if (snapshots_[index(v)].next(start_) == now) add_histogram(v, velocities);
        }
        checkpoints_.due(now, state_); // last: its state includes this sample
    }

    // At most max_frames frames and rows, the count config.cpp allows for a run of given
    // time; only a run bounded by collisions alone can ask for more, and stops here.
    void write_frame(Particles<D> frame) {
        if (frames_.done >= max_frames)
            throw InputError("output.trajectory.every: the run would write more than " +
                             std::to_string(max_frames) + " frames");
        // Frames are labelled with the time since the measured phase began, like sim_time,
        // on from the snapshot's clock in a run started from one (label_).
        const double t = label_ + (engine_.time() - start_);
        for (auto& p : frame.state) p.t = t;
        if (trajectory_) {
            trajectory_->write_frame(engine_.box(), frame, t, engine_.tally().collisions,
                                     frame_keys_.keys(frames_.done));
            // Checked after each frame: the file ends at most one frame past the limit.
            const double written = trajectory_->bytes();
            if (written > trajectory_budget_.bytes)
                throw InputError(fmt::format("{}: the trajectory reached {:.3g} bytes after {} "
                                             "frames, more than {}",
                                             trajectory_budget_.key(), written, frames_.done + 1,
                                             over_budget(trajectory_budget_)));
        }
        frame_overlap_ = std::max(frame_overlap_, max_overlap(engine_.box(), frame, t));
        ++frames_.done;
    }

    static std::size_t index(HistogramVariable v) { return static_cast<std::size_t>(v); }

    // At most max_histogram_snapshots with the final state, as config.cpp allows for a run
    // of given time; only a run bounded by collisions alone can ask for more, and stops here.
    void add_histogram(HistogramVariable v, const SpeedSample& velocities) {
        auto& done = snapshots_[index(v)].done;
        if (done + 1 >= max_histogram_snapshots)
            throw InputError(
                fmt::format("output.{}.every: the run would take more than {} "
                            "histogram snapshots",
                            v == HistogramVariable::speed ? "histogram" : "velocity_histogram",
                            max_histogram_snapshots));
        histograms_[index(v)]->add(label_ + (engine_.time() - start_), velocities);
        ++done;
    }

    void write_row(const Particles<D>& snapshot) {
        if (rows_.done >= max_frames)
            throw InputError("output.timeseries.every: the run would write more than " +
                             std::to_string(max_frames) + " rows");
        displacement_.sample(snapshot, engine_.time());
        const auto& t = engine_.tally();
        const auto n = static_cast<double>(snapshot.size());
        TimeSeriesRow row;
        row.time = label_ + (engine_.time() - start_);
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
        if (crossing_) row.crossed = static_cast<double>(crossed());
        if (series_)
            series_->write(row);
        else
            kept_rows_.push_back(row);
        if (trajectory_) trajectory_->write_observables(row);
        ++rows_.done;
    }

    EngineT& engine_;
    const Config& config_;
    CollapseWatch& watch_;
    CheckpointSchedule& checkpoints_;
    double label_; // the clock of frames and rows at the phase's start (init.from's time)
    CheckpointSchedule::State state_ = [](ArchiveWriter&) {};
    Progress progress_;
    double start_ = 0.0, end_ = never;
    std::uint64_t collision_limit_ = 0;
    std::optional<TrajectoryOutput<D>> trajectory_;
    XyzProvenance frame_keys_;
    TrajectoryBudget trajectory_budget_;
    std::optional<TimeSeries> series_;
    std::vector<TimeSeriesRow> kept_rows_; // without files
    std::optional<CrossingCount<D>> crossing_;
    std::int64_t in_front() const {
        return crossing_->in_front([&](auto&& f) {
            engine_.visit(engine_.time(), [&](std::uint32_t, const auto& p) { f(p.x); });
        });
    }
    std::int64_t crossed() const { return crossing_->crossed(in_front()); }
    Displacement<D> displacement_;
    std::optional<DiffusionWindows<D>> windows_; // D from many time origins (3D bulk)
    // viscosity, heat conduction and the pressure tensor (a bulk fluid, event-driven)
    std::optional<TransportWindows<D>> transport_;
    std::optional<VelocityAutocorrelation<D>> vacf_; // output.vacf
    std::optional<AxialProfile<D>> profile_;         // output.profile, thermal walls
    std::optional<PairCorrelation<D>> rdf_;
    Every frames_, rows_;
    // output.histogram and output.velocity_histogram with every (by HistogramVariable)
    std::array<std::optional<HistogramSeries>, 2> histograms_;
    std::array<Every, 2> snapshots_;
    double next_unwrap_ = never;       // never: no displacement or g(r) snapshots wanted
    std::uint64_t rdf_collisions_ = 0; // collisions at the last g(r) sample
    double frame_overlap_ = 0.0;
    // Z's blocks (run): the virial and kinetic-energy integral at each edge so far, from
    // the phase's start, and the current width (time, or collisions).
    std::vector<VirialBlock> edges_{{0.0, 0.0}};
    double block_width_ = 1.0;
    // stopped_: for good (a collapse, no more events); reached_, interrupted_: the last step
    bool stopped_ = false, reached_ = false, interrupted_ = false, begun_ = false;
    std::optional<InelasticCollapse> collapse_;
};

} // namespace choc
