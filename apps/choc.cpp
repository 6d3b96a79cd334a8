// The `choc` command line (docs/REFERENCE.md): parses arguments, runs, and turns every failure into
// one `choc: error:` line with exit status 2 (bad input), 3 (an inelastic collapse stopped the
// run) or 1 (internal failure).
#include "choc/collide/collide_file.hpp"
#include "choc/collide/collision_output.hpp"
#include "choc/collide/collision_plot.hpp"
#include "choc/collide/group_file.hpp"
#include "choc/errors.hpp"
#include "choc/plot/plot_path.hpp"
#include "choc/run/config.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/run/run.hpp"
#include "choc/sweep/mpi.hpp"
#include "choc_version.hpp"
#include "contact_command.hpp"
#include "sweep_command.hpp"

#include <CLI/CLI.hpp>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

const char* const run_footer = R"(
The config file is TOML with these sections (every key: docs/REFERENCE.md):
  dimension = 2 | 3        discs or spheres
  [box]                    packing_fraction or size, boundary, wall_restitution, or
                           wall_temperature and wall_velocity (thermal box walls)
  [[species]]              name, count, radius, mass, temperature
  [collisions]             restitution, epsilon, contact_gap, tc, on_collapse
  [[collisions.pair]]      a, b, restitution (per pair of species)
  [[walls]]                normal, point, restitution (or temperature and velocity: a
                           thermal wall): a plane; or in 2D from, to, restitution: a
                           two-sided segment whose end points are hit too; or in 3D
                           vertices (a triangle) or mesh (an STL file), with scale,
                           translate, restitution, sides (2, or 1: one-sided)
  [field]                  gravity, drag
  [init]                   lattice, velocities, temperature, seed, from,
                           region = { low, high } (where "random" places centres)
  [run]                    time and/or collisions, equilibrate
  [output]                 summary, trajectory = { path, every }, timeseries = { path, every },
                           histogram and velocity_histogram (a path, or { path, every } for
                           a snapshot every `every`), rdf, vacf,
                           profile (a path, or { path, axis, slabs }),
                           crossing = { point, normal } (particles through a plane),
                           checkpoint = { path, every }
With output.checkpoint, an interrupted or finished run goes on with
  choc run CONFIG --continue CHECKPOINT
to the config's limits, exactly as one uninterrupted run (the config may differ only in
run.time, run.collisions, output.checkpoint and output paths).
Any key can be overridden, e.g. --set box.packing_fraction=0.4 --set species[0].count=500
Exit status: 0 done, 2 bad input (one `choc: error:` line naming the key or file),
3 inelastic collapse (one `choc: error:` line naming the key to change; every output
covers the part run so far, the summary says "collapsed": true), 1 internal failure,
130 interrupted (the summary covers the part run so far).)";

const char* const sweep_footer = R"(
The sweep file is TOML (every key: docs/REFERENCE.md, "choc sweep"):
  config = "base.toml"     the base config (relative to the sweep file's directory)
  output = "out/study"     the sweep's directory (relative to the working directory)
  combine = "grid" | "zip" every combination of the axes' values, or side by side
  replicas = n             runs per point, init.seed = the point's seed + 0 ... n - 1
  collect = ["pressure.Z", "collision_rate"]   summary numbers to aggregate
  checkpoint_every = t     each run's checkpoint period (simulated time), for resuming
  [[axes]]                 key = "box.packing_fraction" and values = [...] or
                           range = { from, to, count } or { from, to, step }
Every run has its directory (OUTPUT/p003/r1) with its summary and outputs. The table
(OUTPUT/table.csv, OUTPUT/table.json) has per point and key the mean over replicas, its
standard error and the count. The same command again skips complete runs and goes on
with interrupted ones. Under mpirun or srun the ranks share the runs out (choc --version
says whether MPI is built in); --shard I/N runs one share of a job array.
Exit status: 0 done, 2 bad input (one `choc: error:` line naming the key or file),
1 a run failed or broke an invariant, 130 interrupted (the same command resumes).)";

const char* const collide_footer = R"(
The group file is TOML (every key: docs/REFERENCE.md, "choc collide"):
  dimension = 2 | 3        discs or spheres (default 3)
  restitution = e          0 <= e <= 1 for every contact (default 1)
  tolerance = t            bodies within t of contact touch, t relative to r_a + r_b
                           (to r against a wall); default 1e-9
  [[bodies]]               position, velocity, radius, mass (all required)
  [[walls]]                normal (towards the bodies), point, restitution (default e)
Bodies must touch (within the tolerance) and not overlap by more than it. Each connected
group of contacts is resolved together: momentum per body, impulses along the normals,
normal relative velocity -e times its value before; no contact may pull or be left
approaching. Prints velocities before/after and the impulse of each contact.
--plot draws the discs (3D: the x-y projection) with velocity arrows before and after.
Exit status: 0 done, 2 bad input (one `choc: error:` line naming the key or file),
1 internal failure.)";

// The contract promises exactly one line on stderr per error.
std::string one_line(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

int fail(const std::string& prefix, const std::string& message, int status) {
    std::cerr << "choc: " << prefix << one_line(message) << std::endl;
    return status;
}

void print_results(const choc::Summary& s, const std::string& summary_path) {
    std::cout << "summary written to " << summary_path << "\n"
              << "N = " << s.N << ", collisions = " << s.collisions << ", sim_time = " << s.sim_time
              << "\n"
              << "collisions_per_second = " << s.collisions_per_second
              << ", temperature = " << s.temperature << ", max_overlap = " << s.max_overlap
              << std::endl;
}

// Log lines written while the input is still being checked are held back: if it turns out
// bad, the one `choc: error:` line is all that reaches stderr (docs/REFERENCE.md, exit status).
// Once the run has started they are printed, and later lines go straight to stderr.
class HeldBackSink : public spdlog::sinks::base_sink<std::mutex> {
  public:
    void release() {
        std::lock_guard<std::mutex> lock(mutex_);
        live_ = true;
        for (const auto& line : held_) std::fputs(line.c_str(), stderr);
        held_.clear();
    }

  protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        spdlog::memory_buf_t formatted;
        formatter_->format(msg, formatted);
        std::string line(formatted.data(), formatted.size());
        if (live_)
            std::fputs(line.c_str(), stderr);
        else
            held_.push_back(std::move(line));
    }
    void flush_() override { std::fflush(stderr); }

  private:
    bool live_ = false;
    std::vector<std::string> held_;
};

struct CollideArguments {
    std::string group_path;
    bool json = false;
    std::optional<std::string> plot_path;
};

// `choc collide`: read the group, check the plot path before any work, resolve, draw,
// and print only once everything has succeeded.
int collide(const CollideArguments& args, HeldBackSink& sink) {
    try {
        const choc::GroupFile file = choc::load_group_file(args.group_path);
        if (args.plot_path) choc::check_plot_path(*args.plot_path, "--plot");
        const choc::CollisionReport report = choc::collide_group_file(file);
        if (args.plot_path) choc::write_collision_plot(report, *args.plot_path);
        sink.release();
        for (const auto& note : report.notes) spdlog::warn("{}", note);
        std::cout << (args.json ? choc::collision_json(report) + "\n"
                                : choc::collision_table(report))
                  << std::flush;
        return 0;
    } catch (const choc::InputError& e) {
        return fail("error: ", e.what(), 2);
    } catch (const std::exception& e) {
        sink.release();
        return fail("internal error: ", e.what(), 1);
    }
}

// An option given to the wrong command, `choc run --jobs 2`: CLI11 says "The following
// arguments were not expected: 2 --jobs" (issue 43). Say which command has it, or that
// none does, and where to look.
std::optional<std::string> misplaced_option(CLI::App& app) {
    const auto all = app.get_subcommands([](CLI::App*) { return true; });
    for (CLI::App* command : all) {
        if (!command->parsed()) continue;
        for (const std::string& extra : command->remaining()) {
            if (extra.rfind("--", 0) != 0) continue;
            const std::string name = extra.substr(0, extra.find('='));
            const std::string here = "choc " + command->get_name();
            for (CLI::App* other : all)
                if (other != command && other->get_option_no_throw(name) != nullptr)
                    return name + " is an option of `choc " + other->get_name() + "`, not of `" +
                           here + "` (" + here + " --help lists its options)";
            return "`" + here + "` has no option " + name + " (" + here +
                   " --help lists its options)";
        }
    }
    return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
    // Progress and log messages go to stderr; stdout carries only results.
    auto sink = std::make_shared<HeldBackSink>();
    auto logger = std::make_shared<spdlog::logger>("choc", sink);
    logger->set_pattern("[choc] %v");
    spdlog::set_default_logger(logger);

    CLI::App app{"choc: event-driven molecular dynamics of hard discs and spheres", "choc"};
    const std::string mpi = choc::mpi_description();
    app.set_version_flag("--version", std::string("choc ") + choc::version +
                                          "\nMPI: " + (mpi.empty() ? "not built in" : mpi));
    app.require_subcommand(1);

    std::string config_path;
    std::vector<std::string> sets;
    std::optional<std::string> summary_path, continue_from;
    bool quiet = false;
    CLI::App* run = app.add_subcommand("run", "Run a simulation described by a TOML config file");
    run->add_option("CONFIG", config_path, "TOML config file")->required();
    // One value per --set, so that `--set a=1 CONFIG` does not swallow CONFIG.
    run->add_option("--set", sets, "Override a config key by its dotted path")
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
    run->add_option("--summary", summary_path, "Write the summary here (overrides output.summary)");
    run->add_flag("--quiet", quiet, "No progress line, only warnings and errors");
    run->add_option("--continue", continue_from,
                    "Go on from this checkpoint (output.checkpoint) to the config's limits")
        ->type_name("CHECKPOINT");
    run->footer(run_footer);

    choc::SweepArguments sweep_args;
    CLI::App* sweep = app.add_subcommand(
        "sweep", "Run every point of a sweep file (axes x replicas) and aggregate a table");
    sweep->add_option("SWEEP", sweep_args.sweep_path, "TOML sweep file")->required();
    sweep->add_option("--set", sweep_args.sets, "Override a key of the base config")
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
    sweep->add_option("--output", sweep_args.output, "The sweep's directory (overrides output)")
        ->type_name("DIR");
    sweep
        ->add_option("--jobs", sweep_args.jobs,
                     "Runs at once (default: every core; under MPI 1 per rank)")
        ->type_name("N");
    sweep
        ->add_option("--shard", sweep_args.shard,
                     "Run only the runs with index % N == I (a job array's task)")
        ->type_name("I/N");
    sweep->add_flag("--quiet", sweep_args.quiet, "No progress line, only warnings and errors");
    sweep->footer(sweep_footer);

    CollideArguments collide_args;
    CLI::App* collide_command = app.add_subcommand(
        "collide", "Resolve one group of simultaneous collisions described by a TOML file");
    collide_command->add_option("GROUP", collide_args.group_path, "TOML group file")->required();
    collide_command->add_flag("--json", collide_args.json,
                              "Print the result as JSON (docs/REFERENCE.md) instead of a table");
    collide_command
        ->add_option("--plot", collide_args.plot_path,
                     "Draw the bodies and velocities before and after to PATH (.png or .svg)")
        ->type_name("PATH");
    collide_command->footer(collide_footer);

    choc::ContactArguments contact_args;
    CLI::App* contact = app.add_subcommand(
        "contact",
        "Integrate the spring-dashpot contact of a TOML file against its exact solution");
    contact->add_option("CONTACT", contact_args.contact_path, "TOML contact file")->required();
    contact->add_flag("--json", contact_args.json,
                      "Print the result as JSON (docs/REFERENCE.md) instead of a table");
    contact
        ->add_option("--plot", contact_args.plot_path,
                     "Draw delta(t) and the errors against dt to PATH (.png or .svg)")
        ->type_name("PATH");
    contact->footer(choc::contact_footer);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e); // --help, --version
        return fail("error: ", misplaced_option(app).value_or(e.what()), 2);
    }

    if (collide_command->parsed()) return collide(collide_args, *sink);
    if (contact->parsed()) return choc::contact_command(contact_args, [&] { sink->release(); });
    if (sweep->parsed()) {
        if (sweep_args.quiet) spdlog::set_level(spdlog::level::warn);
        sweep_args.command_line.assign(argv, argv + argc);
        return choc::sweep_command(sweep_args, argc, argv, [&] { sink->release(); });
    }

    // SIGINT/SIGTERM are recorded from before the config is read, so a signal at any
    // moment of a run gives status 130 and a summary (README), never a kill.
    choc::InterruptGuard interrupts;
    // A read that cannot stop at a check (inside HDF5, of init.from) ends at a signal with
    // status 130 from the handler (interrupt.hpp, ExitOnInterrupt).
    choc::exit_on_interrupt_allowed = true;
    std::optional<std::uint64_t> particles; // N, once the config is read
    std::uint64_t triangles = 0;            // of the walls, once the config is read
    try {
        if (quiet) spdlog::set_level(spdlog::level::warn);
        choc::Config config = choc::load_config(config_path, sets);
        particles = 0;
        for (const auto& species : config.species) *particles += species.count;
        for (const auto& wall : config.walls) triangles += wall.triangles.size();
        choc::RunOptions options;
        options.quiet = quiet;
        options.terminal = isatty(STDERR_FILENO) != 0;
        options.summary_path = summary_path;
        options.continue_from = continue_from;
        options.command_line.assign(argv, argv + argc);
        options.started = [&] { sink->release(); };
        choc::Summary summary = choc::run_simulation(config, options);
        print_results(summary, summary_path.value_or(config.summary));
        // Interrupted (SIGINT): the summary covers the part run; 128 + SIGINT tells scripts
        // the run did not finish.
        return summary.interrupted ? 130 : 0;
    } catch (const choc::InputError& e) {
        return fail("error: ", e.what(), 2);
    } catch (const choc::InelasticCollapse& e) {
        // A physical outcome, not bad input: the outputs of the part run are written.
        return fail("error: ", e.what(), 3);
    } catch (const choc::Interrupted& e) {
        // A long stage of the start (a large mesh) cut short: nothing written.
        return fail("", e.what(), 130);
    } catch (const std::bad_alloc&) {
        // A system too large for this machine is bad input, not a crash. Output files are
        // written atomically, so nothing half-written is left. What is large is named: the
        // particles, and the mesh triangles when there are any.
        const std::string what =
            !particles ? "not enough memory to read this config"
            : triangles > 0
                ? "not enough memory for this system (N = " + std::to_string(*particles) +
                      " particles, " + std::to_string(triangles) +
                      " wall triangles); use fewer particles or a coarser mesh"
                : "not enough memory for this system (N = " + std::to_string(*particles) +
                      " particles); use fewer particles";
        return fail("error: ", config_path + ": " + what, 2);
    } catch (const std::exception& e) {
        sink->release(); // whatever was logged may help explain an internal failure
        return fail("internal error: ", e.what(), 1);
    }
}
