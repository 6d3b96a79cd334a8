// The measured phase of a run: the engine runs to the run's time or collision limit,
// stopping at the edges of Z's blocks (a doubling grid, see run()), at its observers' due
// times (the trajectory, the time series, the displacement and g(r) snapshots, the
// windows, the profiles, the histogram series: run/phase/, one file each, registered in
// run/phase/observers.hpp) and at the checkpoints', with progress, interrupt checks and the
// collapse watch between chunks of events.
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
#include "choc/kernel/archive.hpp"
#include "choc/kernel/engine.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/observers/block_edges.hpp"
#include "choc/observers/histogram_series.hpp"
#include "choc/observers/pressure.hpp"
#include "choc/observers/time_series.hpp"
#include "choc/observers/velocity_distribution.hpp"
#include "choc/run/checkpoint_schedule.hpp"
#include "choc/run/collapse_watch.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/run/phase/observer.hpp"
#include "choc/run/phase/observers.hpp"
#include "choc/run/progress.hpp"
#include "choc/run/provenance_text.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
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

// The events to the next multiple of `chunk` processed by the engine.
template <class E>
std::uint64_t chunk_budget(const E& engine) {
    return chunk - engine.processed() % chunk;
}

// Where the streamed outputs stand, in a checkpoint: for the trajectory, then the time
// series, whether it has a mark, then the mark (one list for save and restore, archive.hpp).
template <class Archive>
void stream_fields(Archive& ar, Streams& s) {
    for (auto* mark : {&s.trajectory, &s.series})
        optional_field(ar, *mark, [] { return StreamMark{}; });
}

// The measured phase (see the top of this file), of the event-driven engine (engine.hpp)
// or of the time-stepped one (step_engine.hpp). Its observers (run/phase/observers.hpp)
// measure and write; the phase stops the engine when one of them is due, and keeps Z's
// blocks, the limits and the checkpoints.
template <int D, class EngineT>
class MeasuredPhase {
  public:
    // The phase starts from the engine's particles now (a continuation's restore() then
    // puts back what was measured).
    MeasuredPhase(EngineT& engine, const Config& config, const RunOptions& options,
                  CollapseWatch& watch, const Provenance& origin, CheckpointSchedule& checkpoints,
                  const Streams& streams, double label)
        : engine_(engine), view_(engine), config_(config), watch_(watch), checkpoints_(checkpoints),
          label_(label), report_interrupts_(options.report_interrupts),
          progress_(!options.quiet, options.terminal, config.run_time, config.run_collisions) {
        // Without files (RunOptions::files) the samples are taken all the same, at the same
        // times: frames for their overlap check, rows kept in memory (rows()).
        start_ = engine.time();
        end_ = config.run_time ? start_ + *config.run_time : never;
        collision_limit_ = config.run_collisions.value_or(~std::uint64_t{0});
        block_width_ = config.run_time ? first_block_time : 1.0;
        observers_ = make_observers<D>(PhaseSetup<D>{view_, config, options, origin, streams,
                                                     start_, label, window_step<D>(engine)});
    }

    // The run's state for a checkpoint, written when one is due (CheckpointSchedule).
    void checkpoint_state(CheckpointSchedule::State state) { state_ = std::move(state); }

    // Runs to the run's limits (or an interrupt, a collapse or the end of all events) and
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
        if (auto* frames = find<FramesObserver<D>>()) frames->end();
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
    // the rest (restore: the same fields).
    void save(ArchiveWriter& out) {
        auto* frames = find<FramesObserver<D>>();
        auto* rows = find<RowsObserver<D>>();
        Streams streams;
        streams.trajectory = frames ? frames->mark() : std::nullopt;
        streams.series = rows ? rows->mark() : std::nullopt;
        stream_fields(out, streams);
        fields(out);
    }
    static Streams restore_streams(ArchiveReader& in) {
        Streams s;
        s.in_place = true;
        stream_fields(in, s);
        return s;
    }
    void restore(ArchiveReader& in) {
        fields(in);
        end_ = config_.run_time ? start_ + *config_.run_time : never;
        if (edges_.empty() || edges_.size() > 2 * blocks || !(block_width_ > 0.0))
            throw ArchiveError("the state's blocks are damaged");
    }

    // The streamed outputs into place, once everything else of the run is written: the
    // time series first (its commit may still fail and leave nothing), then the frames.
    void publish(const std::string& finished) {
        if (auto* rows = find<RowsObserver<D>>()) rows->publish(timeseries_footer(finished));
        if (auto* frames = find<FramesObserver<D>>()) frames->publish();
    }

    // Every observer's keys of the summary of the run so far (not for a run found broken).
    void summarise(Summary& s, const SummaryContext<D>& c) const {
        for (const auto& o : observers_) o->summarise(s, c);
        finite_size_diffusion<D>(s, c); // from D's and the viscosity's keys
    }

    // The observer of type O (run/phase/), if the run has one.
    template <class O>
    O* find() const {
        for (const auto& o : observers_)
            if (auto* found = dynamic_cast<O*>(o.get())) return found;
        return nullptr;
    }
    // The histogram series of variable v (output.histogram or output.velocity_histogram
    // with every), if any.
    const HistogramObserver<D>* histograms(HistogramVariable v) const {
        for (const auto& o : observers_)
            if (const auto* h = dynamic_cast<const HistogramObserver<D>*>(o.get()))
                if (h->variable() == v) return h;
        return nullptr;
    }

    // The worst overlap in the frames written so far.
    double frame_overlap() const {
        const auto* frames = find<FramesObserver<D>>();
        return frames ? frames->frame_overlap() : 0.0;
    }
    bool interrupted() const { return interrupted_; }
    // The collapse that stopped the run, here or (stop_at_collapse) in equilibration.
    const std::optional<InelasticCollapse>& collapse() const { return collapse_; }
    // A physical outcome: the run stops, and the part run so far is measured and written.
    void stop_at_collapse(const InelasticCollapse& e) {
        collapse_ = e;
        stopped_ = true;
    }
    // The time series rows of a run without files (RunOptions::files), in memory.
    const std::vector<TimeSeriesRow>& rows() const {
        static const std::vector<TimeSeriesRow> none;
        const auto* rows = find<RowsObserver<D>>();
        return rows ? rows->rows() : none;
    }

  private:
    using Stop = typename EngineT::Stop;
    // The event-driven engine keeps the shear moment of sliding boundaries; the
    // time-stepped one does not.
    static constexpr bool keeps_fluxes = EngineT::keeps_fluxes;

    // The phase's own checkpoint fields, then each observer's, under its name.
    template <class Archive>
    void fields(Archive& ar) {
        ar(start_, edges_, block_width_);
        std::uint64_t count = observers_.size();
        ar(count);
        if (count != observers_.size())
            throw ArchiveError("the state's observers do not match the run's");
        for (auto& o : observers_) {
            std::string name = o->name();
            ar(name);
            if (name != o->name())
                throw ArchiveError(std::string("the state's observers do not match the run's (") +
                                   o->name() + ")");
            ar(*o);
        }
    }

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

    double next_sample() const {
        double next = checkpoints_.next();
        for (const auto& o : observers_) next = std::min(next, o->next_time());
        return next;
    }

    // To the block's limits (until, limit), within the step's (step_until, step_limit).
    void advance(double until, std::uint64_t limit, double step_until, std::uint64_t step_limit) {
        while (true) {
            // Checked before any work: a signal during start-up or equilibration stops
            // the run before its first event.
            if (InterruptGuard::requested()) {
                // (a signal before the phase began was reported where it arrived)
                if (begun_ && report_interrupts_)
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
            // The step's limits: when they are the run's own (always in `choc run`), a
            // checkpoint that a continuation with larger limits extends (written before the
            // last block closes, which the continuation reopens). A Python step to other
            // limits writes none.
            if ((stop == Stop::time && engine_.time() >= step_until) ||
                (stop == Stop::collisions && engine_.tally().collisions >= step_limit)) {
                reached_ = true;
                if (step_until == end_ && step_limit == collision_limit_)
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
                    watch_.check(engine_.time(), engine_.tally().events(), engine_.short_flights());
            } catch (const InelasticCollapse& e) {
                stop_at_collapse(e);
            }
            if (stopped_ || reached_ || stop == Stop::collisions ||
                (stop == Stop::time && engine_.time() >= until))
                return;
        }
    }

    // The observers due now, each handed the same stop (and the one snapshot it copies
    // when the first of them asks), in the order of their registration; the checkpoint
    // last, so that its state includes this sample.
    void sample() {
        PhaseStop<D> now(view_);
        for (auto& o : observers_)
            if (o->next_time() == now.time()) o->sample(now);
        checkpoints_.due(now.time(), state_);
    }

    EngineT& engine_;
    EngineViewOf<D, EngineT> view_; // what the observers read of it
    const Config& config_;
    CollapseWatch& watch_;
    CheckpointSchedule& checkpoints_;
    double label_;           // the clock of frames and rows at the phase's start (init.from's time)
    bool report_interrupts_; // RunOptions::report_interrupts
    CheckpointSchedule::State state_ = [](ArchiveWriter&) {};
    Progress progress_;
    double start_ = 0.0, end_ = never;
    std::uint64_t collision_limit_ = 0;
    PhaseObservers<D> observers_;
    // Z's blocks (run): the virial and kinetic-energy integral at each edge so far, from
    // the phase's start, and the current width (time, or collisions).
    std::vector<VirialBlock> edges_{{0.0, 0.0}};
    double block_width_ = 1.0;
    // stopped_: for good (a collapse, no more events); reached_, interrupted_: the last step
    bool stopped_ = false, reached_ = false, interrupted_ = false, begun_ = false;
    std::optional<InelasticCollapse> collapse_;
};

} // namespace choc
