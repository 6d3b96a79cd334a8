// `choc sweep`: the command line around choc::run_sweep (docs/REFERENCE.md, "choc sweep").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace choc {

struct SweepArguments {
    std::string sweep_path;
    std::vector<std::string> sets;
    std::optional<std::string> output;
    std::optional<unsigned> jobs;
    std::optional<std::string> shard; // "I/N"
    bool quiet = false;
    std::vector<std::string> command_line;
};

// Runs the sweep; returns the exit status (0, 1, 2 or 130) after printing what happened.
// `release_log` is called once the input is checked (held-back log lines may go out).
int sweep_command(const SweepArguments& args, int& argc, char**& argv,
                  const std::function<void()>& release_log);

} // namespace choc
