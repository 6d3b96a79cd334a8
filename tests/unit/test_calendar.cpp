// Every fast calendar against ReferenceCalendar (a sorted std::set, obviously right) on
// random schedules. Times are compared with ==: a calendar stores and returns the
// doubles it is given, and shift() subtracts the same dt from the same values in every
// implementation, so any difference at all is a bug (no tolerance is needed).
#include <doctest/doctest.h>

#include "boost_calendars.hpp"
#include "reference_calendar.hpp"
#include <choc/kernel/calendar.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace test_calendar {

using namespace choc;

static_assert(Calendar<DaryCalendar>);
static_assert(Calendar<PairingCalendar>);
static_assert(Calendar<IndexedCalendar>);
static_assert(Calendar<BlockCalendar>);
static_assert(Calendar<BucketCalendar>);
static_assert(Calendar<BucketBlockCalendar>);
static_assert(Calendar<ReferenceCalendar>);

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// A calendar under test and the reference, driven in lockstep.
template <class Cal>
class Mirror {
  public:
    explicit Mirror(std::size_t n) : n_(n), fast_(n), ref_(n) { check(); }

    void set(std::uint32_t i, double t) {
        fast_.set(i, t);
        ref_.set(i, t);
        check();
    }
    void shift(double dt) {
        fast_.shift(dt);
        ref_.shift(dt);
        check();
        check_all();
    }
    // The earliest entry; ties resolve to the lowest index.
    void check() const {
        REQUIRE(fast_.top() == ref_.top());
        REQUIRE(fast_.top_time() == ref_.top_time());
    }
    // Every entry's time.
    void check_all() const {
        for (std::uint32_t i = 0; i < n_; ++i) REQUIRE(fast_.time(i) == ref_.time(i));
    }
    std::uint32_t top() const { return ref_.top(); }
    double top_time() const { return ref_.top_time(); }
    double time(std::uint32_t i) const { return ref_.time(i); }

  private:
    std::size_t n_;
    Cal fast_;
    ReferenceCalendar ref_;
};

// Random schedule: set() to earlier and later times, to +infinity, to the time another
// entry already has (a tie), to the entry's own time (no change), and shift(). Most
// times come from a coarse grid (multiples of 0.5 in [0, 10)) so that ties are common.
template <class Cal>
void random_schedule(std::size_t n, int ops, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto index = [&] { return static_cast<std::uint32_t>(rng() % n); };
    auto grid = [&] { return 0.5 * static_cast<double>(rng() % 20); };
    auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng);
    };
    Mirror<Cal> m(n);
    // The reference itself: a fresh calendar is all +infinity with entry 0 on top.
    CHECK(m.top() == 0);
    CHECK(m.top_time() == inf);
    for (int k = 0; k < ops; ++k) {
        CAPTURE(k);
        const std::uint32_t i = index();
        const double now = m.time(i);
        switch (rng() % 9) {
        case 0:
            m.set(i, grid());
            break; // grid time
        case 1:
            m.set(i, now == inf ? grid() : now - uniform(0.0, 2.0));
            break; // earlier
        case 2:
            m.set(i, now == inf ? grid() : now + uniform(0.0, 2.0));
            break; // later
        case 3:
            m.set(i, inf);
            break; // never
        case 4:
            m.set(i, m.time(index()));
            break; // tie
        case 5:
            m.set(i, m.top_time());
            break; // tie with the top
        case 6:
            m.set(i, now);
            break; // no change
        case 7:
            m.set(m.top(), m.top_time() + grid());
            break; // the top moves later
        case 8:
            // Rebase: a grid shift keeps the grid; 0.1 is not dyadic, so rounding of
            // t - 0.1 can create new ties, which must still go to the lowest index.
            if (k % 50 == 0) m.shift(rng() % 2 ? 0.5 * static_cast<double>(rng() % 4) : 0.1);
            break;
        }
        if (k % 256 == 0) m.check_all();
    }
    m.check_all();
}

// EDMD-like loop: take the top entry, reschedule it and a few random partners to
// now + exponential times (mean 1), now and then a partner to +infinity.
template <class Cal>
void event_loop(std::size_t n, int steps, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> wait(1.0);
    Mirror<Cal> m(n);
    for (std::uint32_t i = 0; i < n; ++i) m.set(i, wait(rng));
    for (int k = 0; k < steps; ++k) {
        CAPTURE(k);
        const std::uint32_t i = m.top();
        const double now = m.top_time();
        m.set(i, now + wait(rng));
        const int partners = static_cast<int>(rng() % 4);
        for (int p = 0; p < partners; ++p) {
            const auto j = static_cast<std::uint32_t>(rng() % n);
            if (j == i) continue; // i keeps its finite time, so the top stays finite
            m.set(j, rng() % 16 == 0 ? inf : now + wait(rng));
        }
        if (k % 10000 == 9999) m.shift(now); // time origin to now, as the engine does
    }
    m.check_all();
}

// An event loop whose time scale changes by factors up to 10^4 every few thousand
// events, with bursts of exact ties and entries parked at +infinity and brought back:
// what a cooling granular gas, a collapse or a gas at rest does to a calendar that cuts
// time into buckets of a width it has estimated (BucketCalendar must re-estimate it and
// keep the order whatever the width).
template <class Cal>
void changing_scales(std::size_t n, int steps, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> wait(1.0);
    Mirror<Cal> m(n);
    double scale = 1.0;
    for (std::uint32_t i = 0; i < n; ++i) m.set(i, scale * wait(rng));
    for (int k = 0; k < steps; ++k) {
        CAPTURE(k);
        if (k % 3000 == 2999) scale = std::pow(10.0, static_cast<double>(rng() % 9) / 2.0 - 2.0);
        const std::uint32_t i = m.top();
        const double now = m.top_time();
        if (now == inf) { // everything parked: bring some back
            for (std::uint32_t j = 0; j < n; j += 3) m.set(j, scale * wait(rng));
            continue;
        }
        switch (rng() % 8) {
        case 0: // a burst of ties: several entries at one time
            for (int b = 0; b < 6; ++b) m.set(static_cast<std::uint32_t>(rng() % n), now + scale);
            break;
        case 1:
            m.set(i, inf); // parked
            break;
        case 2:
            m.set(i, now); // an event at the same instant
            break;
        default:
            m.set(i, now + scale * wait(rng));
            m.set(static_cast<std::uint32_t>(rng() % n), now + scale * wait(rng));
        }
        if (k % 7001 == 7000) m.shift(now);
    }
    m.check_all();
}

} // namespace

TEST_CASE_TEMPLATE("calendar agrees with ReferenceCalendar on random schedules", Cal, DaryCalendar,
                   PairingCalendar, IndexedCalendar, BlockCalendar, BucketCalendar,
                   BucketBlockCalendar) {
    for (const std::size_t n : {1u, 2u, 17u, 1000u}) {
        CAPTURE(n);
        random_schedule<Cal>(n, 20000, 1234 + n);
    }
}

TEST_CASE_TEMPLATE("calendar agrees with ReferenceCalendar in an event loop", Cal, DaryCalendar,
                   PairingCalendar, IndexedCalendar, BlockCalendar, BucketCalendar,
                   BucketBlockCalendar) {
    for (const std::size_t n : {1u, 2u, 17u, 1000u}) {
        CAPTURE(n);
        event_loop<Cal>(n, 100000, 99 + n);
    }
}

TEST_CASE_TEMPLATE("calendar keeps its order when the time scale changes", Cal, IndexedCalendar,
                   BlockCalendar, BucketCalendar, BucketBlockCalendar) {
    for (const std::size_t n : {1u, 9u, 300u, 5000u}) {
        CAPTURE(n);
        changing_scales<Cal>(n, 60000, 7 + n);
    }
}

TEST_CASE_TEMPLATE("calendar ties resolve to the lowest index", Cal, DaryCalendar, PairingCalendar,
                   BlockCalendar, IndexedCalendar, BucketCalendar, BucketBlockCalendar,
                   ReferenceCalendar) {
    // A direct check, independent of the reference: equal times, set in falling index
    // order, then the lowest-index one moved away and back.
    Cal c(8);
    CHECK(c.top() == 0u); // all +infinity
    for (std::uint32_t i = 8; i-- > 0;) c.set(i, 3.0);
    CHECK(c.top() == 0u);
    c.set(0, 4.0);
    CHECK(c.top() == 1u);
    c.set(5, 2.0);
    CHECK(c.top() == 5u);
    c.set(5, 3.0);
    c.set(0, 3.0);
    CHECK(c.top() == 0u);
    CHECK(c.top_time() == 3.0);
    c.shift(1.0);
    CHECK(c.top() == 0u);
    CHECK(c.top_time() == 2.0);
    // Two distinct times that a shift rounds to the same value: the tie created by the
    // shift goes to the lowest index, although that entry was the later one before.
    const double later = 0.3, earlier = std::nextafter(0.3, 0.0);
    REQUIRE(later - 1024.0 == earlier - 1024.0); // ulp(1024) = 2.3e-13 swallows the gap
    c.set(2, later);
    c.set(6, earlier);
    CHECK(c.top() == 6u);
    c.shift(1024.0);
    CHECK(c.top() == 2u);
    CHECK(c.top_time() == later - 1024.0);
}

} // namespace test_calendar
