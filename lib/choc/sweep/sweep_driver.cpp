// Running a sweep: this process's share of the runs on `jobs` worker threads, the main
// thread reporting each start and end to the root (rank 0), which keeps the progress line
// and, once every run is complete, writes the table.
//
// Threads: each worker calls run_simulation, which shares nothing between runs (the
// interrupt flag is read by all, so Ctrl-C stops every run at once, each leaving its
// checkpoint and an interrupted summary). Only the main thread talks to the transport
// (MPI_THREAD_FUNNELED).
#include "choc/sweep/sweep.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/message_text.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/sweep/sweep_progress.hpp"
#include "choc/sweep/sweep_run.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>

namespace choc {
namespace {

namespace fs = std::filesystem;
using PlainJson = nlohmann::json; // (summary.cpp and sweep_table.cpp call ordered_json Json)

// A point directory of the layout before points were named by their values: p000, ...
bool numbered_point(const std::string& name) {
    return name.size() > 1 && name[0] == 'p' &&
           std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What sweeps write in their directory: point directories (p_KEY=VALUE,...: sweep_file.cpp,
// point_directory), the table, and the table's temporaries (atomic_file.hpp:
// ".table.csv.choc-PID-RANDOM.tmp"). A point no longer in the sweep (a value taken out)
// stays, unread.
bool sweep_entry(const std::string& name) {
    if (name.starts_with("p_")) return true;
    if (name == "table.csv" || name == "table.json") return true;
    return (name.starts_with(".table.csv.choc-") || name.starts_with(".table.json.choc-")) &&
           name.ends_with(".tmp");
}

// The sweep's directory holds only what sweeps write there: anything else is another use
// of that directory.
void check_output_directory(const SweepPlan& plan) {
    std::error_code error;
    if (!fs::exists(plan.output, error)) return;
    if (!fs::is_directory(plan.output, error))
        throw InputError("output: \"" + escaped(plan.output) + "\" is not a directory");
    for (const auto& entry : fs::directory_iterator(plan.output, error)) {
        const std::string name = entry.path().filename().string();
        if (numbered_point(name))
            throw InputError("output: \"" + escaped(plan.output) + "\" holds \"" + escaped(name) +
                             "\", a point directory of a sweep numbered by position; points are "
                             "now named by their values (p_KEY=VALUE,...), so its runs would all "
                             "run again: give the sweep another output directory (or move that "
                             "one away)");
        if (!sweep_entry(name))
            throw InputError("output: \"" + escaped(plan.output) + "\" holds \"" + escaped(name) +
                             "\", which no sweep writes; give the sweep an empty or new "
                             "directory");
    }
    if (error)
        throw InputError("output: cannot read \"" + escaped(plan.output) +
                         "\": " + error.message());
}

const char* status_name(RunOutcome::Status s) {
    switch (s) {
    case RunOutcome::Status::complete:
        return "complete";
    case RunOutcome::Status::interrupted:
        return "interrupted";
    default:
        return "failed";
    }
}

RunOutcome::Status status_from(const std::string& name) {
    if (name == "complete") return RunOutcome::Status::complete;
    if (name == "interrupted") return RunOutcome::Status::interrupted;
    return RunOutcome::Status::failed;
}

// What a worker (or a rank) reports: a run started, a run ended (ran: in this invocation,
// else found complete), or this rank has nothing more to report.
struct Event {
    enum class Kind { started, finished, done } kind = Kind::done;
    std::size_t run = 0;
    bool ran = false;
    RunOutcome outcome;
};

// Values travel as JSON numbers, which read back as the same doubles.
std::string encode(const Event& e) {
    PlainJson j;
    j["event"] = e.kind == Event::Kind::started    ? "started"
                 : e.kind == Event::Kind::finished ? "finished"
                                                   : "done";
    j["run"] = e.run;
    if (e.kind == Event::Kind::finished) {
        j["ran"] = e.ran;
        j["status"] = status_name(e.outcome.status);
        j["collapsed"] = e.outcome.collapsed;
        j["valid"] = e.outcome.valid;
        j["message"] = e.outcome.message;
        PlainJson values = PlainJson::array();
        for (const auto& v : e.outcome.values)
            values.push_back(v ? PlainJson(*v) : PlainJson(nullptr));
        j["values"] = values;
    }
    return j.dump();
}

Event decode(const std::string& text) {
    const PlainJson j = PlainJson::parse(text);
    Event e;
    const std::string kind = j.at("event").get<std::string>();
    e.kind = kind == "started"    ? Event::Kind::started
             : kind == "finished" ? Event::Kind::finished
                                  : Event::Kind::done;
    e.run = j.at("run").get<std::size_t>();
    if (e.kind == Event::Kind::finished) {
        e.ran = j.at("ran").get<bool>();
        e.outcome.status = status_from(j.at("status").get<std::string>());
        e.outcome.collapsed = j.at("collapsed").get<bool>();
        e.outcome.valid = j.at("valid").get<bool>();
        e.outcome.message = j.at("message").get<std::string>();
        for (const auto& v : j.at("values"))
            e.outcome.values.push_back(v.is_null() ? std::nullopt : std::optional(v.get<double>()));
    }
    return e;
}

// Events from the workers to the main thread.
class EventQueue {
  public:
    void push(Event e) {
        {
            std::lock_guard lock(mutex_);
            events_.push_back(std::move(e));
        }
        ready_.notify_one();
    }
    // Waits up to `wait` for an event; returns all that have arrived.
    std::deque<Event> take(std::chrono::milliseconds wait) {
        std::unique_lock lock(mutex_);
        ready_.wait_for(lock, wait, [this] { return !events_.empty(); });
        std::deque<Event> taken;
        taken.swap(events_);
        return taken;
    }

  private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<Event> events_;
};

} // namespace

SweepResult run_sweep(const SweepPlan& plan, const SweepRunOptions& options,
                      SweepTransport& transport) {
    InterruptGuard interrupts; // (nested inside the program's own, which keeps the handlers)
    const bool root = transport.rank() == 0;
    const bool mpi = transport.ranks() > 1;
    const std::size_t share = mpi ? static_cast<std::size_t>(transport.rank()) : options.shard;
    const std::size_t shares = mpi ? static_cast<std::size_t>(transport.ranks()) : options.shards;
    auto in_scope = [&](std::size_t i) { return i % shares == share; };

    // Everything is checked before anything runs, on every rank; all agree to go on.
    std::vector<Inspection> inspections(plan.runs.size());
    std::optional<std::string> refusal;
    try {
        check_output_directory(plan);
        for (std::size_t i = 0; i < plan.runs.size(); ++i)
            if (in_scope(i)) inspections[i] = inspect(plan.runs[i]);
    } catch (const InputError& e) {
        refusal = e.what();
    }
    const int failing = transport.first_failing(refusal.has_value());
    if (failing >= 0) // (an empty message: another rank refused and says why)
        throw InputError(failing == transport.rank() ? *refusal : std::string());

    std::vector<std::size_t> todo;
    EventQueue queue;
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        if (!in_scope(i)) continue;
        if (inspections[i].state == RunState::complete) {
            Event e{Event::Kind::finished, i, false,
                    outcome_of(inspections[i].summary, plan.collect)};
            queue.push(std::move(e));
        } else {
            todo.push_back(i);
        }
    }

    std::atomic<std::size_t> next{0};
    // Set when the main thread leaves by an exception: the workers take no new run (the
    // threads are joined on the way out, after the runs in progress end).
    std::atomic<bool> abandon{false};
    struct Abandon {
        std::atomic<bool>& flag;
        ~Abandon() { flag = true; }
    };
    std::vector<std::jthread> workers;
    const std::size_t jobs = std::min<std::size_t>(std::max(1u, options.jobs), todo.size());
    std::atomic<std::size_t> working{jobs};
    for (std::size_t w = 0; w < jobs; ++w)
        workers.emplace_back([&] {
            for (;;) {
                if (InterruptGuard::requested() || abandon) break;
                const std::size_t k = next++;
                if (k >= todo.size()) break;
                const std::size_t i = todo[k];
                queue.push({Event::Kind::started, i, false, {}});
                RunOutcome outcome =
                    execute(plan.runs[i], inspections[i].state, plan.collect, options.command_line);
                queue.push({Event::Kind::finished, i, true, std::move(outcome)});
            }
            if (--working == 0) queue.push({Event::Kind::done, 0, false, {}});
        });
    const Abandon on_exception{abandon}; // (destroyed before the workers: joined after)
    if (jobs == 0) queue.push({Event::Kind::done, 0, false, {}});

    // The root's view of the whole sweep (a shard's: of its share).
    std::size_t scope = 0;
    for (std::size_t i = 0; i < plan.runs.size(); ++i) scope += in_scope(i) ? 1 : 0;
    if (mpi) scope = plan.runs.size();
    SweepProgress progress(root && !options.quiet, options.terminal, scope);
    std::vector<std::optional<RunOutcome>> outcomes(plan.runs.size());
    SweepResult result;
    result.runs = plan.runs.size();
    int done = 0; // ranks (this one included) with nothing more to report
    auto apply = [&](Event e) {
        switch (e.kind) {
        case Event::Kind::started:
            progress.started();
            break;
        case Event::Kind::finished:
            progress.finished(e.ran, e.outcome.status == RunOutcome::Status::complete);
            if (e.ran) ++result.ran;
            outcomes[e.run] = std::move(e.outcome);
            break;
        case Event::Kind::done:
            ++done;
            break;
        }
    };
    const int expected = root ? transport.ranks() : 1;
    while (done < expected) {
        for (Event& e : queue.take(std::chrono::milliseconds(200))) {
            if (!root && e.kind != Event::Kind::done) transport.send(encode(e));
            apply(std::move(e));
        }
        if (root)
            for (const auto& message : transport.receive()) apply(decode(message));
        progress.show();
    }
    if (!root) transport.send(encode({Event::Kind::done, 0, false, {}}));
    workers.clear(); // (each has already returned)
    progress.finish();
    result.interrupted = InterruptGuard::requested();
    if (!root) return result;

    // A shard reads the runs of the others from disk: the last one to finish writes the table.
    for (std::size_t i = 0; i < plan.runs.size(); ++i)
        if (!outcomes[i] && !in_scope(i)) try {
                const Inspection found = inspect(plan.runs[i]);
                if (found.state == RunState::complete)
                    outcomes[i] = outcome_of(found.summary, plan.collect);
            } catch (const InputError&) {
                // not this shard's to judge: the shard that owns the run reports it
            }
    std::vector<RunOutcome> all;
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        if (!outcomes[i]) continue;
        const RunOutcome& o = *outcomes[i];
        const std::string& directory = plan.runs[i].directory;
        if (o.status == RunOutcome::Status::failed)
            result.failures.push_back(directory + ": " + o.message);
        if (o.status == RunOutcome::Status::interrupted) result.interrupted = true;
        if (o.status != RunOutcome::Status::complete) continue;
        ++result.complete;
        if (o.collapsed) ++result.collapsed;
        if (!o.valid) result.invalid.push_back(directory + ": " + o.message);
    }
    if (result.complete < plan.runs.size()) return result;
    for (auto& o : outcomes) all.push_back(std::move(*o));
    result.table = aggregate(plan, all);
    const std::string csv = (fs::path(plan.output) / "table.csv").string();
    const std::string json = (fs::path(plan.output) / "table.json").string();
    fs::create_directories(plan.output);
    write_file_atomically(csv, sweep_table_csv(plan, *result.table), "output");
    write_file_atomically(json, sweep_table_json(plan, *result.table), "output");
    result.written = {csv, json};
    return result;
}

} // namespace choc
