// Where a run's outputs come from (the summary's `provenance`, the time series' header, the
// trajectory's keys): what the summary, the trajectory files and the time series all
// record. Made by the run (lib/choc/run/provenance_text.hpp), which also writes its texts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace choc {

// Where a summary comes from, so that the summaries of a seed scan can be told apart and
// rerun: the build, the config as run, the command, the machine and the wall-clock times.
struct Provenance {
    std::string config;                    // the resolved config (TOML, --set applied)
    std::uint64_t seed = 0;                // init.seed
    std::vector<std::string> command_line; // as the program was called; empty from a library call
    std::string started, finished;         // UTC, ISO 8601 to the second
    std::string host;
};

} // namespace choc
