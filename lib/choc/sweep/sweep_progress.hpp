// The sweep's progress line on stderr (the root only): runs done of the sweep's, runs
// running, elapsed time and ETA, paced as a run's own progress line (progress.hpp).
#pragma once

#include "choc/run/progress.hpp"

#include <cstddef>

namespace choc {

class SweepProgress {
  public:
    SweepProgress(bool enabled, bool terminal, std::size_t runs)
        : line_(enabled, terminal), runs_(runs) {}
    void started() { ++running_; }
    // ran: in this invocation (else found complete); complete: it reached its end.
    void finished(bool ran, bool complete);
    void show(); // when a line is due
    void finish() { line_.finish(); }

  private:
    ProgressLine line_;
    std::size_t runs_, done_ = 0, running_ = 0, ran_ = 0, found_ = 0;
};

} // namespace choc
