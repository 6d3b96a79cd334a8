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

// The progress of a run or of its equilibration. Rate and ETA count this process's work
// only: a continuation (`--continue`) starts with the collisions and time of the run it
// continues, which this process did not spend its seconds on (issue 43: "3.25 M/s 57 %
// ETA 1s" where the truth was 0.49 M/s and 7 s left). The first update marks where this
// process's work starts; the rate is the collisions since over the seconds since, the ETA
// the fraction left over the fraction done since, times those seconds.
class Progress {
  public:
    // `end_time` and `end_collisions` are the stage's stopping criteria (for the ETA),
    // sim_time counted from the stage's start; `terminal`: stderr is a terminal
    // (RunOptions::terminal); `label` begins the line ("equilibrating": that stage's).
    Progress(bool enabled, bool terminal, std::optional<double> end_time,
             std::optional<std::uint64_t> end_collisions, std::string label = {});
    void update(double sim_time, std::uint64_t collisions);
    void finish() { line_.finish(); }
    // The line for the state (sim_time, collisions) `elapsed` seconds into this process
    // (update's, with the process's clock; a test's with its own).
    std::string line(double sim_time, std::uint64_t collisions, double elapsed);

  private:
    // The fraction done by whichever limit is closer to being reached.
    double done(double sim_time, std::uint64_t collisions) const;

    struct Mark {
        double done;
        std::uint64_t collisions;
        double elapsed;
    };
    ProgressLine line_;
    std::optional<double> end_time_;
    std::optional<std::uint64_t> end_collisions_;
    std::string label_;
    std::optional<Mark> first_; // where this process's work starts
};

} // namespace choc
