#include "choc/sweep/sweep_progress.hpp"

#include "choc/run/progress.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace choc {

SweepProgress::SweepProgress(bool enabled, bool terminal, std::size_t runs)
    : enabled_(enabled), tty_(terminal), runs_(runs), start_(std::chrono::steady_clock::now()),
      last_(start_) {}

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
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_).count() < (tty_ ? 1.0 : 10.0)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    // The runs of this invocation so far set the pace for those left (all workers).
    const std::size_t left = runs_ - std::min(runs_, done_);
    const double eta =
        ran_ > 0 ? elapsed / static_cast<double>(ran_) * static_cast<double>(left) : -1.0;
    std::string line = fmt::format("sweep: {}/{} runs done", done_, runs_);
    if (found_ > 0) line += fmt::format(" ({} already)", found_);
    line += fmt::format(", {} running, {} elapsed, ETA {}", running_, duration_text(elapsed),
                        left == 0 ? "0s" : duration_text(eta));
    std::fprintf(stderr, tty_ ? "\r%-78s" : "%s\n", line.c_str());
    std::fflush(stderr);
    printed_ = true;
}

void SweepProgress::finish() {
    if (enabled_ && tty_ && printed_) std::fprintf(stderr, "\n");
    printed_ = false;
}

} // namespace choc
