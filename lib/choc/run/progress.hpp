// The progress line on stderr: simulated time, collisions, collisions per second and ETA,
// at most about once a second. Overwrites itself on a terminal, prints lines otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace choc {

// "42s", "3m05s", "2h10m"; "?" for an unknown or absurd duration.
std::string duration_text(double seconds);

// A line on stderr that is rewritten every second on a terminal and printed as a new line
// every ten seconds otherwise, so that a log stays readable (the run's and the sweep's).
class ProgressLine {
  public:
    ProgressLine(bool enabled, bool terminal);
    // Whether a line is due now (enabled, and the interval has passed since the last).
    bool due();
    double elapsed() const; // seconds since construction
    void print(const std::string& line);
    void finish(); // ends a rewritten line

  private:
    bool enabled_, tty_;
    std::chrono::steady_clock::time_point start_, last_;
    bool printed_ = false;
};

class Progress {
  public:
    // `end_time` and `end_collisions` are the run's stopping criteria (for the ETA);
    // `terminal`: stderr is a terminal (RunOptions::terminal).
    Progress(bool enabled, bool terminal, std::optional<double> end_time,
             std::optional<std::uint64_t> end_collisions);
    void update(double sim_time, std::uint64_t collisions);
    void finish() { line_.finish(); }

  private:
    ProgressLine line_;
    std::optional<double> end_time_;
    std::optional<std::uint64_t> end_collisions_;
};

} // namespace choc
