// One `choc run`: from a Config to the outputs on disk and the summary.
#pragma once

#include "choc/run/config.hpp"
#include "choc/run/summary.hpp"

#include <functional>
#include <optional>
#include <string>

namespace choc {

struct RunOptions {
    bool quiet = false; // no progress line
    // stderr is a terminal: the progress line rewrites itself every second (else a line
    // every ten seconds). The program decides; the library knows nothing of terminals.
    bool terminal = false;
    std::optional<std::string> summary_path; // overrides output.summary
    // A checkpoint (output.checkpoint) to go on from, to the config's limits.
    std::optional<std::string> continue_from;
    // How errors about it name it: the command line's option, or the Python argument.
    std::string continue_key = "--continue";
    // The program's arguments, recorded in the summary's provenance (empty: not recorded).
    std::vector<std::string> command_line;
    // Called once the start is built and checked, before the first event: from then on
    // the run is under way (the app releases log lines it held back until then).
    std::function<void()> started;
    // false: the run writes none of the outputs of [output] (the Python module's
    // Simulation). Every sample of the outputs the config names is still taken at its time
    // (frames for their overlap check, time-series rows kept in memory), so the physics and
    // the summary are those of the run that writes them; no output path is checked.
    bool files = true;
    // output.checkpoint is written even without files (the Python module: its checkpoints
    // are the only file it writes); with files it always is.
    bool checkpoints = false;
    // The command line's words for an interrupt (SIGINT, SIGTERM): "interrupted at t = ...:
    // the summary covers the part run so far", "checkpoint written: ... (continue with
    // --continue)". false: the run stops as quietly as it does otherwise, and its caller
    // reports the interrupt in its own way (Python: KeyboardInterrupt).
    bool report_interrupts = true;
};

// Sets up, equilibrates, runs and measures; writes the trajectory and the summary.
// Throws InputError for bad input (before any output file is created). A Simulation
// (simulation.hpp) advanced to the config's limits and finished.
Summary run_simulation(const Config& config, const RunOptions& options);

} // namespace choc
