// The engines of the tests that watch every collision (the differential oracle, the seed
// scan, the sliding-boundary and flat-patch tests). They share one event log, which hands
// each collision to the test's own log, so that these engines are compiled once, in
// tests/support/logged_engines.cpp, not again in each of those programs (each took a minute
// or more of a sanitized build).
#pragma once

#include <choc/kernel/engine.hpp>

#include <cstdint>
#include <functional>

namespace choc {

// The engine's Log: forwards every pair and wall collision (event_log.hpp) to the functions
// set, if any.
struct ForwardingLog {
    std::function<void(double, std::uint32_t, std::uint32_t)> on_pair, on_wall;
    void pair(double t, std::uint32_t a, std::uint32_t b) {
        if (on_pair) on_pair(t, a, b);
    }
    void wall(double t, std::uint32_t particle, std::uint32_t w) {
        if (on_wall) on_wall(t, particle, w);
    }
};

template <int D, class Motion = Ballistic<D>>
using LoggedEngine = Engine<D, DefaultCalendar, Motion, ForwardingLog>;

// Hands the engine's collisions to `log` (anything with pair and wall as NoEventLog has),
// which must outlive the engine's runs.
template <class E, class Log>
void forward_events(E& engine, Log& log) {
    engine.event_log().on_pair = [&log](double t, std::uint32_t a, std::uint32_t b) {
        log.pair(t, a, b);
    };
    engine.event_log().on_wall = [&log](double t, std::uint32_t i, std::uint32_t w) {
        log.wall(t, i, w);
    };
}

extern template class Engine<2, DefaultCalendar, Ballistic<2>, ForwardingLog>;
extern template class Engine<3, DefaultCalendar, Ballistic<3>, ForwardingLog>;
extern template class Engine<2, DefaultCalendar, Field<2>, ForwardingLog>;
extern template class Engine<3, DefaultCalendar, Field<3>, ForwardingLog>;

} // namespace choc
