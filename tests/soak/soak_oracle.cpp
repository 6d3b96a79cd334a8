// The differential oracle: choc's engine against the reference simulator
// (reference_sim.hpp), event by event, on long runs of small systems (oracle_run.hpp,
// oracle_systems.hpp).
//
//   soak_oracle --slice fast    the runs of fixed bugs (fixed_runs), then fixed seeds, about
//                               a minute and a half (suite 'unit')
//   soak_oracle --slice long    random seeds (printed), about 15 minutes, at least 1e6 pair
//                               collisions per family (suite 'soak')
//   soak_oracle --family F --seed S --n N --collisions C
//                               one run: the command line a failure prints
// Options: --families a,b (a subset), --per-particle X (pair collisions per particle
// between syncs), --tolerance X (relative), --seconds S (long slice: per family, at
// least), --fast-scale X (fast slice: X times each family's collisions), --keep-going 1
// (a family goes on after a failure: counts how often a bug shows), --base B (long
// slice: seeds from B instead of random ones, to repeat a slice), --verbose 1|2 (on
// stderr, a line per run | and per sync).
// At the end one line per family: runs, collisions and events compared, syncs, worst
// time and state mismatches (relative), groups, failures. Exit status 1 on any failure.
#include "oracle_run.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

using namespace oracle;

namespace {

struct Family {
    std::string name;
    int n_min, n_max;
    std::function<RunStats(const RunSpec&)> run;
    std::uint64_t fast = 120000;    // pair collisions in the fast slice
    std::uint64_t fast_run = 30000; // ... and at most in each of its runs
    int fast_n_max = 0;             // ... and at most this N (0: n_max)
};

template <int D>
RunStats run_system(const System<D>& sys, const RunSpec& spec) {
    if (sys.field) return run_oracle<D>(sys, choc::Field<D>(sys.gravity, sys.drag), spec);
    return run_oracle<D>(sys, choc::Ballistic<D>{}, spec);
}

template <int D, System<D> (*Build)(std::uint64_t, int)>
Family family(std::string name, int n_min, int n_max, std::uint64_t fast = 120000,
              std::uint64_t fast_run = 30000, int fast_n_max = 0) {
    return {std::move(name),
            n_min,
            n_max,
            [](const RunSpec& spec) { return run_system<D>(Build(spec.seed, spec.n), spec); },
            fast,
            fast_run,
            fast_n_max};
}

// N from 8 to 200; the dense and the lattice families start higher (a dense box of
// fewer particles is narrower than three diameters); piles have 200 to 2000.
std::vector<Family> families() {
    return {
        // ten times the budget: where a scheduling bug shows most often (oracle_systems.hpp)
        family<3, scheduler>("sched3d", 16, 48, 1200000),
        family<3, gas<3>>("gas3d", 8, 200),
        family<2, gas<2>>("gas2d", 8, 200),
        family<3, mixture<3>>("mix3d", 8, 150),
        family<2, mixture<2>>("mix2d", 8, 150),
        family<3, levels<3>>("levels3d", 16, 200),
        family<2, levels<2>>("levels2d", 16, 200),
        family<3, walls<3>>("walls3d", 8, 150),
        family<2, walls<2>>("walls2d", 8, 150),
        family<2, segments>("segments2d", 8, 120),
        family<3, triangles>("triangles3d", 8, 120),
        family<3, triangles<true>>("one_sided3d", 8, 120),
        // the reference looks at every one of up to 126 triangles: short runs, so that the
        // slice holds every variant (groups on a mesh floor among them)
        family<3, flat_meshes>("flat3d", 8, 80, 40000, 10000),
        family<3, gravity<3>>("gravity3d", 8, 120),
        family<2, gravity<2>>("gravity2d", 8, 120),
        family<3, drag<3>>("drag3d", 8, 120),
        family<3, inelastic_gas<3>>("inelastic3d", 8, 150),
        family<2, inelastic_gas<2>>("inelastic2d", 8, 150),
        family<3, groups<3>>("groups3d", 8, 125),
        family<2, groups<2>>("groups2d", 8, 144),
        family<3, groups<3, true>>("touching3d", 8, 125),
        family<2, groups<2, true>>("touching2d", 8, 144),
        // collisions exactly at the cell boundaries, inside a group's window
        family<3, groups<3, false, true>>("aligned3d", 8, 125),
        family<2, groups<2, false, true>>("aligned2d", 8, 144),
        // settling piles (the seed scan's, without the rest model): their size is the point,
        // but the reference plans every particle again at each sync (every N / 4
        // collisions), against up to 64 segments or 32 triangles: the fast slice has short
        // runs of at most 500
        family<3, piles<3>>("piles3d", 200, 2000, 40000, 5000, 500),
        family<2, piles<2>>("piles2d", 200, 2000, 40000, 5000, 500),
    };
}

// Runs that failed on an engine bug since fixed: the fast slice runs them first.
struct FixedRun {
    const char* family;
    std::uint64_t seed;
    int n;
    std::uint64_t collisions;
};
constexpr FixedRun fixed_runs[] = {
    // a group step missed the runner-up of a particle it took, 3.8e-7 later with epsilon =
    // 1e-6: sphere 206 met 229 alone, and 91 after the step (group_step.hpp add_touching)
    {"piles3d", 2, 253, 30000},
};

struct Totals {
    std::uint64_t runs = 0, collisions = 0, events = 0, syncs = 0, failures = 0;
    std::uint64_t engine_groups = 0, reference_groups = 0, roundoff_events = 0, excused = 0;
    std::uint64_t busy = 0; // runs ended busy (oracle_run.hpp): the model's cost
    double worst_dt = 0.0, worst_state = 0.0;
    double seconds = 0.0;
};

std::string command(const std::string& family, const RunSpec& spec, const RunSpec& defaults) {
    std::string c = "build/tests/soak/soak_oracle --family " + family + " --seed " +
                    std::to_string(spec.seed) + " --n " + std::to_string(spec.n) +
                    " --collisions " + std::to_string(spec.collisions);
    char number[32];
    if (spec.per_particle != defaults.per_particle) {
        std::snprintf(number, sizeof number, "%.17g", spec.per_particle);
        c += std::string(" --per-particle ") + number;
    }
    if (spec.tolerance != defaults.tolerance) {
        std::snprintf(number, sizeof number, "%.17g", spec.tolerance);
        c += std::string(" --tolerance ") + number;
    }
    return c;
}

// One run; prints and counts a failure.
void one_run(const Family& f, const RunSpec& spec, const RunSpec& defaults, Totals& t) {
    const auto start = std::chrono::steady_clock::now();
    RunStats r;
    try {
        r = f.run(spec);
    } catch (const std::exception& e) {
        r.failed = true;
        r.message = std::string("exception: ") + e.what();
    }
    t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spec.verbose)
        std::fprintf(stderr, "run %s: %llu collisions, worst dt/tol %.1e, worst state %.1e\n",
                     command(f.name, spec, defaults).c_str(),
                     static_cast<unsigned long long>(r.collisions), r.worst_dt, r.worst_state);
    ++t.runs;
    t.collisions += r.collisions;
    t.events += r.events;
    t.syncs += r.syncs;
    t.engine_groups += r.engine_groups;
    t.reference_groups += r.reference_groups;
    t.roundoff_events += r.roundoff_events;
    t.excused += r.excused;
    t.busy += r.busy;
    t.worst_dt = std::max(t.worst_dt, r.worst_dt);
    t.worst_state = std::max(t.worst_state, r.worst_state);
    if (r.failed) {
        ++t.failures;
        std::printf("FAIL family %s, seed %llu, n %d: %s\n  reproduce: %s\n", f.name.c_str(),
                    static_cast<unsigned long long>(spec.seed), spec.n, r.message.c_str(),
                    command(f.name, spec, defaults).c_str());
        std::fflush(stdout);
    }
}

void summary(const std::string& name, const Totals& t) {
    std::printf(
        "%-12s runs %4llu  collisions %9llu  events %9llu  syncs %6llu  worst dt/tol %.1e  "
        "worst state %.1e  groups %llu/%llu  round-off events %llu  excused %llu  busy %llu  "
        "failures %llu  (%.0f s)\n",
        name.c_str(), static_cast<unsigned long long>(t.runs),
        static_cast<unsigned long long>(t.collisions), static_cast<unsigned long long>(t.events),
        static_cast<unsigned long long>(t.syncs), t.worst_dt, t.worst_state,
        static_cast<unsigned long long>(t.engine_groups),
        static_cast<unsigned long long>(t.reference_groups),
        static_cast<unsigned long long>(t.roundoff_events),
        static_cast<unsigned long long>(t.excused), static_cast<unsigned long long>(t.busy),
        static_cast<unsigned long long>(t.failures), t.seconds);
    std::fflush(stdout);
}

std::uint64_t random_seed() {
    std::uint64_t s = 0;
    std::ifstream urandom("/dev/urandom", std::ios::binary);
    urandom.read(reinterpret_cast<char*>(&s), sizeof s);
    if (!urandom)
        s = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    return s >> 16; // short enough to read and type
}

int pick_n(const Family& f, std::uint64_t seed, int n_max) {
    std::mt19937_64 rng(seed * 0x2545f4914f6cdd1dull + 1);
    return f.n_min + static_cast<int>(rng() % static_cast<std::uint64_t>(n_max - f.n_min + 1));
}

int usage() {
    std::fprintf(
        stderr,
        "usage: soak_oracle --slice fast|long [--families a,b] [--seconds S] [--fast-scale X]\n"
        "                   [--keep-going 1] [--base B]\n"
        "       soak_oracle --family F --seed S --n N [--collisions C]\n"
        "       common: [--per-particle X] [--tolerance X] [--verbose 1|2]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    spdlog::set_level(spdlog::level::err); // the starting-state code's notes
    std::string slice, only, one;
    const RunSpec defaults;
    RunSpec spec;
    spec.collisions = 20000;
    double seconds = 55.0;   // long slice: per family, at least
    double fast_scale = 1.0; // fast slice: of each family's collisions
    bool keep_going = false; // a family goes on after its first failure
    bool have_seed = false, have_n = false, have_base = false;
    std::uint64_t base_seed = 0; // long slice: instead of random seeds
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if (k + 1 >= argc) return usage();
        const std::string value = argv[++k];
        if (arg == "--slice")
            slice = value;
        else if (arg == "--families")
            only = "," + value + ",";
        else if (arg == "--family")
            one = value;
        else if (arg == "--seed")
            spec.seed = std::stoull(value), have_seed = true;
        else if (arg == "--n")
            spec.n = std::stoi(value), have_n = true;
        else if (arg == "--collisions")
            spec.collisions = std::stoull(value);
        else if (arg == "--per-particle")
            spec.per_particle = std::stod(value);
        else if (arg == "--tolerance")
            spec.tolerance = std::stod(value);
        else if (arg == "--seconds")
            seconds = std::stod(value);
        else if (arg == "--base")
            base_seed = std::stoull(value), have_base = true;
        else if (arg == "--keep-going")
            keep_going = value == "1";
        else if (arg == "--fast-scale")
            fast_scale = std::stod(value);
        else if (arg == "--verbose")
            spec.verbose = std::stoi(value);
        else
            return usage();
    }
    const std::vector<Family> all = families();
    bool failed = false;

    if (!one.empty()) {
        if (!have_seed || !have_n || !slice.empty()) return usage();
        for (const Family& f : all)
            if (f.name == one) {
                Totals t;
                one_run(f, spec, defaults, t);
                summary(f.name, t);
                return t.failures > 0 ? 1 : 0;
            }
        std::fprintf(stderr, "soak_oracle: no family %s\n", one.c_str());
        return 2;
    }
    if (slice != "fast" && slice != "long") return usage();

    for (const Family& f : all) {
        if (!only.empty() && only.find("," + f.name + ",") == std::string::npos) continue;
        Totals t;
        if (slice == "fast") {
            for (const FixedRun& r : fixed_runs) {
                if (f.name != r.family) continue;
                RunSpec s = spec;
                s.seed = r.seed;
                s.n = r.n;
                s.collisions = std::max<std::uint64_t>(
                    1000,
                    static_cast<std::uint64_t>(static_cast<double>(r.collisions) * fast_scale));
                one_run(f, s, defaults, t);
            }
            // fixed seeds 1, 2, ...: the same runs every time
            for (std::uint64_t seed = 1; t.collisions < f.fast * fast_scale && seed <= 400 &&
                                         (keep_going || t.failures == 0);
                 ++seed) {
                RunSpec s = spec;
                s.seed = seed;
                s.n = pick_n(f, seed, f.fast_n_max > 0 ? f.fast_n_max : f.n_max);
                s.collisions = f.fast_run;
                one_run(f, s, defaults, t);
            }
        } else {
            const std::uint64_t base = have_base ? base_seed : random_seed();
            std::printf("%-12s seeds from %llu\n", f.name.c_str(),
                        static_cast<unsigned long long>(base));
            std::fflush(stdout);
            for (std::uint64_t r = 0;
                 (t.collisions < 1000000 || t.seconds < seconds) && (keep_going || t.failures == 0);
                 ++r) {
                RunSpec s = spec;
                s.seed = base + r;
                s.n = pick_n(f, s.seed, f.n_max);
                s.collisions = 100000 + (s.seed % 3) * 100000;
                one_run(f, s, defaults, t);
            }
        }
        summary(f.name, t);
        failed = failed || t.failures > 0;
    }
    return failed ? 1 : 0;
}
