// Inelastic collapse: with restitution e < 1 a cluster can collide infinitely often in a
// finite time (a Zeno sequence), and the clock stops advancing while the event count
// grows without bound. Without the TC model (collisions.tc, not implemented yet) the run
// could never finish, so it is stopped with an error instead of hanging.
//
// The watch compares the simulated time that passes per event in each chunk of events
// with the largest such step seen so far: an elastic gas keeps it steady and a cooling
// gas makes it grow (fewer, slower collisions), while a collapse shrinks it geometrically
// towards zero. Eight chunks in a row a million times shorter, or with no time passing
// at all, stop the run.
#pragma once

#include "errors.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace choc {

class CollapseWatch {
  public:
    explicit CollapseWatch(bool active) : active_(active) {}

    // After a chunk: the absolute time and the number of events processed so far
    // (any monotone count; a count that went down starts the watch afresh).
    void check(double time, std::uint64_t events) {
        if (!active_) return;
        if (!started_ || events < last_events_) {
            started_ = true;
            last_time_ = time;
            last_events_ = events;
            return;
        }
        const std::uint64_t chunk = events - last_events_;
        if (chunk < min_chunk) return;
        const double step = (time - last_time_) / static_cast<double>(chunk);
        largest_step_ = std::max(largest_step_, step);
        strikes_ = (time == last_time_ || step < 1e-6 * largest_step_) ? strikes_ + 1 : 0;
        last_time_ = time;
        last_events_ = events;
        if (strikes_ >= strikes_to_stop)
            throw InputError(
                "collisions.restitution: inelastic collapse at t = " + std::to_string(time) +
                ": the clock has stopped while collisions go on without end (a Zeno sequence). "
                "The TC model that prevents it (collisions.tc) is not implemented yet; use a "
                "restitution closer to 1 or a lower density");
    }

  private:
    static constexpr std::uint64_t min_chunk = 1u << 16;
    static constexpr int strikes_to_stop = 8;
    bool active_;
    bool started_ = false;
    double last_time_ = 0.0, largest_step_ = 0.0;
    std::uint64_t last_events_ = 0;
    int strikes_ = 0;
};

} // namespace choc
