// Collision events as the differential oracle compares them: the engine's event log
// (event_log.hpp) and the reference simulator write the same records, and `match` pairs
// the two streams up.
#pragma once

#include <choc/kernel/event_log.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace oracle {

inline constexpr double never_time = std::numeric_limits<double>::infinity();

// A pair collision (a < b, caller indices) or a wall collision (particle a, obstacle b),
// at an absolute time. The reference also notes the normal approach speed just before
// (the rate at which the gap closed): a position known to within dx gives the contact
// time to within dx / speed, which is what the matching allows.
struct Collision {
    double time = 0.0;
    bool wall_event = false;
    std::uint32_t a = 0, b = 0;
    double speed = 0.0; // reference only; the engine's log does not know it

    static Collision pair(double t, std::uint32_t i, std::uint32_t j, double speed = 0.0) {
        return {t, false, std::min(i, j), std::max(i, j), speed};
    }
    static Collision wall(double t, std::uint32_t i, std::uint32_t w, double speed = 0.0) {
        return {t, true, i, w, speed};
    }
    // Two collisions that share a particle do not commute: their order changes the result.
    bool shares_particle(const Collision& o) const {
        auto has = [](const Collision& c, std::uint32_t i) {
            return c.a == i || (!c.wall_event && c.b == i);
        };
        return has(o, a) || (!wall_event && has(o, b));
    }
    std::string describe() const;
};

inline std::string Collision::describe() const {
    char text[160];
    std::snprintf(text, sizeof text, "%s %u %s %u at t = %.17g", wall_event ? "particle" : "pair",
                  a, wall_event ? "wall" : "-", b, time);
    return text;
}

// Keeps every collision the engine tells its event log of (choc/kernel/event_log.hpp).
struct RecordingLog : choc::EventLog {
    std::vector<Collision> events;
    void pair(double t, std::uint32_t a, std::uint32_t b) override {
        events.push_back(Collision::pair(t, a, b));
    }
    void wall(double t, std::uint32_t particle, std::uint32_t w) override {
        events.push_back(Collision::wall(t, particle, w));
    }
};

// Both streams side by side, for a failure message.
inline std::string side_by_side(const std::vector<Collision>& engine,
                                const std::vector<Collision>& ref) {
    std::string s = "\n  the segment's streams (engine | reference, u = approach speed):";
    for (std::size_t k = 0; k < std::max(engine.size(), ref.size()); ++k) {
        s += "\n    " + (k < engine.size() ? engine[k].describe() : std::string()) + " | ";
        if (k < ref.size()) s += ref[k].describe() + " u " + std::to_string(ref[k].speed);
    }
    return s;
}

struct MatchResult {
    bool ok = true;
    std::size_t index = 0;         // position in the engine's stream of the first mismatch
    std::string engine, reference; // the two events there ("none" when one stream ended)
    double worst = 0.0;            // largest |time difference| / tolerance of matched events
    std::size_t skipped = 0;       // round-off events seen by one side only
    double time = 0.0;             // of the mismatch: the earlier of the two events
    // The earliest pair of collisions sharing a particle that the two streams have in
    // opposite orders, both within their time tolerances: an order decided by round-off,
    // after which the two may part (never: none).
    double reordered_since = never_time;
};

// Pairs each engine event with an unmatched reference event that is the same collision
// (as judged by `same`) at a time no more than tol(reference event) away, in stream order. Both
// streams are in time order, so events are reordered only within their tolerances
// (near-simultaneous events). A collision at round-off approach speed (a touching pair nudged by a
// group, say) may be seen by one simulation and not the other: such an event, as judged by
// `roundoff` (reference events) and `engine_roundoff` (engine events), may go without a
// partner. Fails at the first other engine event without a partner, or at the first other
// reference event left behind (more than its tolerance earlier than the engine's present).
template <class Same, class Tolerance, class Roundoff, class EngineRoundoff>
MatchResult match(const std::vector<Collision>& engine, const std::vector<Collision>& ref,
                  const Same& same, const Tolerance& tol, const Roundoff& roundoff,
                  const EngineRoundoff& engine_roundoff) {
    MatchResult out;
    std::vector<std::uint8_t> used(ref.size(), 0);
    double widest = 0.0;
    for (const Collision& r : ref) widest = std::max(widest, tol(r));
    std::size_t first = 0; // first unmatched reference event
    auto fail = [&](std::size_t k, const Collision* e, const Collision* r) {
        out.ok = false;
        out.index = k;
        out.engine = e ? e->describe() : "none";
        out.reference = r ? r->describe() : "none";
        out.time = std::min(e ? e->time : never_time, r ? r->time : never_time);
        return out;
    };
    // reference events left behind by the engine's present: round-off ones are dropped
    auto behind = [&](double now) -> const Collision* {
        for (std::size_t m = first; m < ref.size() && ref[m].time < now; ++m) {
            if (used[m] || ref[m].time + tol(ref[m]) >= now) continue;
            if (!roundoff(ref[m])) return &ref[m];
            used[m] = 1;
            ++out.skipped;
        }
        return nullptr;
    };
    for (std::size_t k = 0; k < engine.size(); ++k) {
        const Collision& e = engine[k];
        while (first < ref.size() && used[first]) ++first;
        if (const Collision* r = behind(e.time)) return fail(k, &e, r); // the engine skipped it
        std::size_t m = first;
        for (; m < ref.size() && ref[m].time <= e.time + widest; ++m)
            if (!used[m] && same(e, ref[m]) && std::abs(ref[m].time - e.time) <= tol(ref[m])) break;
        if (m == ref.size() || ref[m].time > e.time + widest) {
            if (!engine_roundoff(e)) return fail(k, &e, first < ref.size() ? &ref[first] : nullptr);
            ++out.skipped;
            continue;
        }
        for (std::size_t q = first; q < m; ++q)
            if (!used[q] && ref[q].shares_particle(e))
                out.reordered_since = std::min(out.reordered_since, std::min(ref[q].time, e.time));
        used[m] = 1;
        out.worst = std::max(out.worst, std::abs(ref[m].time - e.time) / tol(ref[m]));
    }
    if (const Collision* r = behind(never_time)) return fail(engine.size(), nullptr, r);
    return out;
}

} // namespace oracle
