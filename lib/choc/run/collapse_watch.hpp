// Inelastic collapse: with restitution e < 1 a cluster can collide infinitely often in a
// finite time (a Zeno sequence), and the clock stops advancing while the event count
// grows without bound. The run could never finish, so a collapse either stops it with an
// error instead of hanging, or (collisions.on_collapse = "tc") switches the TC model on,
// which makes the collisions of recently collided particles elastic and ends the Zeno
// sequence; a second collapse, with TC on, stops the run.
//
// The watch compares the simulated time that passes per event in each chunk of events
// with the largest such step seen so far: an elastic gas keeps it steady and a cooling
// gas makes it grow (fewer, slower collisions), while a collapse shrinks it geometrically
// towards zero. A chunk is also a strike when its clock moved on by no more than round-off:
// at most one unit in the last place of the time per event. A pile can stall before the
// first chunk ends, and then its largest step is itself round-off (1e-19 per event at
// t = 4.9, issue 40), and a clock that creeps by a few ulps is never quite "unchanged".
// A healthy run advances about 1 / (20 N) per event (N particles, a dense fluid's 20 events
// per particle per time unit), more than ulp(t) = 2.2e-16 t until N t passes 2e14, some
// 5e15 events: centuries of computing. Eight strikes in a row stop the run: `check` throws
// InelasticCollapse (errors.hpp), exit status 3.
//
// Under the rest model (collisions.rest_speed > 0) a stall is first answered by a rescue
// (`rescue`, Engine::rescue_stall): the particles that collided within the stall's span of
// time stop and move on from rest, which ends a jam that no instant holds alone (seen: a row of
// eight touching discs in the 2D hourglass, pressed together by gravity, passing speeds of 1e-4 to
// and fro elastically under TC while the clock crept by 1e-12 an event; exit 3 at t = 39.9). A
// second stall with no healthy chunk between the two stops the run as before: a rescue that did not
// end it is not repeated.
#pragma once

#include "choc/errors.hpp"
#include "choc/kernel/archive.hpp"
#include "choc/message_text.hpp"
#include "choc/run/run_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace choc {

class CollapseWatch {
  public:
    // `switch_on_tc`, when given, is called at the first collapse instead of stopping;
    // `tc` is the TC time configured (0: none) and `inelastic` the key whose restitution
    // below 1 makes the run inelastic, for the message.
    // `advice` ends the message (a sentence, or empty).
    // `rescue(time, span)`, when given (the rest model), is called at every collapse that
    // follows a healthy chunk, with the stall's span of time, instead of stopping.
    explicit CollapseWatch(bool active, std::function<void(double)> switch_on_tc = {},
                           double tc = 0.0, std::string inelastic = "collisions.restitution",
                           std::string advice = "", std::function<void(double, double)> rescue = {})
        : active_(active), switch_on_tc_(std::move(switch_on_tc)), rescue_(std::move(rescue)),
          tc_(tc), inelastic_(std::move(inelastic)), advice_(std::move(advice)) {}

    // After a chunk: the absolute time and the number of events processed so far
    // (any monotone count; a count that went down starts the watch afresh), and the
    // engine's flights so far too short to move their particle beyond round-off
    // (Engine::short_flights, monotone; 0 when the engine keeps none).
    void check(double time, std::uint64_t events, std::uint64_t short_flights = 0) {
        if (!active_) return;
        if (!started_ || events < last_events_ || short_flights < last_short_) {
            started_ = true;
            last_time_ = time;
            last_events_ = events;
            last_short_ = short_flights;
            return;
        }
        const std::uint64_t chunk = events - last_events_;
        if (chunk < min_chunk) return;
        // Most of the chunk's events ended flights that moved nothing beyond round-off: the
        // clock creeps (micro-bounces of 1e-13 on a floor), and particles that should move
        // stand still (Engine::too_short). A stall, whatever the steps.
        const bool creeping = 2 * (short_flights - last_short_) >= chunk;
        last_short_ = short_flights;
        const double step = (time - last_time_) / static_cast<double>(chunk);
        largest_step_ = std::max(largest_step_, step);
        // no progress beyond round-off: at most one ulp of the time per event (the top)
        const double ulp = std::nextafter(std::abs(time), std::numeric_limits<double>::infinity()) -
                           std::abs(time);
        const bool stalled = time - last_time_ <= ulp * static_cast<double>(chunk);
        const bool strike = stalled || creeping || step < collapse_step_ratio * largest_step_;
        if (strike && strikes_ == 0) streak_from_ = last_time_;
        strikes_ = strike ? strikes_ + 1 : 0;
        if (!strike) rescued_ = false;
        last_time_ = time;
        last_events_ = events;
        if (strikes_ < strikes_to_stop) return;
        if (switch_on_tc_) {
            switch_on_tc_(time);
            switch_on_tc_ = nullptr;
            switched_at_ = time;
            strikes_ = 0;
            return;
        }
        if (rescue_ && !rescued_) {
            rescue_(time, time - streak_from_);
            rescued_ = true;
            strikes_ = 0;
            return;
        }
        const std::string what =
            creeping ? "inelastic collapse at t = " + number_text(time) +
                           ": the clock creeps while collisions go on without end, in flights "
                           "too short to move the particles beyond round-off (micro-bounces "
                           "on a support: a particle sliding along it). "
                     : "inelastic collapse at t = " + number_text(time) +
                           ": the clock has stopped while collisions go on without end (a "
                           "Zeno sequence). ";
        // TC switched on at a collapse cannot restart particles that had already come to
        // rest against a wall under a field: their elastic bounces take no time either.
        if (rescue_)
            throw InelasticCollapse(
                "collisions.rest_speed: " + what +
                "The rest model's rescue of the stall just before (its particles stopped) did "
                "not end it" +
                (tc_ > 0.0 ? " (collisions.tc = " + number_text(tc_) + ")." : ".") + advice_);
        if (switched_at_)
            throw InelasticCollapse(
                "collisions.on_collapse: " + what +
                "The TC model, switched on at the collapse at t = " + number_text(*switched_at_) +
                ", did not end it (particles at rest against a wall cannot bounce "
                "again); set collisions.tc from the start (on_collapse = \"stop\")" +
                advice_);
        // (micro-bounces under a slide are elastic already under TC: no tc shortens them)
        if (tc_ > 0.0)
            throw InelasticCollapse(
                "collisions.tc: " + what + "The TC model is on with tc = " + number_text(tc_) +
                (creeping ? "; a larger tc would not help: the bounces are elastic already."
                          : "; a larger tc would prevent it.") +
                advice_);
        throw InelasticCollapse(
            inelastic_ + ": " + what +
            "Set collisions.tc > 0 (the TC model) to prevent it, with "
            "collisions.on_collapse = \"tc\" to switch it on only at a collapse." +
            advice_);
    }

    // The watch's memory, for a checkpoint; whether the TC switch is still armed too (the
    // switch itself is the caller's and given again).
    // One field list for save and restore (archive.hpp).
    template <class Archive>
    void fields(Archive& ar) {
        bool armed = static_cast<bool>(switch_on_tc_);
        ar(armed, switched_at_, started_, last_time_, largest_step_, last_events_, last_short_,
           strikes_, rescued_, streak_from_);
        if constexpr (Archive::loading)
            if (!armed) switch_on_tc_ = nullptr;
    }

  private:
    static constexpr std::uint64_t min_chunk = 1u << 16;
    static constexpr int strikes_to_stop = 8;
    bool active_;
    std::function<void(double)> switch_on_tc_;
    std::function<void(double, double)> rescue_;
    double tc_;
    std::string inelastic_, advice_;
    std::optional<double> switched_at_; // when switch_on_tc_ was called
    bool started_ = false;
    double last_time_ = 0.0, largest_step_ = 0.0;
    std::uint64_t last_events_ = 0, last_short_ = 0;
    int strikes_ = 0;
    bool rescued_ = false;     // a rescue, and no healthy chunk since
    double streak_from_ = 0.0; // the time the strikes in a row began
};

} // namespace choc
