// The provenance of a run's summary: the config as run, the seed, the command line, the
// machine and the wall-clock times (the build's version and commit are added by the
// summary writer).
#pragma once

#include "choc/run/config.hpp"
#include "choc/run/run.hpp"
#include "choc/run/summary.hpp"

#include <string>

namespace choc {

// The current time in UTC, ISO 8601 to the second ("2026-11-23T21:14:05Z").
std::string utc_now();

// This machine's host name ("unknown" if the system cannot say).
std::string host_name();

// Everything but `finished`, which the run sets when it writes the summary.
Provenance provenance(const Config& config, const RunOptions& options, const std::string& started);

} // namespace choc
