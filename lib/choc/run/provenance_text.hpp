// The provenance of a run's outputs (run/provenance.hpp) made from the run, and its texts:
// the config as run, the seed, the command line, the machine and the wall-clock times (the
// build's version and commit are added by the summary writer and by the texts below for
// the time series and the trajectory).
#pragma once

#include "choc/run/config.hpp"
#include "choc/run/provenance.hpp"
#include "choc/run/run.hpp"

#include <cstdint>
#include <string>

namespace choc {

// The current time in UTC, ISO 8601 to the second ("2026-11-23T21:14:05Z").
std::string utc_now();

// This machine's host name ("unknown" if the system cannot say).
std::string host_name();

// Everything but `finished`, which the run sets when it writes the summary.
Provenance provenance(const Config& config, const RunOptions& options, const std::string& started);

// The header comment of the time series and the profile CSV (docs/REFERENCE.md, "Time
// series"): "# key: value" lines
// for choc_version, git_commit, seed, command_line (a JSON array), started and host, then
// "# config:" and the resolved TOML, each line as "#   line". `finished` is not known yet:
// timeseries_footer gives the last line, written when the file is complete.
std::string provenance_header(const Provenance& p);
std::string timeseries_footer(const std::string& finished);

// The provenance keys of the trajectory's comment lines (docs/REFERENCE.md, "Trajectory"):
// every frame has choc_version, git_commit, seed, started, host and command_line (a JSON
// list); the first frame also has config (the resolved TOML as a JSON string), which is
// written once so that frames of small systems do not grow by a config each.
struct XyzProvenance {
    std::string first_frame, other_frames;
    const std::string& keys(std::uint64_t frame) const {
        return frame == 0 ? first_frame : other_frames;
    }
};
XyzProvenance xyz_provenance(const Provenance& p);

} // namespace choc
