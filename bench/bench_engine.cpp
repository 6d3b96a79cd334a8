// Engine benchmark: one config run with each event calendar, from the same start, and
// the collisions per second of each printed. The dynamics are identical (ties break by
// particle index in every calendar), so only the calendar's cost differs.
//
//     bench_engine CONFIG.toml [--set KEY=VALUE]...
#include <choc/kernel/engine.hpp>
#include <choc/run/config.hpp>

#include "boost_calendars.hpp"
#include <choc/errors.hpp>
#include <choc/init/initial_state.hpp>
#include <choc/run/settings_from_config.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

template <int D, class Cal>
void measure(const char* name, const choc::Config& config) {
    auto start = choc::make_initial_state<D>(config);
    choc::Engine<D, Cal> engine(start.box, start.particles, choc::engine_settings(config));
    const std::uint64_t collisions = config.run_collisions.value_or(1'000'000);
    const double until = config.run_time.value_or(choc::never);
    const auto t0 = std::chrono::steady_clock::now();
    engine.run(until, collisions, ~std::uint64_t{0});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto done = engine.tally().collisions;
    std::printf("%-14s N=%-8zu %10llu collisions  %.3f M collisions/s  (%llu stale)\n", name,
                engine.particles().size(), static_cast<unsigned long long>(done),
                static_cast<double>(done) / seconds / 1e6,
                static_cast<unsigned long long>(engine.tally().stale));
}

template <int D>
void measure_all(const choc::Config& config) {
    measure<D, choc::BucketBlockCalendar>("block+bucket", config);
    measure<D, choc::BlockCalendar>("block+heap", config);
    measure<D, choc::IndexedCalendar>("indexed", config);
    measure<D, choc::DaryCalendar>("boost d-ary", config);
    measure<D, choc::PairingCalendar>("boost pairing", config);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_engine CONFIG.toml [--set KEY=VALUE]...\n");
        return 2;
    }
    std::vector<std::string> sets;
    for (int k = 2; k + 1 < argc; k += 2)
        if (std::string(argv[k]) == "--set") sets.emplace_back(argv[k + 1]);
    try {
        const auto config = choc::load_config(argv[1], sets);
        if (config.dimension == 2)
            measure_all<2>(config);
        else
            measure_all<3>(config);
    } catch (const choc::InputError& e) {
        std::fprintf(stderr, "bench_engine: error: %s\n", e.what());
        return 2;
    }
}
