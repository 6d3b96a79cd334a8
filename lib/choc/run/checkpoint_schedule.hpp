// When a run writes its checkpoint (output.checkpoint): every `every` of simulated time
// from the run's start (at start + k every, k = 1, 2, ..., through equilibration and the
// measured phase alike), at an interrupt (SIGINT or SIGTERM, before the exit), and when
// the run reaches its limits (so that it can be extended). Each write replaces the last
// checkpoint whole (checkpoint.hpp).
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/run/checkpoint.hpp"

#include <spdlog/spdlog.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace choc {

class CheckpointSchedule {
  public:
    // Writes the run's state (engine, watch, phase) into a checkpoint's state bytes.
    using State = std::function<void(ArchiveWriter&)>;

    CheckpointSchedule() = default; // no checkpoints
    // `header`: the config, dimension and field of every checkpoint; `start`: the time
    // the run began at; `done`: periodic checkpoints written so far (a continuation's).
    // `report`: say at an interrupt where the checkpoint went (the command line's words).
    CheckpointSchedule(std::string path, std::optional<double> every, Checkpoint header,
                       double start, std::uint64_t done, bool report = true)
        : path_(std::move(path)), every_(every), header_(std::move(header)), start_(start),
          done_(done), report_(report) {}

    bool on() const { return !path_.empty(); }
    std::uint64_t done() const { return done_; }
    // The next periodic checkpoint's time (never without one).
    double next() const {
        return on() && every_ ? start_ + static_cast<double>(done_ + 1) * *every_ : never;
    }
    // The periodic checkpoint, if it is due at `now` (the caller stopped the engine there).
    void due(double now, const State& state) {
        if (now != next()) return;
        ++done_; // the state records it as written
        write(state);
    }
    // At an interrupt: once (the measured phase does not repeat equilibration's).
    void interrupted(const State& state) {
        if (!on() || interrupt_written_) return;
        interrupt_written_ = true;
        write(state);
        if (report_) spdlog::warn("checkpoint written: {} (continue with --continue)", path_);
    }
    void write(const State& state) {
        if (!on()) return;
        ArchiveWriter out;
        state(out);
        header_.state = out.bytes();
        write_checkpoint(path_, header_, "output.checkpoint.path");
        header_.state.clear();
    }

  private:
    std::string path_;
    std::optional<double> every_;
    Checkpoint header_;
    double start_ = 0.0;
    std::uint64_t done_ = 0;
    bool interrupt_written_ = false;
    bool report_ = true;
};

} // namespace choc
