#include "sweep_command.hpp"

#include "choc/errors.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/sweep/mpi.hpp"
#include "choc/sweep/sweep.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <memory>
#include <thread>

#include <unistd.h>

namespace choc {
namespace {

int fail(const std::string& message, int status) {
    std::string line = message;
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::cerr << "choc: error: " << line << std::endl;
    return status;
}

// "--shard I/N": 0 <= I < N.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    std::size_t i = 0, n = 0;
    bool ok = slash != std::string::npos;
    if (ok) {
        const char* begin = text.data();
        auto [end_i, error_i] = std::from_chars(begin, begin + slash, i);
        auto [end_n, error_n] = std::from_chars(begin + slash + 1, begin + text.size(), n);
        ok = error_i == std::errc{} && end_i == begin + slash && error_n == std::errc{} &&
             end_n == begin + text.size() && n > 0 && i < n;
    }
    if (!ok)
        throw InputError("--shard \"" + text +
                         "\": expected I/N with 0 <= I < N (e.g. --shard 0/4 for the first "
                         "of four shards)");
    return {i, n};
}

// "1 replica", "3 replicas"
std::string count(std::size_t n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

} // namespace

int sweep_command(const SweepArguments& args, int& argc, char**& argv,
                  const std::function<void()>& release_log) {
    InterruptGuard interrupts;
    std::unique_ptr<SweepTransport> transport;
    bool mpi = false;
    try {
        if (launched_by_mpi()) {
            if (mpi_description().empty())
                throw InputError("started by an MPI launcher, but this choc was built without "
                                 "MPI (choc --version says so): install libopenmpi-dev and "
                                 "rebuild, or use --shard to share the runs out");
            if (args.shard)
                throw InputError("--shard: not under an MPI launcher (the ranks share the runs "
                                 "out themselves)");
            transport = start_mpi(argc, argv);
            mpi = transport->ranks() > 1;
        } else {
            transport = std::make_unique<SweepTransport>();
        }
    } catch (const InputError& e) {
        return fail(e.what(), 2);
    }
    const bool root = transport->rank() == 0;
    try {
        SweepRunOptions options;
        if (args.shard) std::tie(options.shard, options.shards) = parse_shard(*args.shard);
        if (args.jobs && *args.jobs == 0)
            throw InputError("--jobs 0: give the number of runs at once, 1 or more");
        // Under MPI one run per rank by default: launchers place a rank per core.
        options.jobs =
            args.jobs.value_or(mpi ? 1u : std::max(1u, std::thread::hardware_concurrency()));
        options.quiet = args.quiet;
        options.terminal = isatty(STDERR_FILENO) != 0;
        options.command_line = args.command_line;
        SweepPlan plan;
        try {
            plan = load_sweep(args.sweep_path, {args.sets, args.output});
        } catch (const SweepInterrupted& e) {
            // (the ranks agree to stop, as for a refused file below)
            const int first = transport->first_failing(true);
            release_log();
            if (first == transport->rank()) spdlog::warn("{}; nothing was written", e.what());
            return 130;
        } catch (const InputError& e) {
            // The ranks agree before anything runs (run_sweep's first_failing is the same
            // collective call): a file one node cannot read stops them all, and the first
            // rank that refused says why (all of them alike: the root).
            const int first = transport->first_failing(true);
            return first == transport->rank() ? fail(e.what(), 2) : 2;
        }
        release_log();
        if (root)
            spdlog::info("sweep: {} x {} = {} into {}{}", count(plan.points, "point"),
                         count(plan.replicas, "replica"), count(plan.runs.size(), "run"),
                         plan.output,
                         mpi ? " over " + std::to_string(transport->ranks()) + " MPI ranks"
                             : " with " + std::to_string(options.jobs) + " jobs");
        // The runs' own log lines (equilibrating, events) would bury the progress line.
        spdlog::set_level(spdlog::level::warn);
        const SweepResult result = run_sweep(plan, options, *transport);
        if (!root) return 0;
        if (result.collapsed > 0)
            spdlog::warn("{} runs ended in an inelastic collapse (the table's `collapsed` "
                         "column counts them)",
                         result.collapsed);
        if (!result.failures.empty()) {
            const bool internal = std::any_of(
                result.failures.begin(), result.failures.end(), [](const std::string& f) {
                    return f.find(": internal error: ") != std::string::npos;
                });
            return fail(std::to_string(result.failures.size()) + " of " +
                            std::to_string(result.runs) +
                            " runs failed; the first: " + result.failures.front(),
                        internal ? 1 : 2);
        }
        if (result.interrupted) {
            spdlog::warn("interrupted: {} of {} runs complete; the same command goes on from "
                         "where each run stopped",
                         result.complete, result.runs);
            return 130;
        }
        if (!result.table) {
            std::cout << "shard " << options.shard << "/" << options.shards
                      << ": its runs are done; " << result.complete << " of " << result.runs
                      << " runs of the sweep are complete; the table is written when all are "
                         "(run choc sweep again once every shard has finished)"
                      << std::endl;
            return 0;
        }
        std::cout << "table written to " << result.written[0] << " and " << result.written[1]
                  << " (" << count(plan.points, "point") << " x " << count(plan.replicas, "replica")
                  << "; " << result.ran << " runs ran now, " << result.runs - result.ran
                  << " were complete)" << std::endl;
        if (!result.invalid.empty())
            return fail(std::to_string(result.invalid.size()) +
                            " runs broke a runtime invariant and cannot be trusted (the "
                            "table's `invalid` column counts them; they are left out of the "
                            "means); the first: " +
                            result.invalid.front(),
                        1);
        return 0;
    } catch (const InputError& e) {
        // (empty: another rank refused the sweep and said why)
        if (std::string(e.what()).empty()) return 2;
        return fail(e.what(), 2);
    } catch (const Interrupted& e) {
        // reading a config's mesh cut short (a run's own start is its sweep_run's to report)
        fail(e.what(), 130);
        if (mpi) abort_mpi(130);
        return 130;
    } catch (const std::exception& e) {
        fail(std::string("internal error: ") + e.what(), 1);
        if (mpi) abort_mpi(1);
        return 1;
    }
}

} // namespace choc
