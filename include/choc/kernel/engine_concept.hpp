// What the run around the engines asks of one (lib/choc/run: LiveRun, MeasuredPhase, the
// collapse watch), as a concept: the event-driven Engine (engine.hpp) and the time-stepped
// StepEngine (step_engine.hpp) both model it, each engine saying so beside its explicit
// instantiations, so the run layer calls them alike and probes neither.
#pragma once

#include "choc/kernel/archive.hpp"

#include <concepts>
#include <cstdint>

namespace choc {

template <class E>
concept RunEngine = requires(E& e, const E& c, double t, std::uint64_t n, ArchiveWriter& out) {
    { E::exact } -> std::convertible_to<bool>; // every contact at its contact distance
    e.run(t, n, n);                            // until, collision limit, event budget
    { c.time() } -> std::convertible_to<double>;
    { c.measured_time() } -> std::convertible_to<double>;
    { c.processed() } -> std::convertible_to<std::uint64_t>;
    { c.short_flights() } -> std::convertible_to<std::uint64_t>;
    { c.contact_tolerance() } -> std::convertible_to<double>;
    c.snapshot(t);
    c.box();
    c.particles();
    c.tally();
    e.reset_tally();
    e.check_conservation();
    e.enable_tc();
    e.rescue_stall(t); // a stall the collapse watch found (nothing without a rest model)
    e.retire();        // the run is over: what only the event loop needs is freed
    c.save(out);
};

} // namespace choc
