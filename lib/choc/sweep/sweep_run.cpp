#include "choc/sweep/sweep_run.hpp"

#include "choc/errors.hpp"
#include "choc/io/toml_file.hpp"
#include "choc/message_text.hpp"
#include "choc/run/checkpoint.hpp"
#include "choc/run/run.hpp"
#include "choc/sweep/summary_keys.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <new>

namespace choc {
namespace {

namespace fs = std::filesystem;

std::string clash(const SweepRun& run, const std::string& what) {
    return "output: \"" + escaped(run.directory) + "\" " + what +
           "; give the sweep another output directory (or remove that one)";
}

} // namespace

Inspection inspect(const SweepRun& run) {
    std::error_code error;
    std::optional<nlohmann::json> summary;
    std::string text;
    if (fs::exists(run.summary, error)) {
        text = read_text_file(run.summary);
        try {
            summary = nlohmann::json::parse(text);
            (void)summary->at("provenance").at("config").get<std::string>();
            (void)summary->at("interrupted").get<bool>();
        } catch (const nlohmann::json::exception&) {
            throw InputError(clash(run, "holds " +
                                            escaped(fs::path(run.summary).filename().string()) +
                                            ", which is not a choc summary"));
        }
        const auto config = summary->at("provenance").at("config").get<std::string>();
        // the same config but for where the outputs go: the sweep's directory may have been
        // moved or copied, or choc run from another working directory (issue 43)
        if (!difference_but_paths(config, run.config.resolved) &&
            !summary->at("interrupted").get<bool>())
            return {RunState::complete, text};
    }
    if (fs::exists(run.checkpoint, error)) {
        Checkpoint c;
        try {
            c = read_checkpoint(run.checkpoint, "output");
        } catch (const InputError& e) {
            throw InputError(clash(run, "holds a checkpoint choc cannot continue (" +
                                            std::string(e.what()) + ")"));
        }
        if (auto key = config_difference(c.config, run.config.resolved))
            throw InputError(
                clash(run, "holds a checkpoint of another config (" + *key + " differs)"));
        return {RunState::resume, {}};
    }
    if (summary)
        if (auto key = config_difference(summary->at("provenance").at("config").get<std::string>(),
                                         run.config.resolved))
            throw InputError(
                clash(run, "holds the summary of another config (" + *key + " differs)"));
    // Nothing, or a run of this config that another length of run replaces.
    return {RunState::fresh, {}};
}

RunOutcome outcome_of(const std::string& summary, const std::vector<std::string>& collect) {
    RunOutcome outcome;
    const auto json = nlohmann::json::parse(summary);
    outcome.status = json.at("interrupted").get<bool>() ? RunOutcome::Status::interrupted
                                                        : RunOutcome::Status::complete;
    outcome.collapsed = json.at("collapsed").get<bool>();
    outcome.valid = json.at("valid").get<bool>();
    if (!outcome.valid && json.at("violation").is_string())
        outcome.message = json.at("violation").get<std::string>();
    for (const auto& key : collect) outcome.values.push_back(summary_value(json, key));
    return outcome;
}

RunOutcome execute(const SweepRun& run, RunState state, const std::vector<std::string>& collect,
                   const std::vector<std::string>& command_line) {
    RunOutcome failed;
    try {
        // Every output's directory (the run's own, and any below it the config names).
        fs::create_directories(run.directory);
        std::vector<std::string> paths{run.summary, run.checkpoint};
        for (const auto& [key, path] : output_paths(run.config)) paths.push_back(path);
        for (const auto& path : paths) fs::create_directories(fs::path(path).parent_path());
        RunOptions options;
        options.quiet = true;
        options.command_line = command_line;
        if (state == RunState::resume) options.continue_from = run.checkpoint;
        try {
            run_simulation(run.config, options);
        } catch (const InelasticCollapse&) {
            // a physical outcome: the summary says so ("collapsed": true)
        } catch (const InvariantViolation&) {
            // the summary says so ("valid": false) and the table counts it
        }
        return outcome_of(read_text_file(run.summary), collect);
    } catch (const Interrupted& e) {
        // a long stage of its start cut short: nothing of it written, it starts afresh
        failed.status = RunOutcome::Status::interrupted;
        failed.message = e.what();
        return failed;
    } catch (const InputError& e) {
        failed.message = e.what();
    } catch (const fs::filesystem_error& e) {
        failed.message =
            "output: cannot create \"" + escaped(e.path1().string()) + "\": " + e.code().message();
    } catch (const std::bad_alloc&) {
        std::uint64_t n = 0;
        for (const auto& species : run.config.species) n += species.count;
        failed.message = "not enough memory for this run (N = " + std::to_string(n) +
                         " particles); run fewer at once (--jobs)";
    } catch (const std::exception& e) {
        failed.message = std::string("internal error: ") + e.what();
    }
    failed.status = RunOutcome::Status::failed;
    return failed;
}

} // namespace choc
