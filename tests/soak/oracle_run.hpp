// One run of the differential oracle: the engine runs one long, uninterrupted simulation
// (its runner-up slots, cell lists, renumbering and time-origin moves live the whole run);
// every K pair collisions it is stopped at a sync time, its events since the last sync
// are matched one by one with the reference simulator's (reference_sim.hpp) run from the
// same state, the two states are compared, and the reference restarts from the engine's.
//
// Why re-synchronise: round-off makes two exact simulations of a chaotic system part
// after some tens of collisions per particle (the Lyapunov instability amplifies a 1e-16
// difference by a factor of order mean free path / diameter per collision). Between
// syncs the two must agree to round-off amplified over K collisions, which the tolerances
// below leave room for; a missed, extra or wrong collision changes the velocities of the
// particles involved by O(1) and the events that follow, far beyond them.
#pragma once

#include "obstacle_numbers.hpp"
#include "oracle_events.hpp"
#include "oracle_systems.hpp"
#include "reference_sim.hpp"
#include <choc/kernel/engine.hpp>

#include <choc/kernel/calendar.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/kernel/overlap.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace oracle {

struct RunSpec {
    std::uint64_t seed = 1;
    int n = 0;
    std::uint64_t collisions = 0; // collisions (pair or wall) of the engine, at least
    // K / N: collisions (pair or wall) per particle between syncs. The worst divergence at a sync
    // grows by about 1.5 decades each time K doubles (measured over all families: worst
    // relative state mismatch 1e-9 at K = N / 4, 2e-8 at N / 2, 3e-6 at N, 0.1 at 2 N in a
    // dilute 2D gas, whose long flights amplify round-off the most); N / 4 keeps it 1000
    // times below the tolerance.
    double per_particle = 0.25;
    // A segment also ends once one particle has had this many collisions in it. A large
    // sphere among small ones takes a share of the collisions that grows with its surface,
    // and each of them multiplies its round-off by several: in a levels3d run one particle
    // had 14 of a segment's 19 collisions and its state parted from the reference's by
    // 1.5e-6, the events in the same order, their times apart by 1 ulp, then 1e-12, 1e-10,
    // 1e-8 (growth, not a wrong collision). Six keep that far below the tolerance.
    std::uint32_t most_per_particle = 6;
    // Relative to a contact distance (positions) and an rms speed (velocities): far above
    // the divergence that K allows (above), far below the O(1) change of a missed, extra
    // or wrong collision.
    double tolerance = 1e-6;
    int verbose = 0; // on stderr: 1, a line per run; 2, and a line per sync
};

struct RunStats {
    std::uint64_t collisions = 0, events = 0, syncs = 0; // pair collisions; all collisions
    std::uint64_t engine_groups = 0, reference_groups = 0;
    std::uint64_t roundoff_events = 0; // seen by one side only, at round-off approach speed
    std::uint64_t excused = 0;         // segments parted after a round-off decision
    std::uint64_t busy = 0;            // runs ended busy: the model's cost, not compared
    double worst_dt = 0.0;             // largest time mismatch of matched events / its tolerance
    double worst_state = 0.0;          // largest position / length or velocity / speed mismatch
    bool failed = false;
    std::string message;
};

struct Scales {
    double length = 0.0, speed = 0.0, time = 0.0;
};

// The scales tolerances are relative to: the smallest contact distance, the rms speed,
// and the time to cross the one at the other.
template <int D>
Scales scales_of(const choc::Particles<D>& p) {
    Scales s;
    s.length = never;
    for (const auto& sp : p.table.species) s.length = std::min(s.length, 2.0 * sp.radius);
    double v2 = 0.0;
    for (const auto& q : p.state) v2 += norm2(q.v);
    s.speed = std::sqrt(v2 / static_cast<double>(p.size()));
    s.time = s.length / s.speed;
    return s;
}

template <int D>
double kinetic(const choc::Particles<D>& p) {
    double k = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) k += 0.5 * p.mass(i) * norm2(p.state[i].v);
    return k;
}

// The worst mismatch of the engine's state (snap) and the reference's at time t, over
// every particle: positions (nearest image) against the contact distance, velocities
// against the rms speed; and the particle where it is.
template <int D, class Motion>
std::pair<double, std::uint32_t>
state_mismatch(const choc::Box<D>& box, const choc::Particles<D>& snap,
               const ReferenceSim<D, Motion>& ref, double t, const Scales& scale) {
    std::pair<double, std::uint32_t> worst{0.0, 0};
    for (std::uint32_t i = 0; i < snap.size(); ++i) {
        const Vec<D> dx = box.minimum_image(snap.state[i].x - ref.position(i, t));
        const Vec<D> dv = snap.state[i].v - ref.velocity(i, t);
        const double err = std::max(norm(dx) / scale.length, norm(dv) / scale.speed);
        if (!(err <= worst.first)) worst = {err, i};
    }
    return worst;
}

template <int D, class Motion>
RunStats run_oracle(const System<D>& sys, const Motion& motion, const RunSpec& spec) {
    RunStats out;
    choc::EngineSettings settings = sys.settings;
    // Maintenance (renumbering, moving the time origin) every 50 to 500 events instead
    // of every max(4 N, 65536): thousands of times per run.
    std::mt19937_64 rng(spec.seed ^ 0x9e3779b97f4a7c15ull);
    settings.maintain_every = 50 + rng() % 451;
    using Engine = choc::Engine<D, choc::DefaultCalendar, Motion>;
    Engine engine(sys.box, sys.particles, settings, motion);
    RecordingLog log;
    engine.log_events_to(&log);
    ReferenceSim<D, Motion> ref(sys.box, sys.particles.table, settings, motion);
    ref.restart(sys.particles, 0.0);

    const auto n = static_cast<std::uint32_t>(sys.particles.size());
    const auto per_sync = static_cast<std::uint64_t>(std::max(1.0, spec.per_particle * n));
    std::vector<std::uint32_t> hits(n); // collisions of each particle in the segment
    const double k0 = kinetic(sys.particles);
    Scales scale = scales_of(sys.particles);
    double t = 0.0;
    auto fail = [&](const std::string& what) {
        out.failed = true;
        out.message = what;
        return out;
    };
    // Over a stretch one side could not finish within its budget: the first contact (pair, or
    // particle and obstacle) that one side met more than ten times as often as the other
    // (and 100 times more) where the reference did not meet it at round-off speed alone,
    // said in words; none if every such excess is of round-off speed (see the budget below).
    auto unexplained_excess = [&](const std::vector<Collision>& engine_log,
                                  const std::vector<Collision>& reference_log,
                                  double reached) -> std::optional<std::string> {
        struct Count {
            std::size_t engine = 0, reference = 0, fast = 0; // fast: above round-off
        };
        std::map<std::tuple<bool, std::uint32_t, std::uint32_t>, Count> counts;
        for (const Collision& c : engine_log) ++counts[{c.wall_event, c.a, c.b}].engine;
        for (const Collision& c : reference_log) {
            Count& k = counts[{c.wall_event, c.a, c.b}];
            ++k.reference;
            k.fast += c.speed > spec.tolerance * scale.speed;
        }
        for (const auto& [k, n] : counts) {
            const auto [wall, a, b] = k;
            const std::size_t more = std::max(n.engine, n.reference);
            const std::size_t fewer = std::min(n.engine, n.reference);
            if (more > 10 * fewer + 100 && (n.fast > 0 || n.reference == 0)) {
                std::ostringstream s;
                s << "particle " << a << (wall ? " and obstacle " : " and ") << b << " collided "
                  << n.engine << " times in the engine, " << n.reference << " in the reference ("
                  << n.fast << " faster than round-off) to t = " << reached;
                return s.str();
            }
        }
        return std::nullopt;
    };
    // A run ended busy at `reached` by `side`, which made `mine` collisions since the last
    // sync where the other made `theirs`: counted, and said with --verbose.
    auto end_busy = [&](const char* side, double reached, std::size_t mine, std::size_t theirs,
                        const char* note) {
        ++out.busy;
        if (spec.verbose >= 1)
            std::fprintf(stderr,
                         "%s busy at t = %.17g: %zu collisions since t = %.17g, the other %zu%s; "
                         "the run ends here\n",
                         side, reached, mine, t, theirs, note);
    };

    while (engine.tally().collisions + engine.tally().wall_collisions < spec.collisions &&
           t < sys.time_limit) {
        // A segment ends after K collisions, pair or wall: each one with a curved obstacle
        // (another particle, a segment's end) amplifies round-off, and a particle caught
        // among segment ends can bounce many times while the others hardly collide. Every
        // event adds at most one collision to the log but a group, so a budget of the
        // collisions still missing never overshoots by more than a group.
        auto& engine_events = log.events;
        const std::uint64_t before = engine.tally().events();
        const choc::Tally tally_before = engine.tally();
        const std::uint64_t most = 40 * per_sync + 1000; // events, crossings included
        auto stop = Engine::Stop::budget;
        std::fill(hits.begin(), hits.end(), 0u);
        std::uint32_t busiest = 0; // the most collisions of one particle in the segment
        std::size_t counted = 0;
        for (std::uint64_t calls = 0;
             engine_events.size() < per_sync && busiest < spec.most_per_particle &&
             stop == Engine::Stop::budget && calls < most &&
             engine.tally().events() - before < most;
             ++calls) {
            // a collision adds one to a particle's count: this budget cannot pass the cap
            // but by a group's collisions
            const std::uint64_t budget = std::min<std::uint64_t>(per_sync - engine_events.size(),
                                                                 spec.most_per_particle - busiest);
            stop = engine.run(sys.time_limit, std::numeric_limits<std::uint64_t>::max(), budget);
            for (; counted < engine_events.size(); ++counted) {
                const Collision& c = engine_events[counted];
                busiest = std::max(busiest, ++hits[c.a]);
                if (!c.wall_event) busiest = std::max(busiest, ++hits[c.b]);
            }
        }
        const double last = engine.time();
        // Sync a quarter of a mean event interval after the last event: events that the
        // two simulations see a round-off apart never straddle it.
        const double events = static_cast<double>(engine.tally().events() - before);
        const double gap = std::max(0.25 * (last - t) / std::max(events, 1.0), 1e-3 * scale.time);
        const double sync = std::min(last + gap, sys.time_limit);
        // Both runs to the sync time get a budget: a run stuck at one instant (events
        // without end, every one at the same time), or creeping by round-off (4e-11 of time
        // in 397 million events, issue 40), is a failure, not a hang: its clock moves less
        // than a thousandth of the way to the sync. One that moves on is busy, and the run
        // ends there (counted as `busy`, the stretch not compared) if its extra collisions
        // are the model's: no contact has many more in the engine than in the reference,
        // run over the same stretch, unless the reference met it only at round-off speed
        // (where the matching below skips events met by one side only). That is a particle
        // lying on a floor or a neighbour in bounces below what the velocities resolve,
        // elastic under TC: the engine's hops decay by the rounding of each contact time,
        // an inelastic collapse of rounding, where the reference keeps its period (piles2d
        // seed 228996637911994, n 835: wall restitution 6e-4, a disc bouncing at 1.2e-7
        // under |g| = 0.29, hops 2.5e-14 high against positions rounded to 1e-16, lost
        // 0.1 % of its speed a bounce, 100,000 bounces in 6e-4 of time where the reference
        // has 738). The rest model puts such a particle to rest; the oracle's piles run
        // without it. Any other excess is a failure: events the physics does not have.
        const std::uint64_t budget = 100 * static_cast<std::uint64_t>(events) + 100000;
        if (engine.run(sync, std::numeric_limits<std::uint64_t>::max(), budget) !=
            Engine::Stop::time) {
            const double reached = engine.time();
            std::ostringstream s;
            s << "the engine did not reach the sync time " << sync << " within " << budget
              << " events (" << per_sync << " collisions took " << events << " before): ";
            if (reached - last < 1e-3 * (sync - last)) {
                s << "stuck at t = " << reached;
                return fail(s.str());
            }
            ReferenceSim<D, Motion> probe = ref;
            const bool arrived = probe.run_until(reached, 10 * budget);
            if (const auto excess = unexplained_excess(engine_events, probe.log(), reached))
                return fail(s.str() + *excess);
            end_busy("engine", reached, engine_events.size(), probe.log().size(),
                     arrived ? "" : " (the reference's budget ran out)");
            break;
        }
        ref.set_ambiguity_band(spec.tolerance * scale.speed, spec.tolerance * scale.length);
        const ReferenceSim<D, Motion> start = ref; // for probes of unmatched engine events
        if (!ref.run_until(sync, budget)) {
            // The reference busy where the engine is not: the same rule the other way round
            // (its own collisions of round-off speed, where rounding wears its hops down).
            std::ostringstream s;
            s << "the reference did not reach the sync time " << sync << " within " << budget
              << " events: ";
            const double reached = ref.now(); // (it started at the last sync, t)
            // Stuck at one instant on collisions of round-off speed alone: a touching pair
            // approaching by 1e-16 of the speeds as the reference restarts at a sync (ε > 0),
            // met again and again at that instant (piles2d seed 1897576278051, n 1700: pair
            // 131-132 at 9.3e-17, t = 4.79997, 118,611 times, where the engine went on with
            // 77 collisions to the sync). The engine leaves such an approach for the instant
            // (resting_contacts.hpp); the reference does not here, which is its own limit,
            // so the run ends there, busy. A stall on any faster collision fails.
            if (reached - t < 1e-3 * (sync - t) &&
                std::any_of(ref.log().begin(), ref.log().end(), [&](const Collision& c) {
                    return c.time >= reached && c.speed > spec.tolerance * scale.speed;
                })) {
                s << "stuck at t = " << reached;
                return fail(s.str());
            }
            std::vector<Collision> engine_until;
            for (const Collision& c : engine_events)
                if (c.time <= reached) engine_until.push_back(c);
            if (const auto excess = unexplained_excess(engine_until, ref.log(), reached))
                return fail(s.str() + *excess);
            end_busy("reference", reached, ref.log().size(), engine_until.size(), "");
            break;
        }

        // Time tolerance of each event: positions agree to `tolerance` contact distances
        // (checked at every sync), and a gap known to within dx closes within dx / u of
        // the predicted time at approach speed u; plus the absolute round-off of the
        // engine's clock, origin + local time: each of the up to a few hundred
        // time-origin moves of a segment rounds it by half an ulp of t, and 1e-12 t is
        // 4500 ulp. (The reference's times are read the same way, its origin at the last
        // sync: reference_sim.hpp. A move shifts every particle's clock alike, so it
        // only offsets the state at the sync by |v| ulp(t), not amplified by the
        // collisions: 1e-11 of a contact distance at t = 2e4, far below `tolerance`.)
        // A contact that did not close (zero approach speed: a touching contact of a
        // group, pushed by the others) has no time of its own: it happens at the group's.
        auto tolerance = [&](const Collision& r) {
            return r.speed > 0.0 ? spec.tolerance * scale.length / r.speed + 1e-12 * sync : never;
        };
        // A collision at an approach speed below `tolerance` thermal speeds is within the
        // two simulations' velocity mismatch: it may exist in one and not the other, and
        // changes velocities by no more than that. An engine event the reference did not
        // see passes as one only if the reference, run again to that time from the
        // segment's start, has the two at contact and closing no faster than that.
        auto roundoff = [&](const Collision& r) { return r.speed <= spec.tolerance * scale.speed; };
        auto engine_roundoff = [&](const Collision& e) {
            ReferenceSim<D, Motion> probe = start;
            if (!probe.run_until(e.time, budget)) return false;
            const auto [gap, speed] = probe.contact(e.a, e.b, e.wall_event);
            return std::abs(gap) <= spec.tolerance * scale.length &&
                   speed <= spec.tolerance * scale.speed;
        };
        // The three parts of a segment (face, from end, to end) are one obstacle here. A
        // disc that reaches the face a distance a from an end touches the end too, a time
        // a^2 / (2 r u) later (radius r, approach speed u): within round-off of the face
        // contact once a is of order 1e-8 contact distances or less, and then either
        // simulation may name either part (segments2d seed 67040848986358: a = 2.3e-9,
        // 4e-16 apart; engine face, reference end). The two tangent planes differ by an
        // angle a / r, so the velocities by a / r too, which the state check bounds. A
        // wrong part that matters has another contact time (the time check) or another
        // normal (the state check); a wrong segment or wall is still another obstacle.
        const std::size_t planes = sys.box.walls.size();
        auto obstacle = [planes, &sys](std::uint32_t w) { // a segment: its face
            soak::Obstacle o = soak::Obstacle::decode(w, planes, sys.box.segments.size());
            o.part = choc::Segment<2>::face;
            return o.encode(planes, sys.box.segments.size());
        };
        // Triangles that touch (a mesh's neighbours: a vertex of one on the other, as at a
        // shared vertex or edge, or where a vertex of one lies on the other's edge) are one
        // obstacle too: a sphere that meets them where they touch meets both at one
        // instant, with one tangent plane, and either simulation may name either
        // (triangles3d seed 3: the engine looks at every face before any rim, the
        // reference at one triangle after another; flat3d seed 2: a sphere outside the
        // lining rounds the edge where a floor of one triangle meets a wall of three).
        // So are two segments with an end of one on the other (a toothed floor's teeth,
        // which share their ends: piles2d seed 5, a disc on the shared end of segments 62
        // and 63 at one instant, the engine naming one and the reference the other).
        auto neighbours = [&sys](std::uint32_t e, std::uint32_t r) {
            if constexpr (D == 2) {
                const soak::Obstacle oe =
                    soak::Obstacle::decode(e, sys.box.walls.size(), sys.box.segments.size());
                const soak::Obstacle orf =
                    soak::Obstacle::decode(r, sys.box.walls.size(), sys.box.segments.size());
                if (oe.wall || orf.wall) return false;
                const auto& se = sys.box.segments[oe.index];
                const auto& sr = sys.box.segments[orf.index];
                auto on = [](const choc::Segment<D>& s, const Vec<D>& v) {
                    return s.distance(v) <= choc::shared_point_tolerance * (norm(v) + s.length);
                };
                return on(se, sr.from) || on(se, sr.to) || on(sr, se.from) || on(sr, se.to);
            } else {
                const soak::Obstacle oe =
                    soak::Obstacle::decode(e, sys.box.walls.size(), sys.box.segments.size());
                const soak::Obstacle orf =
                    soak::Obstacle::decode(r, sys.box.walls.size(), sys.box.segments.size());
                if (!oe.triangle || !orf.triangle) return false;
                const auto& te = sys.box.triangles[oe.index];
                const auto& tr = sys.box.triangles[orf.index];
                auto on = [](const choc::Triangle<D>& t, const Vec<D>& v) {
                    return t.distance(v) <= choc::shared_point_tolerance * (norm(v) + t.radius);
                };
                for (int k = 0; k < 3; ++k)
                    if (on(te, tr.vertex[k]) || on(tr, te.vertex[k])) return true;
            }
            return false;
        };
        auto same = [&](const Collision& e, const Collision& r) {
            return e.wall_event == r.wall_event && e.a == r.a &&
                   (e.wall_event ? obstacle(e.b) == obstacle(r.b) || neighbours(e.b, r.b)
                                 : e.b == r.b);
        };
        // The oracle sees the engine only through its log: the log must hold every
        // collision the engine counted.
        std::uint64_t pairs = 0;
        for (const Collision& e : engine_events) pairs += e.wall_event ? 0 : 1;
        if (pairs != engine.tally().collisions - tally_before.collisions ||
            engine_events.size() - pairs !=
                engine.tally().wall_collisions - tally_before.wall_collisions)
            return fail("the engine's log does not hold the collisions its tally counted");

        const MatchResult m =
            match(engine_events, ref.log(), same, tolerance, roundoff, engine_roundoff);
        // After a decision that round-off can swing (reference_sim.hpp, ambiguous_since)
        // the two may part at O(1) for no fault of either: such a segment is excused,
        // counted, and the reference restarts from the engine's state.
        // So may they after two collisions sharing a particle that they saw in opposite
        // orders, within the time tolerance (a tight inelastic cluster, say).
        const double ambiguous_since = std::min(ref.ambiguous_since(), m.reordered_since);
        bool excused = false;
        // (slack: the engine may see the same instant a round-off earlier)
        if (!m.ok && ambiguous_since <= m.time + spec.tolerance * scale.time) {
            excused = true;
        } else if (!m.ok) {
            std::ostringstream s;
            s << "event " << out.events + m.index << " (sync " << out.syncs << ", t in (" << t
              << ", " << sync << "]): engine " << m.engine << ", reference " << m.reference
              << side_by_side(engine_events, ref.log());
            return fail(s.str());
        }

        // States agree to the tolerance, and nothing overlaps (the engine's contract, 1e-9
        // of a contact distance, tests/unit/test_engine.cpp).
        const choc::Particles<D> snap = engine.snapshot(sync);
        const auto [worst, worst_i] =
            excused ? std::pair{0.0, 0u} : state_mismatch(sys.box, snap, ref, sync, scale);
        if (!excused && !(worst <= spec.tolerance)) {
            if (ambiguous_since < never) {
                excused = true;
            } else {
                std::ostringstream s;
                s << "state of particle " << worst_i << " at sync " << out.syncs << ", t = " << sync
                  << ": difference " << worst << " (relative; tolerance " << spec.tolerance
                  << "); engine x = " << snap.state[worst_i].x[0] << ", ..."
                  << side_by_side(engine_events, ref.log());
                return fail(s.str());
            }
        }
        if (spec.verbose >= 2)
            std::fprintf(stderr,
                         "sync %llu at t = %.17g: %zu engine events, worst dt/tol %.1e, worst "
                         "state %.1e%s\n",
                         static_cast<unsigned long long>(out.syncs), sync, engine_events.size(),
                         m.worst, worst, excused ? ", excused" : "");
        if (excused) {
            ++out.excused;
        } else {
            out.worst_dt = std::max(out.worst_dt, m.worst);
            out.worst_state = std::max(out.worst_state, worst);
            out.roundoff_events += m.skipped;
            out.events += engine_events.size();
            out.collisions += pairs;
        }
        const double overlap = choc::max_overlap(sys.box, snap, sync);
        if (!(overlap <= 1e-9))
            return fail("overlap " + std::to_string(overlap) + " at t = " + std::to_string(sync));

        out.engine_groups = engine.tally().groups;
        out.reference_groups = ref.groups();
        ++out.syncs;
        const bool quiet = engine_events.empty();
        engine_events.clear();
        ref.log().clear();
        ref.restart(snap, sync);
        t = sync;
        scale = scales_of(snap);
        // nothing more to compare: at rest, cooled, or flowing without collisions
        if (stop == Engine::Stop::no_events || kinetic(snap) < 1e-4 * k0 || quiet) break;
    }
    return out;
}

} // namespace oracle
