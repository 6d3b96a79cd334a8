// The summary keys a sweep collects: dotted paths into the summary JSON
// ("pressure.Z", "species[1].temperature", "momentum.final[0]"), checked against the
// summary's layout before anything runs and read from each run's summary afterwards.
#pragma once

#include "choc/io/toml_reader.hpp"
#include "choc/run/config.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace choc {

// The sweep file's `collect` (default: pressure.Z, collision_rate, temperature), each a
// number of the summary of a run of `config`. Throws InputError naming collect[i].
std::vector<std::string> collected_keys(const Section& root, const Config& config);

// The value at `key` in a summary: a number, or none where the summary has null (a
// quantity the run could not define, e.g. Z in a box with walls).
std::optional<double> summary_value(const nlohmann::json& summary, const std::string& key);

} // namespace choc
