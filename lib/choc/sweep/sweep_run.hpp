// One run of a sweep: what its directory holds (nothing, a finished run, or a checkpoint
// to go on from), running it, and its outcome as read from its summary.
#pragma once

#include "choc/sweep/sweep.hpp"

#include <string>
#include <vector>

namespace choc {

enum class RunState { fresh, complete, resume };

struct Inspection {
    RunState state = RunState::fresh;
    std::string summary; // complete: the summary's text
};

// Throws InputError when the directory holds a run of another config (one that differs
// in more than the run's length, which a checkpoint extends), or an unreadable summary or
// checkpoint: the sweep never overwrites another study's results.
Inspection inspect(const SweepRun& run);

// The outcome recorded in a summary's text.
RunOutcome outcome_of(const std::string& summary, const std::vector<std::string>& collect);

// Runs it (from its checkpoint when `state` is resume) and reads its summary. Never
// throws: a run that could not run is a failed outcome with the reason.
RunOutcome execute(const SweepRun& run, RunState state, const std::vector<std::string>& collect,
                   const std::vector<std::string>& command_line);

} // namespace choc
