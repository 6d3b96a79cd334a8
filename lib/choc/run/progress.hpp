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

class Progress {
  public:
    // `end_time` and `end_collisions` are the run's stopping criteria (for the ETA);
    // `terminal`: stderr is a terminal (RunOptions::terminal).
    Progress(bool enabled, bool terminal, std::optional<double> end_time,
             std::optional<std::uint64_t> end_collisions);
    void update(double sim_time, std::uint64_t collisions);
    void finish();

  private:
    bool enabled_, tty_;
    std::optional<double> end_time_;
    std::optional<std::uint64_t> end_collisions_;
    std::chrono::steady_clock::time_point start_, last_;
    bool printed_ = false;
};

} // namespace choc
