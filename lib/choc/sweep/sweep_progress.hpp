// The sweep's progress line on stderr (the root only): runs done of the sweep's, runs
// running, elapsed time and ETA. Rewritten every second on a terminal, a line every ten
// seconds otherwise (as a run's own progress line).
#pragma once

#include <chrono>
#include <cstddef>

namespace choc {

class SweepProgress {
  public:
    SweepProgress(bool enabled, bool terminal, std::size_t runs);
    void started() { ++running_; }
    // ran: in this invocation (else found complete); complete: it reached its end.
    void finished(bool ran, bool complete);
    void show(); // at most once per interval
    void finish();

  private:
    bool enabled_, tty_;
    std::size_t runs_, done_ = 0, running_ = 0, ran_ = 0, found_ = 0;
    std::chrono::steady_clock::time_point start_, last_;
    bool printed_ = false;
};

} // namespace choc
