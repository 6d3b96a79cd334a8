// Calendar benchmark: a synthetic event loop shaped like EDMD, timed for each calendar.
//
// Each particle's entry is its next event, a mean free time tau = 1 ahead on average
// (exponential waits), so with N particles the clock advances ~tau / N per event, as in
// a real run. One event: take the top particle, reschedule it and one random partner
// (a collision reschedules both), and every 4th event one more random particle (a
// stale prediction invalidated by a third party). An "op" is one set() call; top() and
// top_time() are not counted. Fixed seed, so the workload is the same for every calendar
// and the checksum line shows they all produce the same event order.
#include "boost_calendars.hpp"
#include "reference_calendar.hpp"
#include <choc/kernel/calendar.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>

namespace {

struct Result {
    double ops_per_second;
    std::uint64_t checksum; // sum of top indices, to compare calendars and keep the work
};

template <class Cal>
Result run(std::size_t n, long events) {
    std::mt19937_64 rng(42);
    std::exponential_distribution<double> wait(1.0);
    auto pick = [&] { return static_cast<std::uint32_t>(rng() % n); };
    Cal cal(n);
    for (std::uint32_t i = 0; i < n; ++i) cal.set(i, wait(rng));

    long ops = 0;
    std::uint64_t checksum = 0;
    auto event = [&](long k) {
        const std::uint32_t i = cal.top();
        const double now = cal.top_time();
        checksum += i;
        cal.set(i, now + wait(rng));
        cal.set(pick(), now + wait(rng));
        ops += 2;
        if (k % 4 == 0) {
            cal.set(pick(), now + wait(rng));
            ++ops;
        }
    };
    // Warm up to a steady state (each entry rescheduled ~4 times), untimed.
    for (long k = 0; k < static_cast<long>(2 * n); ++k) event(k);
    ops = 0;
    checksum = 0;
    const auto start = std::chrono::steady_clock::now();
    for (long k = 0; k < events; ++k) event(k);
    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    return {static_cast<double>(ops) / seconds.count(), checksum};
}

template <class Cal>
void report(const char* name, std::size_t n, long events) {
    const Result r = run<Cal>(n, events);
    std::printf("%-9s N=%-8zu %6.1f M ops/s   (checksum %llu)\n", name, n, r.ops_per_second * 1e-6,
                static_cast<unsigned long long>(r.checksum));
    std::fflush(stdout);
}

} // namespace

int main() {
    constexpr long events = 1'000'000;
    std::printf("calendar benchmark: %ld events per run, 2.25 set() per event\n", events);
    for (const std::size_t n : {32'000u, 256'000u, 1'000'000u}) {
        report<choc::DaryCalendar>("dary", n, events);
        report<choc::PairingCalendar>("pairing", n, events);
        report<choc::IndexedCalendar>("indexed", n, events);
        report<choc::BlockCalendar>("block", n, events);
        report<choc::BucketCalendar>("bucket", n, events);
        report<choc::BucketBlockCalendar>("blockbkt", n, events);
        if (n <= 32'000) report<choc::ReferenceCalendar>("reference", n, events);
    }
    return 0;
}
