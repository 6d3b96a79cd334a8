#include "choc/run/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace choc {

std::string duration_text(double seconds) {
    if (!(seconds >= 0) || seconds > 1e7) return "?";
    const auto s = static_cast<long>(seconds + 0.5);
    if (s < 60) return fmt::format("{}s", s);
    if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
}

ProgressLine::ProgressLine(bool enabled, bool terminal)
    : enabled_(enabled), tty_(terminal), start_(std::chrono::steady_clock::now()), last_(start_) {}

bool ProgressLine::due() {
    if (!enabled_) return false;
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_).count() < (tty_ ? 1.0 : 10.0)) return false;
    last_ = now;
    return true;
}

double ProgressLine::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::print(const std::string& line) {
    std::fprintf(stderr, tty_ ? "\r%-78s" : "%s\n", line.c_str());
    std::fflush(stderr);
    printed_ = true;
}

void ProgressLine::finish() {
    if (enabled_ && tty_ && printed_) std::fprintf(stderr, "\n");
    printed_ = false;
}

Progress::Progress(bool enabled, bool terminal, std::optional<double> end_time,
                   std::optional<std::uint64_t> end_collisions, std::string label)
    : line_(enabled, terminal), end_time_(end_time), end_collisions_(end_collisions),
      label_(std::move(label)) {}

double Progress::done(double sim_time, std::uint64_t collisions) const {
    double done = 0.0;
    if (end_time_ && *end_time_ > 0) done = sim_time / *end_time_;
    if (end_collisions_ && *end_collisions_ > 0)
        done =
            std::max(done, static_cast<double>(collisions) / static_cast<double>(*end_collisions_));
    return done;
}

void Progress::update(double sim_time, std::uint64_t collisions) {
    const double elapsed = line_.elapsed();
    if (!first_) first_ = Mark{done(sim_time, collisions), collisions, elapsed};
    if (!line_.due()) return;
    line_.print(line(sim_time, collisions, elapsed));
}

std::string Progress::line(double sim_time, std::uint64_t collisions, double elapsed) {
    if (!first_) first_ = Mark{done(sim_time, collisions), collisions, elapsed};
    const double d = done(sim_time, collisions), spent = elapsed - first_->elapsed;
    const double eta =
        d > first_->done && spent > 0 ? spent * (1.0 - d) / (d - first_->done) : -1.0;
    const double rate = spent > 0 && collisions >= first_->collisions
                            ? static_cast<double>(collisions - first_->collisions) / spent
                            : 0.0;
    return fmt::format("{}t = {:.4g}  collisions = {}  {:.3g} M/s  {:.0f}%  ETA {}",
                       label_.empty() ? "" : label_ + "  ", sim_time, collisions, rate / 1e6,
                       100.0 * std::min(d, 1.0), duration_text(eta));
}

} // namespace choc
