// Seed scan of the engine: many short runs over random seeds, sizes, densities and
// features (2D/3D, periodic and walled boxes, plane walls, segments, gravity, drag,
// mixtures, restitution < 1 with TC, epsilon > 0, lattice starts with aligned velocities,
// frequent maintenance, settling piles: scan_piles.cpp), each built the way `choc run` builds it
// (config text -> parse_config -> make_initial_state -> engine_settings) and run by the engine
// alone. A run fails on the engine's own runtime invariants (choc::InvariantViolation) and on this
// file's checks (scan_checks.hpp): collision times in order and at contact, no overlap at
// checkpoints (the library's cell-grid check) and at the end (every pair), time advanced, no
// livelock, counts agree, energy and momentum wherever a law fixes them.
//
//   soak_scan --slice fast          fixed seeds, about a minute (unit suite)
//   soak_scan --slice long          random seeds for --minutes (default 15; soak suite)
//   soak_scan --case SEED           one case, with its parameters and results
//   --family NAME                   only the slice's cases of one feature family
//   --setup-only                    build every case's start (its particles placed), run none
//
// A failure prints the case and the one command that reproduces it; the exit status is
// then 1. The summary counts runs, collisions, events and failures per feature family.
#include "scan_case.hpp"
#include "scan_checks.hpp"
#include "scan_laws.hpp"
#include <choc/kernel/engine.hpp>

#include <choc/errors.hpp>
#include <choc/init/initial_state.hpp>
#include <choc/kernel/engine.hpp>
#include <choc/kernel/overlap.hpp>
#include <choc/run/config.hpp>
#include <choc/run/settings_from_config.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

using namespace scan;

namespace {

struct Outcome {
    std::string check, what; // check empty: passed
    bool groups = false;     // epsilon > 0: gaps at collisions up to the group window
    std::string stop;        // how the run ended
    std::uint64_t collisions = 0, events = 0;
    double time = 0.0, seconds = 0.0, worst_overlap = 0.0, worst_gap = 0.0;
    // the worst overlap where each check saw it: at collisions, checkpoints, the end
    double at_collisions = 0.0, at_checkpoints = 0.0, at_end = 0.0;
    std::string worst_collision;
    std::string config; // the config text used (after any lowering of the density)
    int lowered = 0;    // times the density was lowered to find a possible start
    // piles: kinetic energy at the end over M |g| d (d the largest diameter), -1 if not run,
    // and {t, events, that ratio} at every checkpoint (printed with --verbose)
    double agitation = -1.0;
    std::vector<std::array<double, 3>> settling;
};

// Velocities aligned with the lattice (scan_case.hpp, Aligned), from the case's seed.
template <int D>
void align(const Params& p, choc::Particles<D>& particles) {
    Rng r(p.seed ^ 0xa1197edull);
    bool moving = false;
    for (auto& s : particles.state) {
        s.v = {};
        for (int a = 0; a < D; ++a)
            if (p.aligned == Aligned::grid || a == p.axis) s.v[a] = r.integer(-1, 1);
        moving = moving || norm2(s.v) > 0.0;
    }
    if (!moving) particles.state[0].v[p.axis] = 1.0;
}

template <int D, class Motion>
void simulate(const Params& p, const choc::Config& config, choc::InitialState<D> start,
              Motion motion, const choc::Vec<D>& g, Outcome& out) {
    using Engine = choc::Engine<D, choc::DefaultCalendar, Motion>;
    using Stop = typename Engine::Stop;
    choc::EngineSettings settings = choc::engine_settings(config);
    settings.maintain_every = p.maintain_every;
    if (p.aligned != Aligned::none) align(p, start.particles);
    if (!p.placed.empty()) place(p, start.particles);
    Engine engine(std::move(start.box), std::move(start.particles), settings, motion);
    ScanLog<D> log;
    engine.log_events_to(&log);
    const auto first = engine.snapshot(engine.time());
    log.particles = &engine.particles();
    log.box = &engine.box();
    log.id = [&engine](std::uint32_t i) { return engine.id(i); };
    out.groups = config.epsilon > 0.0;
    if (out.groups)
        log.allowed_gap = config.contact_gap + group_gap(engine.box(), first, g, config.epsilon);

    // Kinetic energy over M |g| d: how far a pile is from settled.
    const auto agitation = [&] {
        double kinetic = 0.0, mass = 0.0;
        for (std::uint32_t s = 0; s < engine.particles().table.size(); ++s)
            kinetic += engine.kinetic(s);
        for (std::uint32_t i = 0; i < engine.particles().size(); ++i)
            mass += engine.particles().mass(i);
        return kinetic / (mass * norm(g) * p.largest_diameter());
    };
    double previous = engine.time();
    const auto checkpoint = [&](const char* when) {
        const double t = engine.time();
        // After a stop at a target, time() is the target itself while the engine's clock
        // is target - origin rounded: the next reading may sit an ulp or two below it.
        if (!(t >= previous - 4.5e-16 * std::abs(previous)))
            throw Failure("clock", str("time went from ", previous, " to ", t, " (", when, ")"));
        previous = std::max(previous, t);
        // (a sheared box's grid stops at the y faces: every pair there, through the images)
        const double o = engine.box().sheared()
                             ? brute_force_overlap(engine.box(), engine.snapshot(t), t)
                             : choc::max_overlap(engine.box(), engine.snapshot(t), t);
        out.at_checkpoints = std::max(out.at_checkpoints, o);
        out.time = t; // progress so far, for the report if a later check fails
        out.collisions = engine.tally().collisions;
        out.events = engine.tally().events();
        if (!(o <= overlap_tolerance))
            throw Failure("overlap", str("overlap ", o, " at t = ", t, " (", when, ")"));
        if (p.features[piles]) out.settling.push_back({t, double(out.events), agitation()});
    };
    // Work done: counted events and stale predictions renewed, and an upper bound on the
    // engine's calls to process() (a group step counts nothing when no impulse flows).
    std::uint64_t calls = 0;
    const auto used = [&] { return engine.tally().events() + engine.tally().stale; };
    // Runs towards `target` for at most `budget` more units of work, in chunks small enough
    // to see a livelock: a chunk whose events neither move the clock nor count anything
    // (no collision, no crossing) would repeat forever. A real step always counts
    // something or moves the clock, even in an exactly simultaneous lattice collision.
    // With the rest model the engine ends an instant that stalls by itself: its collisions
    // turn plastic after 16 N + 10,000 events at one instant, and a rescue stops the stall
    // at twice that (Engine::rescue_stall), while a group step (epsilon > 0) that changes
    // nothing counts nothing; a stall the rescue does not end stops the run as a named
    // collapse at the stuck limit (Engine::stall_not_ended). So the chunk that judges a
    // livelock is longer than that there. Seen: a sphere pressed onto a triangle beside a
    // neighbour, with no speed across it, not gliding, met at once by groups that changed
    // nothing (scan case 18440032211228958528: on Session 35's engine rescued after 26,912
    // steps; on Session 36's, at another instant, not ended by the rescue, a collapse after
    // a million).
    const std::uint64_t chunk = p.rest_speed > 0.0
                                    ? choc::stuck_events_per_particle * engine.particles().size() +
                                          choc::stuck_events_base + 4096
                                    : 4096;
    const auto advance = [&](double target, std::uint64_t budget) {
        const std::uint64_t start = used();
        while (true) {
            const std::uint64_t done = used() - start;
            if (done >= budget || calls >= 4 * p.event_cap) return Stop::budget;
            const double t = engine.time();
            const std::uint64_t counted = engine.tally().events(), groups = engine.tally().groups;
            const std::uint64_t n = std::min(chunk, budget - done);
            const Stop stop = engine.run(target, p.collision_cap, n);
            if (stop != Stop::budget) return stop;
            calls += n;
            if (n == chunk && engine.tally().events() == counted && engine.time() == t)
                throw Failure("livelock", str(chunk, " calendar steps at t = ", t,
                                              " without a collision, a crossing "
                                              "or a tick of the clock (",
                                              engine.tally().groups - groups,
                                              " simultaneous groups resolved among them)"));
        }
    };

    // Warm-up by events, then checkpoints at times spaced by the warm-up's duration.
    const std::uint64_t first_budget =
        std::max<std::uint64_t>(1, p.event_cap / std::uint64_t(p.checkpoints));
    // A case with a duration (a pile: time to settle) runs to it, the warm-up included,
    // its checkpoints spread evenly over what is left.
    const double end = p.duration > 0.0 ? p.duration : choc::never;
    Stop stop = advance(end, first_budget);
    checkpoint("after the warm-up");
    const double t0 = engine.time();
    const double step =
        p.duration > 0.0 ? (p.duration - t0) / p.checkpoints : (t0 > 0.0 ? t0 : 1.0) * p.step;
    for (int k = 1; k <= p.checkpoints; ++k) {
        if (stop == Stop::no_events || stop == Stop::collisions || used() >= p.event_cap) break;
        if (p.duration > 0.0 && t0 >= p.duration) break;
        const double target = p.duration > 0.0 && k == p.checkpoints ? p.duration : t0 + k * step;
        stop = advance(target, p.event_cap - used());
        checkpoint("at a checkpoint");
        if (stop == Stop::time && engine.time() != target)
            throw Failure("clock", str("stopped for t = ", target, " at ", engine.time()));
        if (stop == Stop::budget) break;
    }
    engine.check_conservation(); // the engine's own energy and momentum invariants, to now
    out.stop = stop == Stop::time         ? "time"
               : stop == Stop::collisions ? "collisions"
               : stop == Stop::budget     ? "events"
                                          : "no events";
    const double t = engine.time();
    out.time = t;
    out.collisions = engine.tally().collisions;
    out.events = engine.tally().events();
    out.worst_gap = log.worst_gap;
    out.at_collisions = log.worst_overlap;
    out.worst_collision = log.worst_where;
    if (!(t > 0.0) && stop == Stop::budget) {
        // The event cap spent at t = 0: the engine is given the room of its own watch of
        // an instant (its stuck limit), so that the case ends on what that names (a slide
        // without the rest model: scan case 4522235383899983236, a sphere touching a box
        // wall with no speed across it under tilted gravity, met it 72,380 times at t = 0,
        // the case's cap, where the engine names it at 64 N + 1e6 events).
        const std::uint64_t room = choc::stuck_events_per_particle * engine.particles().size() +
                                   choc::stuck_events_base + 1;
        engine.run(end, p.collision_cap, room);
    }
    if (!(engine.time() > 0.0))
        throw Failure("time", str("the clock did not advance (t = ", engine.time(), ")"));
    // a group (epsilon > 0) may add several collisions in one step, past the cap
    const bool exact = config.epsilon == 0.0;
    if (stop == Stop::collisions && (exact ? engine.tally().collisions != p.collision_cap
                                           : engine.tally().collisions < p.collision_cap))
        throw Failure("count", str("stopped for ", p.collision_cap, " collisions after ",
                                   engine.tally().collisions));
    if (log.pairs != engine.tally().collisions || log.walls != engine.tally().wall_collisions)
        throw Failure("count",
                      str("logged ", log.pairs, " pair and ", log.walls, " wall collisions, tally ",
                          engine.tally().collisions, " and ", engine.tally().wall_collisions));
    const auto last = engine.snapshot(t);
    const double o = brute_force_overlap(engine.box(), last, t);
    out.at_end = o;
    if (!(o <= overlap_tolerance))
        throw Failure("overlap", str("overlap ", o, " over all pairs at the end, t = ", t));
    double kinetic = 0.0;
    for (std::uint32_t s = 0; s < engine.particles().table.size(); ++s)
        kinetic += engine.kinetic(s);
    if (p.features[piles]) out.agitation = agitation();
    check_laws(config, engine.box(), first, last, t, g, config.drag, engine.tally(), kinetic,
               engine.shear_moment());
}

// The config of p, its density lowered (x0.8, up to 20 times: the edge grows up to
// 0.8^(-19/D), 4.1 times in 3D; scan_case.hpp, start_attempts) while the start is
// impossible: lattice capacity and the three-diameter periodic edge depend on N and the
// box shape in ways the draw does not foresee (a mixture of a few large and thousands of
// small spheres on an fcc lattice needs its edge 2.5 times the drawn one: the sites are
// spaced by N, the contact by the largest diameter; the draw sizes the box to the lattice
// where this could not make up for it). Everything else stays as drawn.
// With `setup_only` the case is built (its start placed) and not run.
template <int D>
void run_case(Params& p, Outcome& out, bool setup_only) {
    std::string last_error;
    constexpr int attempts = start_attempts;
    for (int attempt = 0; attempt < attempts; ++attempt, p.fraction *= start_lowering) {
        out.config = config_text(p);
        std::optional<choc::InitialState<D>> start;
        choc::Config config;
        try {
            config = choc::parse_config(out.config, str("case ", p.seed));
            start = choc::make_initial_state<D>(config);
        } catch (const choc::InputError& e) {
            last_error = e.what();
            continue;
        }
        out.lowered = attempt;
        p.features.set(dilute, p.fraction < 0.05);
        p.features.set(dense, p.fraction >= (D == 3 ? 0.40 : 0.60));
        if (setup_only) {
            out.stop = "set up";
            return;
        }
        choc::Vec<D> g;
        for (int a = 0; a < D; ++a) g[a] = config.gravity.empty() ? 0.0 : config.gravity[a];
        if (norm2(g) == 0.0 && config.drag == 0.0)
            simulate<D>(p, config, std::move(*start), choc::Ballistic<D>{}, g, out);
        else
            simulate<D>(p, config, std::move(*start), choc::Field<D>(g, config.drag), g, out);
        return;
    }
    throw Failure("setup", str("no possible start in ", attempts, " attempts, each at ",
                               start_lowering, " times the density before: ", last_error));
}

Outcome run(std::uint64_t seed, Params& p, bool setup_only) {
    Outcome out;
    const auto begin = std::chrono::steady_clock::now();
    p = draw(seed);
    try {
        if (p.dimension == 2)
            run_case<2>(p, out, setup_only);
        else
            run_case<3>(p, out, setup_only);
    } catch (const choc::InvariantViolation& e) {
        out.check = "invariant: " + e.invariant();
        out.what = e.what();
    } catch (const choc::InelasticCollapse& e) {
        // Two collapses end a case: without the rest model, a particle that comes to lie on
        // a support not square to the field, with no speed across it, slides (bounces of no
        // height at one instant, which hard spheres cannot go past; the engine names the
        // rest model: Engine::slide_without_rest_model); and a stall the rest model's
        // rescue does not end (engine.hpp, stall_not_ended), the model's documented outcome
        // without TC (REFERENCE, "Stalls": 2 of 20 runs of the 60-disc box at e = 0.3;
        // piles of the scan). Both are choc run's exit status 3. With TC a stall is a
        // failure (DEVELOPING, "Known engine bugs").
        const std::string what = e.what();
        if (p.rest_speed == 0.0 && what.starts_with("collisions.rest_speed:") &&
            what.find("slides along it") != std::string::npos) {
            out.stop = "collapse (a slide without the rest model)";
        } else if (p.tc == 0.0 && p.rest_speed > 0.0) {
            out.stop = "collapse";
        } else {
            out.check = "collapse";
            out.what = what;
        }
    } catch (const Failure& e) {
        out.check = e.check;
        out.what = e.what();
    } catch (const std::exception& e) {
        out.check = "exception";
        out.what = e.what();
    }
    out.worst_overlap = std::max({out.at_collisions, out.at_checkpoints, out.at_end});
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    return out;
}

std::string describe(const Params& p) {
    std::string d = str(p.dimension, "D N=", p.particles(), " phi=", p.fraction, " ", p.lattice);
    if (p.aligned != Aligned::none)
        d += str(p.aligned == Aligned::axis ? " axis-aligned(" : " grid-aligned(", p.axis, ")");
    d += " features:";
    for (int f = 0; f < feature_count; ++f)
        if (p.features[std::size_t(f)]) d += std::string(" ") + feature_names[std::size_t(f)];
    if (!p.pile.empty()) d += " | pile: " + p.pile + str(", duration ", p.duration);
    return d + str(" | maintain_every=", p.maintain_every, " event_cap=", p.event_cap,
                   " collision_cap=", p.collision_cap, " checkpoints=", p.checkpoints,
                   " step=", p.step);
}

struct Family {
    std::uint64_t runs = 0, collisions = 0, events = 0, failures = 0;
};

// Cases that fail on an engine bug this scan found and that is not fixed yet (docs/DEVELOPING.md,
// "Soak tests": known engine bugs). Each must still fail as expected: one that passes
// fails the scan, so that the list cannot outlive the bug.
struct KnownFailure {
    std::uint64_t seed;
    const char* check; // the check it fails
    const char* bug;
};
constexpr std::array<KnownFailure, 0> known_failures{};

// Cases that failed on an engine bug since fixed: the fast slice runs them too, and the
// long slice first those too slow for the fast one.
struct FixedFailure {
    std::uint64_t seed;
    const char* bug;
    bool slow = false; // (half a minute or more: the long slice's)
};
constexpr std::array fixed_failures{
    FixedFailure{4077865634962854699ull,
                 "livelock: epsilon > 0 with restitution < 1, a contact the group rule left "
                 "at rest was predicted again at the same instant (issue 40)"},
    FixedFailure{9647990790255583171ull,
                 "contact distance: a disc in TC micro-bounces on a tilted plane under "
                 "gravity sank by an ulp a bounce, each flight measured from contact "
                 "instead of from its rounded overlap (issue 40)"},
    FixedFailure{17988110416831559236ull,
                 "event order: a sheared inelastic gas with TC and maintenance every 109 "
                 "events kept a runner-up an ulp before its best (compared as intervals from "
                 "a clock just rebased, stored as absolute times) and promoted it when the "
                 "best proved stale, behind the clock (issue 40)"},
    FixedFailure{17361983651036864775ull,
                 "contact distance: a disc sliding along a tilted segment under gravity in TC "
                 "micro-bounces rising less than an ulp of its coordinates sank by the rounding "
                 "of each flight's end, no flight able to rise out of the overlap (issue 40)"},
    FixedFailure{12532767243672626640ull,
                 "livelock: discs under gravity with tilted planes and TC; a disc sunk 6e-11 "
                 "into a plane the same way, its normal speed left to round-off and then zero, "
                 "met the plane at one instant for ever (issue 40)"},
    FixedFailure{16504033785178342395ull,
                 "livelock: a 3D pile of 1362 spheres under gravity with planes, triangles, "
                 "TC and the rest model: a million events at one instant at t = 46.9, until "
                 "the rest model stopped stalls (Engine::rescue_stall; issue 40); once glides "
                 "led a sphere to a ridge of its mesh at no speed, a lean there (t = 11.17)"},
    FixedFailure{14466090374848110308ull,
                 "livelock: a dilute 2D pile of 971 discs under gravity between walls and "
                 "planes, TC and the rest model: a disc woken from rest on the tilted plane, at "
                 "contact with no velocity at all, met it again at the same instant for ever "
                 "(t = 21.69), until glides followed slopes (Engine::glide_slot_on; issue 40)",
                 true},
    FixedFailure{11682011839193705786ull,
                 "livelock: the same slope: 2512 spheres under gravity in a walled box with two "
                 "tilted planes, TC and the rest model; a sphere woken from rest on a tilted "
                 "plane with no velocity at all (t = 4.251), until glides followed slopes"},
    FixedFailure{18193087561354815542ull,
                 "exception (a stall the rescue did not end): a 3D walled fcc mixture of 1340 "
                 "spheres under tilted gravity, TC and the rest model; a sphere sliding along "
                 "the edge of two box walls, pressed onto both, hopped from one glide to the "
                 "other at one instant for ever (t = 3.787), until glides ran in creases "
                 "(Engine::crease_of; issue 40)",
                 true},
    FixedFailure{9564059025244880716ull,
                 "invariant progress: a dense 2D hex lattice of 1229 discs under tilted gravity "
                 "and drag, TC, no rest model; a disc at a side wall the field presses it onto, "
                 "its normal speed at round-off and then zero, met it at one instant for ever "
                 "(t = 2.6538): now a collapse that names the rest model, as a slide without it "
                 "is (Engine::slide_without_rest_model; issue 40)"},
    FixedFailure{15753949552035431234ull,
                 "livelock: 1868 spheres under gravity with planes and triangles, inelastic "
                 "with TC, epsilon > 0: two spheres on the floor under a third, left by the "
                 "group rule approaching the floor at 1e-10 (at rest by its standard), met it "
                 "again at once, 4096 groups at t = 23.73 without the clock moving, until such "
                 "wall contacts were reflected (GroupStep::reflect_wall_residuals; issue 40)"},
    FixedFailure{15900577182696255269ull,
                 "contact distance: a 2D size-disperse mixture of 3585 discs under gravity "
                 "with planes, inelastic with TC, epsilon > 0: a small disc (radius 0.08) "
                 "sliding down plane 5 in elastic TC bounces rising 5e-16 sank 8e-11 into it "
                 "by t = 1.934: with epsilon > 0 its wall events went to the group step, which "
                 "did not put a particle back on the contact as the binary rule does "
                 "(GroupStep::back_to_contact; issue 40)"},
    FixedFailure{13802367831416028680ull,
                 "contact distance: a 2D periodic gas of 347 plastic discs (e = 0) with two "
                 "segments, gravity along a diagonal, TC (1.9e-6), epsilon = 2.5e-10: a disc "
                 "sank into a segment's face, 1e-9 of its radius at t = 22.197, the same way "
                 "(GroupStep::back_to_contact; issue 40)"},
    FixedFailure{18319875465077269755ull,
                 "invariant progress: 620 discs of two sizes, a touching lattice dropped onto "
                 "an elastic plane tilted by 18 degrees, TC, no rest model: a row of six "
                 "touching discs falling as one, the end one pressed from below at 1e-16, "
                 "passed a sideways 1e-23 along the row and back at one instant for ever "
                 "(t = 3.1926), each collision changing no vertical speed; now a long "
                 "instant's pairs approaching by round-off are left as they are, as with the "
                 "rest model (Engine::at_rest_contact; issue 40)"},
    FixedFailure{16750164596539644882ull,
                 "invariant progress: a 3D lattice of 1239 spheres with aligned velocities "
                 "dropped on the floor under tilted gravity, inelastic with TC, no rest model: "
                 "a million events at one instant at t = 2.684, the same way "
                 "(Engine::at_rest_contact; issue 40)",
                 true},
    FixedFailure{15487791520201613362ull,
                 "contact distance: a dilute 2D mixture of 476 discs, walled, gravity along -x, "
                 "TC and the rest model: a disc hopping off the floor at 0.025 beside one at "
                 "rest was met by it 1e-3 into the hop, 1.14e-9 of the contact distance "
                 "apart (t = 34.459): the search for a flight meeting a fixed sphere grew its "
                 "steps by 3 % each, ran out of steps and returned where it stood; its steps "
                 "now use a bound of F'' from its value (convex_time.hpp; issue 40)"},
    FixedFailure{9279866344031185594ull,
                 "overlap: 746 discs dropped as a lattice into a hopper of two segments, the "
                 "rest model without TC: two touching discs of a row falling as one, left "
                 "approaching at 1.7e-9 by a long instant (Engine::at_rest_contact), were "
                 "not predicted again until either changed course, and flew 1.9e-9 into each "
                 "other by t = 3.615; a contact held at rest is now met again when its flight "
                 "would take it a quarter of the contact tolerance deeper "
                 "(Engine::held_contact_delay; issue 40)"},
    FixedFailure{18440032211228958528ull,
                 "livelock (the scan's check, not the engine): found by Session 35's long "
                 "slice in the family it had opened, the rest model with epsilon > 0: 216 "
                 "spheres on a corrugated mesh of triangles, tilted gravity, epsilon = 1e-6, "
                 "no TC; at t = 16.3608 a sphere pressed onto a triangle with no speed across "
                 "it, not gliding, was met at once by groups that changed nothing and counted "
                 "nothing, 4096 of them, the scan's chunk; the engine's rescue ends that "
                 "instant after 2 (16 N + 10,000) steps, and the scan now waits that long "
                 "with the rest model (since Session 36 it ends at t = 17.58 on the engine's "
                 "named collapse: a stall the rescue does not end, met at another instant "
                 "once Session 36's mending of glides on meshes changed its trajectory)"},
    FixedFailure{12855189909378056514ull,
                 "collapse: a 3D touching lattice of 1790 spheres dropped into a trough of "
                 "triangles under tilted gravity, TC and the rest model: its impact carried "
                 "through the lattice at one instant (t = 1.2495), and the rescue stopped only "
                 "the spheres that had collided there, onto which the rest of the lattice fell "
                 "at once, a new stall to the stuck limit; before the wake speed, pairs of the "
                 "lattice left approaching at up to 1e-9 of their speeds by long instants "
                 "(t = 1.8711). The rescue now stops, with them, every particle touching one "
                 "stopped and moving towards it (Engine::rescue_stall), and a long instant "
                 "leaves only pairs approaching by round-off (Engine::at_rest_contact; "
                 "issue 40)"},
    FixedFailure{4522235383899983236ull,
                 "time: a 3D lattice of 564 spheres dropped under tilted gravity, TC, no rest "
                 "model: a sphere touching a box wall with no speed across it met it 72,380 "
                 "times at t = 0, the scan's event cap before the engine's stuck limit, where "
                 "the engine names the slide: the scan now gives a case stuck at t = 0 that "
                 "room (not the engine: issue 40)"},
    FixedFailure{11607331221862812016ull,
                 "contact distance, then livelocks: found by Session 36's long slice, 1314 "
                 "spheres on a corrugated strip of triangles, epsilon = 1e-9, TC and the rest "
                 "model. A glide ended on a strip's diagonal with the centre a rounding below "
                 "the face and rising by less, or in the crack between two coplanar triangles "
                 "(over neither), and the neighbour was met by no face: spheres sank 1.6e-3 "
                 "(t = 4.07) and 1.8e-5 (t = 6.94) of a radius into it (Engine::leave_glide "
                 "now puts the centre back on the contact and 16 ulps past the edge). Then "
                 "spheres on a valley's line: a face the centre is over but for round-off was "
                 "taken for a rim (Triangle::over_face), and a glide along the valley met the "
                 "coplanar neighbours' rims at once (Engine::predict_triangles now passes by "
                 "the planes it glides on): each at one instant for ever (issue 40)"},
    FixedFailure{7458845209701578175ull,
                 "overlap: found by Session 37's long slice, a 2D mixture of 494 discs dropped "
                 "as a gas into a vee of two planes, epsilon > 0, the rest model: a contact "
                 "the group rule left at rest between a falling disc and one gliding on a "
                 "plane was met again on a straight relative flight, which never closes, "
                 "while the glide's pull brought the pair back 0.174 later, 1.2e-4 into each "
                 "other at t = 9.2475; a held contact of flights that differ in kind is now "
                 "met by the curved search (Engine::held_contact_delay; issue 40)"},
    FixedFailure{17490269308650574974ull,
                 "contact distance: found by Session 36's long slice, a 2D square lattice of "
                 "935 discs with grid-aligned velocities, gravity, TC, epsilon > 0, the rest "
                 "model: the same bug, discs 6 and 5 held at t = 6.4707, their return 0.035 "
                 "later missed, 2.4e-7 into each other at t = 6.596"},
    FixedFailure{1241352698561889693ull,
                 "contact distance: found by Session 36's long slice, an fcc lattice of 1743 "
                 "spheres, gravity, TC, epsilon > 0, the rest model: the same bug, spheres "
                 "1156 and 1651 held at t = 10.909, their return 0.0064 later missed, 4.1e-6 "
                 "into each other at t = 11.01"},
    FixedFailure{14391967710590972186ull,
                 "contact distance: found by Session 36's long slice, 749 spheres in a vee of "
                 "two planes, epsilon > 0, the rest model: the same bug, spheres 524 and 492 "
                 "held at t = 8.6989, their return 0.100 later missed, 8.1e-6 into each other "
                 "at t = 8.809"},
    FixedFailure{13963152623220796937ull,
                 "overlap: found by Session 36's long slice, 1456 spheres dropped onto a ramp "
                 "of two coplanar triangles, epsilon > 0, the rest model: a sphere lying on "
                 "the ramp at the shared edge, over one face by a glide's clearance, woken "
                 "and sliding along the edge, met the other triangle's rim an ulp of the "
                 "clock apart for ever without gliding (a rim), so that a neighbour came 1e-9 "
                 "into it at t = 2.2716; the rim of a coplanar neighbour is now the face's "
                 "contact (Engine::face_beside_rim; issue 40). Until Session 37 it failed at "
                 "t = 2.0543 on the ramp bug",
                 true},
    FixedFailure{343690472678409353ull,
                 "contact distance: found by Session 36's long slice, 224 spheres on a tilted "
                 "plane, tilted gravity, epsilon > 0, the rest model: two spheres sliding one "
                 "behind the other down the edge of two box walls, left approaching head on at "
                 "2.1e-9 by the group rule (at rest by 1e-9 of V, the spheres' speed along the "
                 "walls), were met a quarter of the contact tolerance deeper by their hold and "
                 "left so by the rule again, four times, 1e-9 deep at t = 3.966 (a group now "
                 "reflects a pair a hold carried in, GroupStep::reflect_held_pairs); and the "
                 "steps of spheres touching both walls, pressed onto one, took the other as "
                 "the face to glide on, did not glide and were met at once, at one instant "
                 "until the rescue stopped them dead (GroupStep::obstacle_met now takes a "
                 "face the field presses onto; issue 40)"},
    FixedFailure{13865248799175595280ull,
                 "livelock: found by Session 39's long slice, 492 discs dropped onto a floor "
                 "of segment teeth, gravity, TC, epsilon > 0, no rest model: a disc sliding "
                 "up a tooth's face, 1.2e-7 short of its apex, left by a group 1.4e-14 "
                 "outside the apex's circle with no speed towards it, pressed on by the "
                 "field, was met by the apex at once in 4096 groups that changed nothing at "
                 "t = 7.1959; a convex search pressed in from a gap above zero now measures "
                 "its contact from that gap (convex_time.hpp; issue 40)"},
};

struct Scan {
    std::string program;
    bool verbose = false;
    bool setup_only = false;  // build each case's start, run none
    bool show_config = false; // print every case's config, not only a failed one's
    // run only the cases of this family (a feature name; empty: all)
    std::optional<std::size_t> only_family;
    std::array<Family, feature_count> family{};
    Family all;
    double worst_overlap = 0.0, worst_gap = 0.0, worst_group_gap = 0.0, slowest = 0.0;
    std::uint64_t slowest_seed = 0, lowered = 0;
    // piles run to their end: lossy ones, those settled there, those cut short by events
    std::uint64_t piles_lossy = 0, piles_settled = 0, piles_cut = 0;
    std::uint64_t collapsed = 0; // stopped by a collapse without TC (run: not a failure)

    // Whether the seed's case is of the family asked for (every case when none is).
    bool wanted(std::uint64_t seed) const {
        return !only_family || draw(seed).features[*only_family];
    }

    void one(std::uint64_t seed) {
        Params p;
        Outcome o = run(seed, p, setup_only);
        for (const KnownFailure& k : known_failures) {
            // (a setup-only run meets no engine bug: every listed case must set up)
            if (k.seed != seed || setup_only) continue;
            if (o.check == k.check) {
                std::printf("case %llu: known failure (%s: %s)\n  now: %s\n",
                            static_cast<unsigned long long>(seed), k.check, k.bug, o.what.c_str());
                o.check.clear();
            } else {
                o.what = str("listed as a known failure (", k.check, ") but ",
                             o.check.empty() ? std::string("passed: remove it from the list")
                                             : "failed " + o.check + ": " + o.what);
                o.check = "known failure";
            }
        }
        const bool failed = !o.check.empty();
        auto add = [&](Family& f) {
            ++f.runs;
            f.collisions += o.collisions;
            f.events += o.events;
            f.failures += failed;
        };
        add(all);
        for (int f = 0; f < feature_count; ++f)
            if (p.features[std::size_t(f)]) add(family[std::size_t(f)]);
        worst_overlap = std::max(worst_overlap, o.worst_overlap);
        (o.groups ? worst_group_gap : worst_gap) =
            std::max(o.groups ? worst_group_gap : worst_gap, o.worst_gap);
        if (o.seconds > slowest) slowest = o.seconds, slowest_seed = seed;
        lowered += o.lowered > 0;
        collapsed += o.stop == "collapse";
        if (!failed && o.agitation >= 0.0) {
            // Settled: kinetic energy below a hundredth of lifting every particle by one
            // diameter (rms speed about 0.14 sqrt(|g| d)); an elastic pile never settles.
            const bool lossy = p.features[inelastic] || p.features[resting];
            piles_lossy += lossy;
            piles_settled += lossy && o.agitation < 0.01;
            piles_cut += o.stop == "events";
        }
        std::printf("case %llu: %s, t = %.6g, %llu collisions, %llu events, overlap %.2g, gap "
                    "%.2g, %.2f s\n",
                    static_cast<unsigned long long>(seed),
                    failed ? "FAILED" : ("ok (" + o.stop + ")").c_str(), o.time,
                    static_cast<unsigned long long>(o.collisions),
                    static_cast<unsigned long long>(o.events), o.worst_overlap, o.worst_gap,
                    o.seconds);
        if (verbose || failed)
            std::printf("  %s%s\n", describe(p).c_str(),
                        o.lowered ? str(" | density lowered ", o.lowered, " times").c_str() : "");
        if (verbose && o.agitation >= 0.0) {
            std::printf("  pile: kinetic energy over M |g| d at the checkpoints (t, events):");
            for (const auto& [t, events, k] : o.settling)
                std::printf(" %.3g (%.4g, %.3g)", k, t, events);
            std::printf("; %.3g at the end\n", o.agitation);
        }
        if (verbose)
            std::printf("  worst overlap at collisions %.3g (%s), at checkpoints %.3g, at the end "
                        "%.3g\n",
                        o.at_collisions, o.worst_collision.c_str(), o.at_checkpoints, o.at_end);
        if (failed) std::printf("  failed check: %s\n  %s\n", o.check.c_str(), o.what.c_str());
        if (failed || show_config) { // (--case: a known failure's too)
            std::printf("  config:\n");
            std::string line;
            for (const char c : o.config)
                if (c == '\n')
                    std::printf("    %s\n", line.c_str()), line.clear();
                else
                    line += c;
            std::printf("  reproduce: %s --case %llu\n", program.c_str(),
                        static_cast<unsigned long long>(seed));
        }
        std::fflush(stdout);
    }

    int summary(const std::string& slice, double seconds) const {
        std::printf("\nsoak_scan %s: %llu runs in %.1f s, %llu collisions, %llu events, %llu "
                    "failures\n",
                    slice.c_str(), static_cast<unsigned long long>(all.runs), seconds,
                    static_cast<unsigned long long>(all.collisions),
                    static_cast<unsigned long long>(all.events),
                    static_cast<unsigned long long>(all.failures));
        std::printf("%-14s %6s %14s %14s %8s\n", "family", "runs", "collisions", "events",
                    "failures");
        for (int f = 0; f < feature_count; ++f) {
            const Family& x = family[std::size_t(f)];
            std::printf("%-14s %6llu %14llu %14llu %8llu\n", feature_names[std::size_t(f)],
                        static_cast<unsigned long long>(x.runs),
                        static_cast<unsigned long long>(x.collisions),
                        static_cast<unsigned long long>(x.events),
                        static_cast<unsigned long long>(x.failures));
        }
        std::printf("worst overlap seen %.3g (tolerance %.0e); worst gap at a collision %.3g "
                    "with epsilon = 0 (tolerance %.0e), %.3g with epsilon > 0\n",
                    worst_overlap, overlap_tolerance, worst_gap, gap_tolerance, worst_group_gap);
        std::printf("slowest case %llu (%.1f s); %llu cases started below their drawn density\n",
                    static_cast<unsigned long long>(slowest_seed), slowest,
                    static_cast<unsigned long long>(lowered));
        if (collapsed > 0)
            std::printf("%llu runs stopped by an inelastic collapse that the rest model's rescue "
                        "did not end, without TC (the model's documented outcome: a stop)\n",
                        static_cast<unsigned long long>(collapsed));
        const Family& piled = family[piles];
        if (piled.runs > 0)
            std::printf("piles: %llu of %llu lossy ones passed settled (kinetic energy below "
                        "0.01 M |g| d at their end); %llu stopped by their event cap before "
                        "their duration\n",
                        static_cast<unsigned long long>(piles_settled),
                        static_cast<unsigned long long>(piles_lossy),
                        static_cast<unsigned long long>(piles_cut));
        return all.failures > 0 ? 1 : 0;
    }
};

// Cases of the fast slice: fixed seeds, short cases only.
constexpr std::uint64_t fast_base = 0x5ca9'0f'c0c'0001ull;
constexpr std::uint64_t fast_count = 500;

int usage(const char* program) {
    std::fprintf(stderr,
                 "usage: %s --slice fast [--count K] | --slice long [--minutes M] [--count K]\n"
                 "       | --case SEED\n"
                 "       [--family NAME] [--unlisted] [--setup-only] [--verbose]\n"
                 "  --family NAME  only the slice's cases of that feature family\n"
                 "  --unlisted     only the slice's drawn cases, not its lists of fixed and\n"
                 "                 known failures (the sanitized build's fast slice)\n"
                 "  --setup-only   build each case's start (placing its particles), run none\n",
                 program);
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    spdlog::set_level(spdlog::level::err); // the library's info and warnings, per case, are noise
    Scan scan;
    scan.program = argv[0];
    std::string slice;
    std::optional<std::uint64_t> only, count;
    double minutes = 15.0;
    bool unlisted = false;
    for (int k = 1; k < argc; ++k) {
        const std::string a = argv[k];
        const bool has_value = k + 1 < argc;
        if (a == "--slice" && has_value)
            slice = argv[++k];
        else if (a == "--case" && has_value)
            only = std::stoull(argv[++k], nullptr, 0);
        else if (a == "--count" && has_value)
            count = std::stoull(argv[++k]);
        else if (a == "--family" && has_value) {
            const std::string name = argv[++k];
            const auto f = std::find(feature_names.begin(), feature_names.end(), name);
            if (f == feature_names.end()) {
                std::fprintf(stderr, "%s: no family \"%s\"\n", argv[0], name.c_str());
                return usage(argv[0]);
            }
            scan.only_family = static_cast<std::size_t>(f - feature_names.begin());
        } else if (a == "--setup-only")
            scan.setup_only = true;
        else if (a == "--unlisted")
            unlisted = true;
        else if (a == "--minutes" && has_value)
            minutes = std::stod(argv[++k]);
        else if (a == "--verbose")
            scan.verbose = true;
        else
            return usage(argv[0]);
    }
    const auto begin = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    };
    if (only) {
        scan.verbose = scan.show_config = true;
        scan.one(*only);
        return scan.summary("case", elapsed());
    }
    const auto listed = [&](std::uint64_t seed) {
        if (scan.wanted(seed)) scan.one(seed);
    };
    if (slice == "fast") {
        for (std::uint64_t k = 0; k < count.value_or(fast_count); ++k)
            listed(case_seed(fast_base, k) & ~long_bit);
        if (!unlisted)
            for (const FixedFailure& f : fixed_failures)
                if (!f.slow) listed(f.seed);
    } else if (slice == "long") {
        const std::uint64_t base =
            (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
        std::printf("long slice: base seed %llu, %.1f minutes\n",
                    static_cast<unsigned long long>(base), minutes);
        // the lists first: the slow fixed failures, and the known ones (each must still
        // fail as listed, so that the list cannot outlive its bug)
        if (!unlisted)
            for (const FixedFailure& f : fixed_failures)
                if (f.slow) listed(f.seed);
        if (!scan.setup_only && !unlisted)
            for (const KnownFailure& f : known_failures) listed(f.seed);
        for (std::uint64_t k = 0; elapsed() < 60.0 * minutes && k < count.value_or(~0ull); ++k)
            listed(case_seed(base, k));
    } else {
        return usage(argv[0]);
    }
    return scan.summary(slice, elapsed());
}
