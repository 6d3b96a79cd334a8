// `choc sweep`: a study of many runs of one base config. A sweep file names the config,
// axes (a config key and its values), how they combine, replicas (seeds), the summary
// keys to collect and an output directory; every run has a directory of its own, and the
// results are aggregated into one table (mean, standard error over replicas, count).
// docs/REFERENCE.md, "choc sweep", describes the file and the table.
#pragma once

#include "choc/run/config.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace choc {

// One axis: a config key and its values, each as the TOML text that `--set` receives.
struct SweepAxis {
    std::string key;
    std::vector<std::string> values;
};

// One run: a point of the sweep and one of its replicas.
struct SweepRun {
    std::size_t point = 0, replica = 0;
    std::uint64_t seed = 0;
    std::string directory; // inside the sweep's output directory
    std::string summary;   // its summary's path
    std::string checkpoint;
    Config config; // the base config with the axes, the seed and the run's paths applied
};

struct SweepPlan {
    std::string source; // the sweep file
    std::string base;   // the base config's path
    std::string output; // the sweep's directory
    std::vector<SweepAxis> axes;
    bool zip = false;
    std::size_t points = 0, replicas = 1;
    std::vector<std::string> collect;                   // summary keys ("pressure.Z")
    std::vector<std::vector<std::string>> point_values; // [point][axis], TOML text
    std::vector<SweepRun> runs;                         // point by point, replicas inside
};

struct SweepFileOptions {
    std::vector<std::string> sets;     // --set: overrides of the base config
    std::optional<std::string> output; // --output: instead of the file's `output`
};

// SIGINT or SIGTERM arrived while load_sweep checked the runs (InterruptGuard): nothing
// was written; the command exits with status 130.
class SweepInterrupted : public std::runtime_error {
  public:
    SweepInterrupted() : std::runtime_error("interrupted while the sweep's runs were checked") {}
};

// Reads the sweep file and builds every run's config. Throws InputError naming the sweep
// file and the key (an axis's key and value, `collect[i]`, ...) on any problem, before
// anything is written, and SweepInterrupted when a signal comes meanwhile.
SweepPlan load_sweep(const std::string& path, const SweepFileOptions& options = {});

// The same from the file's text (the Python module's sweeps from a string or a dict):
// `source` names it in messages, `base_directory` is where a relative `config` is.
SweepPlan parse_sweep(const std::string& text, const std::string& source,
                      const std::string& base_directory, const SweepFileOptions& options = {});

// What one run gave, read from its summary (or why it has none).
struct RunOutcome {
    enum class Status { complete, interrupted, failed };
    Status status = Status::failed;
    bool collapsed = false;
    bool valid = true;
    std::vector<std::optional<double>> values; // one per collected key; null: not defined
    std::string message;                       // failed: why; invalid: the violation
};

// Per point and collected key: over the replicas that completed validly and define it.
struct SweepEstimate {
    std::optional<double> mean, sem; // sem: standard error of the mean (two or more)
    std::size_t n = 0;
};

struct SweepRow {
    std::size_t point = 0;
    std::size_t replicas = 0, collapsed = 0, invalid = 0;
    std::vector<SweepEstimate> estimates; // one per collected key
};

// The aggregated table (plan.points rows), from every run's outcome in plan order.
std::vector<SweepRow> aggregate(const SweepPlan& plan, const std::vector<RunOutcome>& outcomes);
std::string sweep_table_csv(const SweepPlan& plan, const std::vector<SweepRow>& rows);
std::string sweep_table_json(const SweepPlan& plan, const std::vector<SweepRow>& rows);

// How the runs are shared among processes: the root (rank 0) gathers; with one process
// every method is trivial. The MPI transport (apps/, built when MPI is found) sends
// messages between ranks; all of its methods are called from the main thread only.
class SweepTransport {
  public:
    virtual ~SweepTransport() = default;
    virtual int rank() const { return 0; }
    virtual int ranks() const { return 1; }
    // Every rank calls it once before anything runs: the lowest rank whose `failed` is
    // true, or -1 (all ranks agree to start or to stop).
    virtual int first_failing(bool failed) { return failed ? 0 : -1; }
    // A rank that is not the root sends a message to it.
    virtual void send(const std::string& /*message*/) {}
    // The root: the messages that have arrived, without waiting.
    virtual std::vector<std::string> receive() { return {}; }
};

struct SweepRunOptions {
    unsigned jobs = 1;                    // runs at once in this process
    std::size_t shard = 0, shards = 1;    // --shard I/N: runs with index % N == I
    bool quiet = false, terminal = false; // the progress line (root only)
    std::vector<std::string> command_line;
};

struct SweepResult {
    std::size_t runs = 0, complete = 0, ran = 0; // ran: in this invocation (all ranks)
    bool interrupted = false;
    std::vector<std::string> failures; // "DIR: message" of runs that could not run
    std::vector<std::string> invalid;  // "DIR: violation" of runs that broke an invariant
    std::size_t collapsed = 0;
    std::optional<std::vector<SweepRow>> table; // when every run is complete (root only)
    std::vector<std::string> written;           // the table's files
};

// Runs this process's share of the runs that are not complete (a run interrupted with a
// checkpoint goes on from it), `jobs` at a time, and on the root writes the table when
// every run is complete. Throws InputError before anything runs when a run's directory
// holds another config's run or the output directory is not a sweep's.
SweepResult run_sweep(const SweepPlan& plan, const SweepRunOptions& options,
                      SweepTransport& transport);

} // namespace choc
