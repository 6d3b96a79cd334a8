// The inelastic-collapse watch: stops a Zeno sequence, leaves healthy runs alone.
#include <choc/errors.hpp>
#include <choc/run/collapse_watch.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace test_collapse_watch {

using choc::CollapseWatch;

namespace {

// Feeds chunks of 2^16 events whose time steps follow `step(k)`; true if it stopped.
template <class Step>
bool stops(Step step, int chunks, bool active = true) {
    CollapseWatch watch(active);
    double t = 0.0;
    std::uint64_t events = 0;
    watch.check(t, events);
    try {
        for (int k = 0; k < chunks; ++k) {
            events += 1u << 16;
            t += step(k);
            watch.check(t, events);
        }
    } catch (const choc::InelasticCollapse&) {
        return true;
    }
    return false;
}

} // namespace

TEST_CASE("a steady gas and a cooling gas are left alone") {
    CHECK_FALSE(stops([](int) { return 1.0; }, 1000));
    // Haff cooling: the collision rate falls, chunks take ever longer
    CHECK_FALSE(stops([](int k) { return 1.0 + 0.1 * k; }, 1000));
    // noisy but healthy: factor-10 fluctuations
    CHECK_FALSE(stops([](int k) { return k % 2 ? 1.0 : 0.1; }, 1000));
}

TEST_CASE("a Zeno sequence stops: chunk durations shrinking geometrically to nothing") {
    // halving per chunk: a million times shorter after 20 chunks, 8 strikes later it stops
    CHECK(stops([](int k) { return std::ldexp(1.0, -k); }, 40));
    // the clock standing still
    CHECK(stops([](int k) { return k < 5 ? 1.0 : 0.0; }, 20));
}

// Feeds chunks of 2^16 events from time t0, each moving the clock by `per_chunk`; true if
// it stopped.
bool stops_from(double t0, double per_chunk, int chunks) {
    CollapseWatch watch(true);
    double t = t0;
    std::uint64_t events = 0;
    watch.check(t, events);
    try {
        for (int k = 0; k < chunks; ++k) {
            events += 1u << 16;
            t += per_chunk;
            watch.check(t, events);
        }
    } catch (const choc::InelasticCollapse&) {
        return true;
    }
    return false;
}

TEST_CASE("a clock that creeps by round-off from the start is a stall (issue 40)") {
    // The 60-disc pile of issue 40 (seed 2): stalled at t = 4.856 before the first chunk
    // ended, 397 million events moving the clock by 4e-11, about 1e-19 per event against an
    // ulp of 8.9e-16: the largest step is itself round-off, and the clock never stands still.
    const double per_event = 1e-19, ulp = std::nextafter(4.856, 5.0) - 4.856;
    CHECK(stops_from(4.856, per_event * 65536, 20));
    // creeping by whole ulps: one per event, and one per 100 events
    CHECK(stops_from(4.856, ulp * 65536, 20));
    CHECK(stops_from(4.856, ulp * 655, 20));
    // eight strikes, not fewer: seven chunks do not stop it
    CHECK_FALSE(stops_from(4.856, per_event * 65536, 7));
    CHECK(stops_from(4.856, per_event * 65536, 8));
    // a healthy run of a million particles at t = 1e4 (1e-8 per event, 1e-12 per ulp)
    CHECK_FALSE(stops_from(1e4, 1e-8 * 65536, 1000));
    // two ulps per event is progress (slow, but not round-off)
    CHECK_FALSE(stops_from(4.856, 2 * ulp * 65536, 1000));
}

TEST_CASE("inactive (elastic) watches never stop, and a restarted count starts afresh") {
    CHECK_FALSE(stops([](int k) { return k < 5 ? 1.0 : 0.0; }, 100, false));
    CollapseWatch watch(true);
    watch.check(0.0, 0);
    watch.check(1.0, 1u << 16);
    // the tally was reset (a new phase): no strike for the apparent jump backwards
    CHECK_NOTHROW(watch.check(1.0, 10));
}

TEST_CASE("the collapse message gives the time in full, not six fixed decimals") {
    CollapseWatch watch(true);
    std::uint64_t events = 0;
    watch.check(0.0, events);
    std::string message;
    try {
        for (int k = 0; k < 40; ++k) {
            events += 1u << 16;
            watch.check(3e-7, events); // the clock stands at 3e-7 ("0.000000" before)
        }
    } catch (const choc::InelasticCollapse& e) {
        message = e.what();
    }
    CHECK(message.find("at t = 3e-07") != std::string::npos);
}

TEST_CASE("a collapse is its own kind of error, not bad input") {
    // The app maps InputError to exit status 2 and InelasticCollapse to 3 (apps/choc.cpp).
    static_assert(!std::is_base_of_v<choc::InputError, choc::InelasticCollapse>);
    CollapseWatch watch(true, {}, 0.0, "walls[0].restitution");
    std::uint64_t events = 0;
    watch.check(1.0, events);
    bool collapsed = false;
    try {
        for (int k = 0; k < 40; ++k) {
            events += 1u << 16;
            watch.check(1.0, events);
        }
    } catch (const choc::InputError&) {
        FAIL("a collapse reported as bad input");
    } catch (const choc::InelasticCollapse& e) {
        collapsed = std::string(e.what()).rfind("walls[0].restitution: inelastic collapse", 0) == 0;
    }
    CHECK(collapsed);
}

TEST_CASE("under the rest model a stall is rescued, once until a healthy chunk (issue 40)") {
    // Feeds chunks of 2^16 events: steps of 1 while healthy, then the clock creeping by
    // 1e-9 a chunk from t = 39.9 (the 2D hourglass's row of touching discs); each rescue is
    // recorded with its time and span.
    std::vector<std::pair<double, double>> rescues;
    CollapseWatch watch(true, {}, 1e-4, "collisions.restitution", "",
                        [&](double time, double span) { rescues.emplace_back(time, span); });
    double t = 39.9;
    std::uint64_t events = 0;
    watch.check(t, events);
    auto chunk = [&](double dt) {
        events += 1u << 16;
        t += dt;
        watch.check(t, events);
    };
    for (int k = 0; k < 10; ++k) chunk(1e-2);
    const double stall_from = t;
    for (int k = 0; k < 8; ++k) chunk(1e-9);
    // the eighth strike rescues instead of stopping, with the stall's span of time
    REQUIRE(rescues.size() == 1);
    CHECK(rescues[0].first == t);
    CHECK(rescues[0].second == doctest::Approx(8e-9).epsilon(1e-6));
    CHECK(t - stall_from == doctest::Approx(8e-9).epsilon(1e-6));
    // a healthy chunk re-arms it: a second stall is rescued too
    chunk(1e-2);
    for (int k = 0; k < 8; ++k) chunk(1e-9);
    CHECK(rescues.size() == 2);
    // a stall right after a rescue, with no healthy chunk between, stops the run and says
    // the rescue did not end it
    std::string message;
    try {
        for (int k = 0; k < 8; ++k) chunk(1e-9);
    } catch (const choc::InelasticCollapse& e) {
        message = e.what();
    }
    CHECK(rescues.size() == 2);
    CHECK(message.find("collisions.rest_speed") != std::string::npos);
    CHECK(message.find("rescue") != std::string::npos);
}

} // namespace test_collapse_watch
