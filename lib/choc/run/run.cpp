// One `choc run`: check the outputs can be written and lock them, then a Simulation
// (simulation.hpp) built, advanced to the config's limits and finished (the outputs and the
// summary).
#include "choc/run/run.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/io/output_lock.hpp"
#include "choc/io/output_paths.hpp"
#include "choc/kernel/archive.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/run/simulation.hpp"

#include <string>
#include <vector>

namespace choc {

Summary run_simulation(const Config& config, const RunOptions& options) {
    // Signals are recorded from here on (the app installs them even earlier): a signal
    // while the start is built gives an interrupted run with a summary, never a kill.
    InterruptGuard interrupts;
    // Every output is checked before anything is created: bad input leaves no files.
    const std::string summary_key = options.summary_path ? "--summary" : "output.summary";
    const std::string summary_path = options.summary_path.value_or(config.summary);
    std::vector<NamedPath> outputs{{summary_key, summary_path}};
    for (const auto& [key, path] : output_paths(config)) outputs.push_back({key, path});
    std::vector<NamedPath> inputs{{"the config file", config.source}};
    if (config.from) inputs.push_back({"init.from", *config.from});
    check_outputs(outputs, inputs);
    // The checkpoint to continue is read whole before anything is written, and the run's
    // own checkpoints replace it; no other output may.
    if (options.continue_from) {
        std::vector<NamedPath> others;
        for (const auto& o : outputs)
            if (o.key != "output.checkpoint.path") others.push_back(o);
        check_outputs(others, {{"--continue", *options.continue_from}});
    }
    // The run owns its outputs from here to its end: a second run given any of them is
    // refused here, before either changes a file.
    const OutputLocks locks(outputs);
    remove_stale_temporaries(outputs);

    try {
        Simulation run(config, options);
        run.advance();
        return run.finish(summary_path, summary_key);
    } catch (const ArchiveError& e) {
        // (a state whose checksum held but that does not fit this config or build)
        throw InputError("--continue \"" + *options.continue_from +
                         "\": the checkpoint cannot be continued: " + e.what());
    }
}

} // namespace choc
