// output.trajectory: a frame every `every` (extended XYZ or H5MD, io/trajectory.hpp), written
// in place in a checkpointed run; without files (RunOptions::files) the frames are still
// taken, for their overlap check. The trajectory's budget (output.trajectory.max_bytes, or
// half the free space) is checked after each frame. Each frame carries the particles'
// periodic image counts (observers/image_counts.hpp), which this observer keeps up between
// frames as often as the displacement's unwrapping samples (displacement_interval), with
// files or without: a checkpoint holds them either way, so that a run that writes its
// trajectory continues one that did not (a Python Simulation's), and the other way round.
#pragma once

#include "choc/errors.hpp"
#include "choc/io/output_paths.hpp"
#include "choc/io/trajectory.hpp"
#include "choc/io/xyz.hpp"
#include "choc/kernel/overlap.hpp"
#include "choc/observers/image_counts.hpp"
#include "choc/run/phase/observer.hpp"
#include "choc/run/provenance_text.hpp"
#include "choc/run/run_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

namespace choc {

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

template <int D>
class FramesObserver final : public ObserverFields<FramesObserver<D>, D> {
  public:
    static std::unique_ptr<FramesObserver> make(const PhaseSetup<D>& setup) {
        if (!setup.config.trajectory) return nullptr;
        return std::unique_ptr<FramesObserver>(new FramesObserver(setup));
    }

    const char* name() const override { return "output.trajectory"; }
    double next_time() const override { return std::min(frames_.next(start_), next_count_); }
    void sample(PhaseStop<D>& now) override {
        if (now.time() >= frames_.next(start_))
            write_frame(now.snapshot());
        else
            count_images();
    }
    template <class Archive>
    void fields(Archive& ar) {
        const std::size_t n = images_.counts().size();
        ar(start_, frames_.done, frame_overlap_, next_count_, images_);
        if constexpr (Archive::loading)
            if (images_.counts().size() != n)
                throw ArchiveError("the state's image counts do not match its particles");
    }

    // The worst overlap in the frames written.
    double frame_overlap() const { return frame_overlap_; }
    // The largest step between two updates of the image counts, as a fraction of its edge.
    double largest_image_step() const { return images_.largest_step(); }
    // Where the file stands, for a checkpoint (none unless written in place).
    std::optional<StreamMark> mark() {
        if (!trajectory_ || !trajectory_->in_place()) return std::nullopt;
        return StreamMark{trajectory_->path(), trajectory_->mark()};
    }
    // A time-series row, to the trajectory's observables (H5MD keeps them).
    void write_observables(const TimeSeriesRow& row) {
        if (trajectory_) trajectory_->write_observables(row);
    }
    // The phase's end (the last flush), and the file into place once every other output of
    // the run is written.
    void end() {
        if (trajectory_) trajectory_->finish();
    }
    void publish() {
        if (trajectory_) trajectory_->publish();
    }

  private:
    explicit FramesObserver(const PhaseSetup<D>& setup)
        : engine_(setup.engine), start_(setup.start), label_(setup.label) {
        const auto& config = setup.config;
        frames_.every = config.trajectory->every;
        if (setup.options.files) {
            trajectory_.emplace(
                *config.trajectory, engine_.box(), engine_.snapshot(engine_.time()), setup.origin,
                config.timeseries.has_value(),
                placement(setup.streams, setup.streams.trajectory, config.trajectory->path));
            frame_keys_ = xyz_provenance(setup.origin);
            budget_ = trajectory_budget(*config.trajectory);
        }
        double fastest = 0.0;
        images_ = ImageCounts<D>(folded_positions(fastest));
        schedule_count(engine_.time(), fastest);
    }

    // The engine's particles' folded positions now, in the caller's order, and in
    // `fastest` the largest speed (one pass over them).
    std::vector<Vec<D>> folded_positions(double& fastest) const {
        std::vector<Vec<D>> x(engine_.particles().size());
        engine_.visit(engine_.time(), [&](std::uint32_t id, const auto& p) {
            x[id] = folded_position(engine_.box(), p.x);
            fastest = std::max(fastest, norm(p.v));
        });
        return x;
    }
    // The image counts moved on to the particles now, and the next count scheduled.
    void count_images() {
        double fastest = 0.0;
        images_.advance(engine_.box(), folded_positions(fastest));
        schedule_count(engine_.time(), fastest);
    }
    // The next update of the image counts between frames: before any particle can move an
    // eighth of the shortest periodic edge at `fastest`, the fastest speed now (never
    // without a periodic edge).
    void schedule_count(double t, double fastest) {
        const double next = t + displacement_interval(engine_.box(), fastest);
        next_count_ = next > t ? next : never; // a step below the clock's resolution: never
    }

    // At most max_frames frames, the count config.cpp allows for a run of given time; only
    // a run bounded by collisions alone can ask for more, and stops here.
    void write_frame(Particles<D> frame) {
        if (frames_.done >= max_frames)
            throw InputError("output.trajectory.every: the run would write more than " +
                             std::to_string(max_frames) + " frames");
        // Frames are labelled with the time since the measured phase began, like sim_time,
        // on from the snapshot's clock in a run started from one (label_).
        const double t = label_ + (engine_.time() - start_);
        for (auto& p : frame.state) p.t = t;
        std::vector<Vec<D>> x;
        x.reserve(frame.size());
        double fastest = 0.0;
        for (const auto& p : frame.state) {
            x.push_back(frame_position(engine_.box(), p, t));
            fastest = std::max(fastest, norm(p.v));
        }
        images_.advance(engine_.box(), x);
        schedule_count(engine_.time(), fastest);
        if (trajectory_) {
            trajectory_->write_frame(engine_.box(), frame, t, engine_.tally().collisions,
                                     frame_keys_.keys(frames_.done), images_.counts());
            // Checked after each frame: the file ends at most one frame past the limit.
            const double written = trajectory_->bytes();
            if (written > budget_.bytes)
                throw InputError(fmt::format("{}: the trajectory reached {:.3g} bytes after {} "
                                             "frames, more than {}",
                                             budget_.key(), written, frames_.done + 1,
                                             over_budget(budget_)));
        }
        frame_overlap_ = std::max(frame_overlap_, max_overlap(engine_.box(), frame, t));
        ++frames_.done;
    }

    const EngineView<D>& engine_;
    double start_; // the phase's start (a continuation's restored)
    double label_; // the clock of frames at the phase's start (init.from's time)
    Every frames_;
    std::optional<TrajectoryOutput<D>> trajectory_;
    XyzProvenance frame_keys_;
    TrajectoryBudget budget_;
    double frame_overlap_ = 0.0;
    ImageCounts<D> images_;
    double next_count_ = never;
};

} // namespace choc
