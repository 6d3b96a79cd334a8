#include "choc/sweep/sweep_progress.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace choc {

void SweepProgress::finished(bool ran, bool complete) {
    if (ran) {
        if (running_ > 0) --running_;
        ++ran_;
    } else {
        ++found_;
    }
    if (complete) ++done_;
}

void SweepProgress::show() {
    if (!line_.due()) return;
    const double elapsed = line_.elapsed();
    // The runs of this invocation so far set the pace for those left (all workers).
    const std::size_t left = runs_ - std::min(runs_, done_);
    const double eta =
        ran_ > 0 ? elapsed / static_cast<double>(ran_) * static_cast<double>(left) : -1.0;
    std::string line = fmt::format("sweep: {}/{} runs done", done_, runs_);
    if (found_ > 0) line += fmt::format(" ({} already)", found_);
    line += fmt::format(", {} running, {} elapsed, ETA {}", running_, duration_text(elapsed),
                        left == 0 ? "0s" : duration_text(eta));
    line_.print(line);
}

} // namespace choc
