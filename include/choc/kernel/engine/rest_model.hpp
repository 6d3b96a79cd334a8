// The rest model, a part of the engine (docs/ARCHITECTURE.md, "The engine's parts";
// resting.hpp; REFERENCE and PHYSICS, "Particles at rest"; settings.rest_speed > 0,
// under gravity): particles put to rest on their supports, met as fixed spheres, woken by
// an impact, and a stall rescued. It keeps its own state (its rule, the count at rest,
// the scratch lists of its searches, the cycles of one instant) and reaches the rest of
// the engine through the engine's Kernel (engine/kernel.hpp); its glides are a part of
// their own (engine/glides.hpp), which it starts.
//
// A particle at rest has the stamp rest_stamp (particles.hpp), velocity zero, no
// candidate events and no calendar entry; Field's position and velocity know it. Its
// pairs are on the moving particles' schedules: an awake particle meets it as a fixed
// sphere of radius sigma round its centre, on a curved flight, by the certified steps
// of a segment's end (end_time, convex_time.hpp) searched no further than the pair
// horizon or the cell crossing, whichever is first; at a crossing the particle looks
// again at every particle at rest around it (rescan_resting). The covering argument
// at the top of engine.hpp then holds as before: a pair whose trajectories changed is
// predicted by the one that changed, or, when it is the one put to rest, by every
// awake particle around it (put_to_rest).
#pragma once

#include "choc/kernel/collide.hpp"
#include "choc/kernel/engine/glides.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/rest_cycle.hpp"
#include "choc/kernel/rest_group.hpp"
#include "choc/kernel/resting.hpp"
#include "choc/kernel/segment_time.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace choc {

// Under gravity with settings.rest_speed > 0: a particle at rest has no events of its
// own and is met as a fixed sphere; a slow one on a floor glides along it (Glides).
// Without a field nothing rests or glides.
template <int D, Motion<D> M>
class RestModel {
  public:
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

    // Switches it on (settings.rest_speed > 0): its rule, and the particles at rest now.
    // Throws std::invalid_argument without gravity.
    template <class Kernel>
    void set_up(Kernel e);
    // Its rule (off unless set up), and how many particles are at rest now.
    const RestRule& rule() const { return rule_; }
    bool on() const { return rule_.on(); }
    std::uint32_t at_rest() const { return at_rest_; }

    // After a collision at now (with obstacle w, if one): i put to rest, gliding, or
    // predicted anew.
    template <class Kernel>
    void predict_or_rest(Kernel e, std::uint32_t i, std::uint32_t w = none);
    // A moving particle meets one at rest (i, j): the fixed sphere's rule, or j woken.
    template <class Kernel>
    void meet_resting(Kernel e, std::uint32_t i, std::uint32_t j) requires M::has_field;
    // When q (a flight from now on `flight`) meets a particle at rest at x, within `window`.
    static double time_to_resting(const M& flight, const ParticleState<D>& q, const Vec<D>& x,
                                  double sigma, double window);
    // After a crossing: i's meetings with particles at rest and gliders searched again.
    template <class Kernel>
    void rescan_resting(Kernel e, std::uint32_t i);
    // A stall over the last `span` of time stopped (Engine::rescue_stall).
    template <class Kernel>
    void rescue_stall(Kernel e, double span);
    // The particles woken by an impact at this instant wake those they held at its end
    // (wake_above): the engine calls end_instant before its clock moves on, before
    // maintenance renumbers, and before run() returns, whenever an instant is open.
    bool instant_open() const { return !struck_.empty(); }
    template <class Kernel>
    void end_instant(Kernel e);

    // The checkpoint: who was woken and put to rest again at this instant.
    template <class Archive>
    void fields(Archive& ar) {
        ar(cycle_);
    }
    // The clock's origin moved by `shift` (Engine::rebase).
    void rebase(double shift) { cycle_.shift(shift); }

  private:
    // Whether i, slow, is held where it is (by its supports, or resting together with
    // others), and putting it to rest.
    template <class Kernel>
    bool held(Kernel e, std::uint32_t i) requires M::has_field;
    template <class Kernel>
    bool rests_together(Kernel e, std::uint32_t i) requires M::has_field;
    template <class Kernel, class F>
    void for_each_support(Kernel e, std::uint32_t i, double reach, F&& f) requires M::has_field;
    template <class Kernel, class F>
    void for_each_support(Kernel e, std::uint32_t i, const Vec<D>& x, double reach,
                          F&& f) requires M::has_field;
    template <class Kernel>
    void put_to_rest(Kernel e, std::uint32_t i) requires M::has_field;
    template <class Kernel>
    bool trapped(Kernel e, std::uint32_t i) requires M::has_field;
    template <class Kernel>
    bool leans(Kernel e, std::uint32_t i) requires M::has_field;
    template <class Kernel>
    bool returns_within(Kernel e, const Vec<D>& n, double d, const Vec<D>& v, double window,
                        double height) const requires M::has_field;
    template <class Kernel>
    double round_off_height(Kernel e, const ParticleState<D>& p) const;
    template <class Kernel>
    double round_off_time(Kernel e, const ParticleState<D>& p) const requires M::has_field;
    // The fixed sphere's restitution; the waking of j and of what rests on it.
    template <class Kernel>
    double rest_impact_restitution(Kernel e, std::uint32_t i,
                                   std::uint32_t j) const requires M::has_field;
    template <class Kernel>
    void free_from_contacts(Kernel e, std::uint32_t i) requires M::has_field;
    template <class Kernel>
    void wake(Kernel e, std::uint32_t j) requires M::has_field;
    template <class Kernel>
    void wake_above(Kernel e, std::uint32_t j) requires M::has_field;

    // Its rule, the particles at rest now, and the scratch lists of `held` and `wake_above`
    RestRule rule_;
    std::uint32_t at_rest_ = 0;
    std::vector<Vec<D>> normals_;
    // rests_together's memory: the group, its positions now, each particle's slot in it
    // (none outside a call), and the judge of who holds whom
    std::vector<std::uint32_t> group_;
    std::vector<Vec<D>> group_x_;
    std::vector<std::uint32_t> slot_;
    RestGroup<D> judge_;
    std::vector<std::uint32_t> woken_;
    std::vector<std::uint32_t> above_;  // (wake_above)
    std::vector<std::uint32_t> struck_; // woken by an impact at this instant (end_instant)
    RestCycle cycle_;                   // woken and put to rest again at this instant
};

// A stall over the last `span` of time (the caller's collapse watch found it,
// collapse_watch.hpp, or an instant the plastic collisions did not end): every particle
// that collided within it stops where it is, its kinetic energy booked as the rest
// model's, and moves on from rest (put to rest if held, else falling). The stall's
// particles collide again and again within its span; a flowing one, colliding once in
// a mean free time, does not and goes on. Seen: two discs beside one at rest in a
// horizontal row, the outer one rising at 0.014 past the middle one, pinned against the
// one at rest: the contact normals differ by 2e-6 rad, and plastic collisions, one
// contact at a time, took half the approach away at each round, a million times at
// one instant (the 2D hourglass, rest_speed 0.01, TC, t = 40.2). Stopped together they
// have no relative velocity left, exactly, and the clock moves on. This is the limit
// of an inelastic collapse in a jam, particles in lasting contact, taken at once
// (docs/PHYSICS.md, "Particles at rest").
//     A particle touching a stopped one and moving towards it is stopped with them, and
// so on through the contacts: it would meet the stopped one at once, at the same
// instant, and start the stall again. Seen: a touching fcc lattice of 1790 spheres
// falling as one at 0.87 into a trough of triangles, its impact carried through the
// lattice at one instant; the rescue stopped the spheres that had collided there, and
// the rest of the lattice, falling onto them, made a new stall at that instant that
// ran into the stuck limit (scan case 12855189909378056514, t = 1.2495, TC: `collapse`).
// (Without a field there is no rest model: nothing to do.)
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::rescue_stall(Kernel e, double span) {
    if constexpr (M::has_field) {
        if (!rule_.on()) return;
        std::vector<std::uint32_t>& stopped = woken_;
        stopped.clear();
        const auto stop = [&](std::uint32_t i) {
            auto& p = e.particles().state[i];
            e.advance(i);
            e.end_glide(i);
            const double k = kinetic_energy(e.particles().mass(i), p.v);
            e.kinetic_change(p.species, -k);
            e.tally().rest_energy += k;
            p.v = Vec<D>{};
            p.bump();
            e.forget_partner(i);
            slot_[i] = 0; // (marks it stopped; the slots are none outside calls)
            stopped.push_back(i);
        };
        for (std::uint32_t i = 0; i < e.particles().size(); ++i) {
            const auto& p = e.particles().state[i];
            if (!p.resting() && e.now() - e.last_collision(i) <= span) stop(i);
        }
        for (std::size_t n = 0; n < stopped.size(); ++n) {
            const std::uint32_t b = stopped[n];
            const Vec<D> xb = e.particles().state[b].x;
            e.for_each_near(b, [&](std::uint32_t k, const Vec<D>& shift) {
                const auto& pk = e.particles().state[k];
                if (k == b || pk.resting() || slot_[k] != none) return;
                const ParticleState<D> qk = e.flight_from_now(k);
                const Vec<D> r = xb - (qk.x + shift); // from k to b
                const double sigma =
                    e.particles().table.pair_sigma(e.particles().state[b].species, pk.species);
                if (norm(r) - sigma > e.contact_tolerance() * sigma || dot(qk.v, r) <= 0.0) return;
                stop(k);
            });
        }
        for (const std::uint32_t i : stopped) slot_[i] = none;
        ++e.tally().rescues;
        // (predict_or_rest may put others of them to rest together with one)
        for (const std::uint32_t i : stopped)
            if (!e.particles().state[i].resting()) predict_or_rest(e, i);
    }
}

// After a collision at now (with wall w, if one): i is put to rest if slow and held, or
// glides along w if w is a floor it left slowly, else is predicted anew.
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::predict_or_rest(Kernel e, std::uint32_t i, std::uint32_t w) {
    if constexpr (M::has_field) {
        if (rule_.on() && rule_.slow(e.particles().state[i].v)) [[unlikely]] {
            if (e.particles().state[i].resting()) return; // (put to rest with i's partner)
            if (held(e, i)) return put_to_rest(e, i);
            if (rests_together(e, i)) return;
        }
        if (w != none && rule_.on()) {
            w = e.glides().face_beside_rim(e, i, w);
            if (const std::uint32_t slot = e.glides().glide_slot_on(e, i, w); slot > 0)
                [[unlikely]] {
                if (!e.glides().start_glide(e, i, w, slot)) { // a corner, or loaded: a lean
                    ++e.tally().leans;
                    put_to_rest(e, i);
                }
                return;
            }
            // Slow off an obstacle it does not glide on (a segment's end, a triangle's
            // edge or vertex) and pressed back onto one within round-off: leaning, as
            // off a particle at rest (meet_resting). Seen: a sphere come to a ridge of
            // a corrugated mesh at no speed, met by the ridge at one instant for ever
            // (scan case 16504033785178342395, t = 11.17, once glides led it there).
            if (rule_.slow(e.particles().state[i].v) && leans(e, i)) [[unlikely]]
                return;
        }
    }
    e.predict_all(i);
}

// Time until particle q (a flight from now, stamp 0, on `flight`) first touches the point
// x at distance sigma: a particle at rest, looked at by i, within i's `window`
// (Engine::meeting_window: its pair horizon or its cell crossing).
template <int D, Motion<D> M>
inline double RestModel<D, M>::time_to_resting(const M& flight, const ParticleState<D>& q,
                                               const Vec<D>& x, double sigma, double window) {
    return end_time(flight, x, q, sigma, window);
}

// Particle i (awake, advanced to now, just collided) is held against gravity by its
// supports within reach: the box walls and [[walls]] planes that reflect (a thermal
// wall re-emits: it holds nothing), segments, triangles and particles at rest.
template <int D, Motion<D> M>
template <class Kernel>
inline bool RestModel<D, M>::held(Kernel e, std::uint32_t i) requires M::has_field {
    std::vector<Vec<D>>& normals = normals_;
    normals.clear();
    for_each_support(e, i, rule_.reach, [&](const Vec<D>& n, double) { normals.push_back(n); });
    return holds_against_gravity<D>(normals, e.motion().gravity());
}

// Particle i (awake, advanced to now, slow) is not held by supports at rest alone; it
// may be by slow awake particles it touches, held in turn by it. Seen: a disc on
// one at rest, a little beside its top, pressed on it by a disc above it that rested
// on it and on another at rest; neither could rest first, and 25 such discs of the
// 60-disc box (e = 0.8, seed 11, TC) kept 330,000 elastic micro-collisions per time
// unit going at speeds of 1e-4. The slow awake particles that touch i, and those that
// touch them (at most rest_cluster_limit in all), are gathered with their positions
// now; those not held by their supports and the others still gathered are let go until
// each left is held; the ones left (i among them or not) are put to rest together. A
// group held so is held against gravity as a whole: its lowest particle is held by
// supports at rest, since every contact with another of the group pushes it down or
// sideways. The energy booked is at most m v_rest² / 2 a particle.
template <int D, Motion<D> M>
template <class Kernel>
inline bool RestModel<D, M>::rests_together(Kernel e, std::uint32_t i) requires M::has_field {
    std::vector<std::uint32_t>& group = group_;
    std::vector<Vec<D>>& where = group_x_;
    RestGroup<D>& judge = judge_;
    judge.clear();
    group.assign(1, i);
    where.assign(1, e.particles().state[i].x);
    slot_[i] = 0;
    const double reach = rule_.reach;
    for (std::size_t n = 0; n < group.size(); ++n) {
        const std::uint32_t b = group[n];
        const Vec<D> xb = where[n];
        e.for_each_near(b, [&](std::uint32_t k, const Vec<D>& shift) {
            const auto& pk = e.particles().state[k];
            if (k == b || pk.resting()) return;
            const ParticleState<D> qk = e.flight_from_now(k);
            const Vec<D> r = xb - (qk.x + shift);
            const double d = norm(r);
            if (d - e.particles().table.pair_sigma(e.particles().state[b].species, pk.species) >
                reach)
                return;
            if (!rule_.slow(qk.v)) return; // a fast one is no support
            std::uint32_t m = slot_[k];
            if (m == none) {
                if (group.size() >= rest_cluster_limit) return;
                m = slot_[k] = static_cast<std::uint32_t>(group.size());
                group.push_back(k);
                where.push_back(qk.x);
            }
            judge.add_contact(static_cast<std::uint32_t>(n), m, r * (1.0 / d));
        });
    }
    for (const std::uint32_t b : group) slot_[b] = none; // (the slots are scratch)
    if (group.size() < 2) return false;
    for (std::size_t n = 0; n < group.size(); ++n) {
        for_each_support(e, group[n], where[n], rule_.reach,
                         [&](const Vec<D>& nn, double) { judge.add_support(nn); });
        judge.end_supports();
    }
    const std::vector<char>& in = judge.solve(e.motion().gravity());
    bool any = false;
    for (std::size_t n = 0; n < group.size(); ++n) {
        if (!in[n]) continue;
        const std::uint32_t b = group[n];
        if (b != i) {
            e.advance(b);
            e.end_glide(b);
        }
        ++e.tally().leans;
        put_to_rest(e, b);
        any = any || b == i;
    }
    return any;
}

// Calls f(n, d) for each support of particle i (at now) within `reach` of contact: a box
// wall or [[walls]] plane that reflects, a segment, a triangle (from its front if
// one-sided) or a particle at rest; n is the contact's unit normal towards i and d the
// radius of curvature of the contact seen from i's centre (the distance of the centres
// for a particle at rest; planes, segments and triangles count as flat, `never`, which
// can only make a slide on a segment's end look more pressed in than it is).
template <int D, Motion<D> M>
template <class Kernel, class F>
inline void RestModel<D, M>::for_each_support(Kernel e, std::uint32_t i, double reach,
                                              F&& f) requires M::has_field {
    for_each_support(e, i, e.particles().state[i].x, reach, f);
}

// The same with i's centre at x (i's position now, i not advanced; in i's cell).
template <int D, Motion<D> M>
template <class Kernel, class F>
inline void RestModel<D, M>::for_each_support(Kernel e, std::uint32_t i, const Vec<D>& x,
                                              double reach, F&& f) requires M::has_field {
    const std::uint32_t species = e.particles().state[i].species;
    const double a = e.particles().radius(i);
    for (const auto& wall : e.box().walls)
        if (!wall.thermal() && wall.distance(x) - a <= reach) f(wall.normal, never);
    // the other obstacles' parts nearest to x, by kind (engine/obstacles.hpp)
    e.obstacles().for_each_support(e.box(), e.cells().cell_of(i), x, a, reach,
                                   [&](const Vec<D>& n) { f(n, never); });
    e.for_each_near(i, [&](std::uint32_t j, const Vec<D>& shift) {
        const auto& pj = e.particles().state[j];
        if (j == i || !pj.resting()) return;
        const Vec<D> r = x - (pj.x + shift);
        const double d = norm(r);
        if (d - e.particles().table.pair_sigma(species, pj.species) <= reach) f(r * (1.0 / d), d);
    });
}

// Puts particle i (awake, at now) to rest where it is: its kinetic energy is booked as
// lost, its counter moves (every prediction naming it is stale), and every awake
// particle around it predicts its contact with it, since i will predict nothing.
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::put_to_rest(Kernel e, std::uint32_t i) requires M::has_field {
    if (cycle_.holds(e.now(), e.id(i), RestCycle::woken)) [[unlikely]]
        cycle_.record(e.now(), e.id(i), RestCycle::again);
    auto& p = e.particles().state[i];
    const double k = kinetic_energy(e.particles().mass(i), p.v);
    e.kinetic_change(p.species, -k);
    e.tally().rest_energy += k;
    ++e.tally().rests;
    ++at_rest_;
    p.v = Vec<D>{};
    p.t = rest_stamp;
    p.bump();
    e.forget_partner(i);
    e.schedule(i) = typename Kernel::Schedule{};
    e.reschedule(i); // nothing: out of the calendar's reach
    e.for_each_near(i, [&](std::uint32_t j, const Vec<D>& shift) {
        const auto& pj = e.particles().state[j];
        if (j == i || pj.resting()) return;
        ParticleState<D> q = e.flight_from_now(j);
        q.x += shift;
        const double dt = time_to_resting(e.flight_motion(q), q, p.x,
                                          e.particles().table.pair_sigma(p.species, pj.species),
                                          e.meeting_window(j));
        e.take_earliest(j, &i, &dt, 1);
        e.reschedule(j);
    });
}

// Awake particle i meets particle j at rest at now. An impact at least rest speed wakes
// j, and every particle at rest that lay on j, and is an ordinary collision; a slower
// one meets j as a fixed sphere: i is reflected from the plane tangent at the contact
// (restitution of the pair, TC included), and j, held by its supports, does not move.
// That, and the impulse the supports then take, is the model's departure from
// hard-sphere dynamics (docs/PHYSICS.md).
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::meet_resting(Kernel e, std::uint32_t i,
                                          std::uint32_t j) requires M::has_field {
    e.advance(i);
    e.end_glide(i);
    auto& pi = e.particles().state[i];
    auto& pj = e.particles().state[j];
    const Vec<D> r = e.box().minimum_image(pi.x - pj.x);
    const double u = -dot(pi.v, r) / norm(r); // approach speed (j does not move)
    if (rule_.wakes(u) && !cycle_.holds(e.now(), e.id(j), RestCycle::again)) {
        wake(e, j);
        e.apply_pair(i, j, true);
        pi.bump();
        pj.bump();
        struck_.push_back(j); // (what j held wakes at the instant's end: end_instant)
        predict_or_rest(e, i);
        predict_or_rest(e, j);
        return;
    }
    e.check_pair_contact(i, j, r, true);
    const double m = e.particles().mass(i), k = kinetic_energy(m, pi.v);
    Wall<D> plane;
    plane.normal = r * (1.0 / norm(r));
    plane.restitution =
        rule_.settling(pi.v) ? rest_impact_restitution(e, i, j) : e.pair_restitution(i, j);
    wall_collision(plane, pi.v, m);
    e.collided(i);
    e.kinetic_change(pi.species, kinetic_energy(m, pi.v) - k);
    e.tally().pair_collision(pi.species, pj.species);
    ++e.tally().rest_impacts;
    e.log_pair(i, j);
    // a curved flight may meet the fixed sphere again at once (a contact in a pocket):
    // no just-met exclusion, as with a wall
    e.clear_last_partner(i);
    pi.bump();
    if (leans(e, i)) [[unlikely]]
        return;
    predict_or_rest(e, i);
}

// The restitution of a slow impact on a particle at rest by a particle slower than
// wake speed (meet_resting): the pair's, never the TC model's elastic 1 (a plastic
// instant's 0 still). TC keeps moving particles from an inelastic collapse; a particle
// settling on others at rest is the rest model's to end, and under TC it could not: one
// bouncing among particles at rest more often than once per tc, slower than wake speed
// and faster than rest speed, kept its speed for ever (the 2D hourglass's settled pile,
// rest_speed 0.05, tc = 1e-4: one disc at 0.062, 117,000 elastic impacts per time unit
// from t = 46 on). A faster particle grazing the pile keeps TC: with the pair's
// restitution for every slow impact, the flowing grains of the hourglass stuck to its
// pile, to be put to rest and woken again, 3.6 million times in 2 time units (t = 22
// to 24: 59 s instead of 2).
template <int D, Motion<D> M>
template <class Kernel>
inline double
RestModel<D, M>::rest_impact_restitution(Kernel e, std::uint32_t i,
                                         std::uint32_t j) const requires M::has_field {
    if (e.plastic_instant()) [[unlikely]]
        return 0.0;
    return e.species_restitution(i, j);
}

// Whether particle i (advanced to now, just reflected from a particle at rest) meets a
// support it touches again before the clock can move on: the reflection
// cannot carry i off. Seen: a particle woken with velocity zero (wake) beside one still
// at rest, a little above its centre, so that gravity presses it in; its approach is
// zero, the reflection changes nothing, and the same contact came back at the same
// instant for ever (the 60-disc box, the 2D hourglass: the clock stopped, exit 3). A
// smooth particle there would slide down the sphere, a motion with no closed form,
// which reflections from the sphere cannot follow. Seen too: a disc rising in a slot
// between two at rest that both touch it, bouncing from one to the other at the same
// instant, and a disc falling down a slot between a wall and a disc at rest exactly as
// wide as itself, bouncing across it at the same instant (the 60-disc box, e = 0.3,
// seed 6, TC: exit 3). A particle so trapped first loses its velocity into its
// contacts (free_from_contacts, plastic, booked); if still trapped, it is leaning on
// them and is put to rest against them (held as by friction; docs/PHYSICS.md,
// "Particles at rest"), else it moves on from there (the disc in the slot falls through
// it; a slow one was put to rest at once before, in the air between wall and disc).
template <int D, Motion<D> M>
template <class Kernel>
inline bool RestModel<D, M>::trapped(Kernel e, std::uint32_t i) requires M::has_field {
    const ParticleState<D> q = e.flight_from_now(i);
    const double resolution = round_off_time(e, q), height = round_off_height(e, q);
    const double reach = e.contact_tolerance() * e.particles().table.largest_diameter();
    bool found = false;
    for_each_support(e, i, reach, [&](const Vec<D>& n, double d) {
        found = found || returns_within(e, n, d, q.v, resolution, height);
    });
    return found;
}

// i trapped (above) and still trapped once its velocity went into its contacts: put to
// rest, leaning on them, and counted; else free to move on from there.
template <int D, Motion<D> M>
template <class Kernel>
inline bool RestModel<D, M>::leans(Kernel e, std::uint32_t i) requires M::has_field {
    if (!trapped(e, i)) return false;
    free_from_contacts(e, i);
    if (!trapped(e, i)) return false;
    ++e.tally().leans;
    put_to_rest(e, i);
    return true;
}

// Whether a contact of unit normal n (towards the moving particle) and radius of
// curvature d (the centres' distance from a particle at rest; `never` for a plane),
// relative velocity v and the field's acceleration g comes back within `window`, or
// without ever opening wider than `height`. Near contact the gap moves as
//     gap(τ) = u τ + (g.n + |v_t|² / |r|) τ² / 2,   u = v.n,  v_t = v − u n,
// (the second term the pull along the normal and the curvature of the sphere): an
// approach meets now, and a separation pulled back meets again after 2u / |pull|, having
// opened the gap by u² / (2 |pull|) at most. Said in closed form since the searches of
// convex_time.hpp cannot step below the round-off of positions, where these returns
// happen: a gap that never opens beyond that round-off is a gap they see closed at once.
// Seen: a disc wedged between a wall and a disc at rest, pressed in at 0.056 g and
// separating at 1.5e-15, so that it would come back after 1.1e-13 (a hundred ulps of
// the clock) at a height of 4e-29; the search met it at the same instant, 472,919 times
// (the 60-disc box, e = 0.3, seed 11, TC: exit 3).
template <int D, Motion<D> M>
template <class Kernel>
inline bool RestModel<D, M>::returns_within(Kernel e, const Vec<D>& n, double d, const Vec<D>& v,
                                            double window,
                                            double height) const requires M::has_field {
    const double u = dot(v, n);
    // An approach meets now, at any speed: a disc in a slot between a wall and a disc
    // held at rest (RestCycle), narrower than itself by round-off, went from one to the
    // other at 0.082 for ever (the 60-disc box, e = 0.3, seed 6, TC).
    if (u < 0.0) return true;
    const double pull = dot(e.motion().gravity(), n) + norm2(v - n * u) / d;
    return pull < 0.0 && (2.0 * u < window * -pull || u * u < 2.0 * height * -pull);
}

// The round-off of particle p's position: gaps at its contacts below it are noise.
template <int D, Motion<D> M>
template <class Kernel>
inline double RestModel<D, M>::round_off_height(Kernel e, const ParticleState<D>& p) const {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    double x = 0.0;
    for (int a = 0; a < D; ++a) x = std::max(x, std::abs(p.x[a]));
    return 4.0 * eps * std::max(x, e.particles().table.largest_diameter());
}

// How soon a contact that comes back is the same contact: within a few ulps of the
// clock, or before particle p (a flight from now) can move beyond the round-off of its
// coordinates, |v| τ + |g| τ²/2 < eps |x| (too_short, which the collapse watch counts:
// a run of such flights has stalled however its clock creeps). Seen: a disc sliding
// down a sphere at rest in micro-bounces one ulp of the clock long.
template <int D, Motion<D> M>
template <class Kernel>
inline double
RestModel<D, M>::round_off_time(Kernel e, const ParticleState<D>& p) const requires M::has_field {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    double x = 0.0;
    for (int a = 0; a < D; ++a) x = std::max(x, std::abs(p.x[a]));
    const double move = eps * x, speed = norm(p.v), pull = norm(e.motion().gravity());
    const double still = std::min(speed > 0.0 ? move / speed : never, std::sqrt(2.0 * move / pull));
    return 4.0 * std::max(std::nextafter(e.now(), never) - e.now(), still);
}

// Takes from i's velocity its approach to every support it touches (plastic contacts,
// by repeated projection: the velocity nearest to i's that approaches none of them),
// the lost energy booked as the rest model's.
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::free_from_contacts(Kernel e, std::uint32_t i) requires M::has_field {
    auto& p = e.particles().state[i];
    const double k = kinetic_energy(e.particles().mass(i), p.v);
    const double reach = e.contact_tolerance() * e.particles().table.largest_diameter();
    std::vector<Vec<D>>& normals = normals_;
    normals.clear();
    for_each_support(e, i, reach, [&](const Vec<D>& n, double) { normals.push_back(n); });
    for (int sweep = 0; sweep < 16; ++sweep) {
        bool changed = false;
        for (const Vec<D>& n : normals)
            if (const double u = dot(p.v, n); u < 0.0) p.v -= n * u, changed = true;
        if (!changed) break;
    }
    const double lost = k - kinetic_energy(e.particles().mass(i), p.v);
    e.kinetic_change(p.species, -lost);
    e.tally().rest_energy += lost;
}

// Particle j, at rest, moves again from now, at rest velocity zero (its caller gives it
// one, or gravity does); predicted by its caller (meet_resting) or by wake_above.
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::wake(Kernel e, std::uint32_t j) requires M::has_field {
    cycle_.record(e.now(), e.id(j), RestCycle::woken);
    auto& p = e.particles().state[j];
    p.t = e.now();
    p.v = Vec<D>{};
    p.bump();
    e.forget_partner(j);
    ++e.tally().wakes;
    --at_rest_;
}

// j, woken by an impact at this instant, is still awake at its end (end_instant): every
// particle at rest within reach of it and above it (the contact's normal from j has a
// part against gravity: j may have been holding it) that its supports still at rest no
// longer hold (held) wakes too, and so on up; each is then predicted from rest. One still held
// stays at rest, as it would have been put to rest with those supports alone; if j comes back, it
// meets it as one at rest. Seen: woken with every particle above, a grain struck deep in a pile
// woke the cone above it, which came to rest again at once (the 2D hourglass, rest_speed 0.05, to t
// = 22: 1.38 million rests, 1.19 million of the wakes from here; 0.38 million rests now). (Tried,
// issue 40: leaving at rest one that leans on a support at rest below its centre, which woken with
// velocity zero meets it at once and is put to rest there again. In the 2D hourglass's settled pile
// that cut the wakes from here from 273,000 to 39,000 in 0.05 time units, and the time by 18 %; but
// in the 60-disc box (e = 0.3, seed 17, no TC) six slow discs above one so left then met one
// another at one instant, which no rescue ended: exit 3 at t = 6.1. Not kept.)
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::wake_above(Kernel e, std::uint32_t j) requires M::has_field {
    std::vector<std::uint32_t>& woken = woken_;
    std::vector<std::uint32_t>& above = above_;
    woken.assign(1, j);
    for (std::size_t n = 0; n < woken.size(); ++n) {
        const std::uint32_t b = woken[n];
        const auto& pb = e.particles().state[b];
        above.clear();
        e.for_each_near(b, [&](std::uint32_t k, const Vec<D>& shift) {
            const auto& pk = e.particles().state[k];
            if (!pk.resting()) return;
            const Vec<D> r = (pk.x + shift) - pb.x;
            if (norm(r) - e.particles().table.pair_sigma(pb.species, pk.species) > rule_.reach)
                return;
            if (dot(r, e.motion().gravity()) >= 0.0) return; // not above b
            above.push_back(k);
        });
        // (held walks the cells too: after the walk above, not inside it)
        for (const std::uint32_t k : above)
            if (e.particles().state[k].resting() && !held(e, k)) {
                wake(e, k);
                woken.push_back(k);
            }
    }
    for (std::size_t n = 1; n < woken.size(); ++n) e.predict_all(woken[n]);
}

// The instant ends (the clock is about to move on, maintenance to renumber, or run() to
// return): each particle woken by an impact at it that is still awake wakes those it
// held (wake_above). One put to rest again at this instant is where it was when it was
// woken, to the bit (no time has passed), and holds what it held: nothing above it
// wakes. Why at the end: an impact on a settled triangular pile runs through it as a
// Newton's cradle at one instant, each disc struck passing its velocity on and put to
// rest again at once; waking what each link held, at once, woke about 20 discs a link,
// which, woken with no velocity on supports at rest again, were put back to rest at the
// same instant (the 2D hourglass's pile, seed 10, t = 35.1 to 35.2: 497,000 wakes from
// wake_above, 400,000 rests at the instant of the wake, 1.5 million collisions).
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::end_instant(Kernel e) {
    if constexpr (M::has_field) {
        // (wake_above leaves struck_ alone: it may be read as it goes)
        for (std::size_t n = 0; n < struck_.size(); ++n)
            if (!e.particles().state[struck_[n]].resting()) wake_above(e, struck_[n]);
        struck_.clear();
    }
}

// After a cell crossing: i's contacts with the particles at rest around it, searched
// before only as far as the crossing, are searched again as far as the next one.
// So are its curved meetings with gliders (when i falls) or with falling particles
// (when i glides), searched no further than the crossing either.
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::rescan_resting(Kernel e, std::uint32_t i) {
    if constexpr (M::has_field) {
        if (at_rest_ == 0 && e.glides().gliding() == 0) return;
        const ParticleState<D> q0 = e.flight_from_now(i);
        e.for_each_near(i, [&](std::uint32_t j, const Vec<D>& shift) {
            const auto& pj = e.particles().state[j];
            if (j == i || !(pj.resting() || pj.glide_slot() != q0.glide_slot())) return;
            ParticleState<D> q = q0;
            q.x -= shift; // i as j's image sees it
            const double sigma = e.particles().table.pair_sigma(q0.species, pj.species);
            const double dt =
                pj.resting()
                    ? time_to_resting(e.flight_motion(q), q, pj.x, sigma, e.meeting_window(i))
                    : Glides<D, M>::time_to_glider(e.motion(), q, e.motion().position(pj, e.now()),
                                                   e.motion().velocity(pj, e.now()),
                                                   pj.glide_slot(), sigma, e.meeting_window(i));
            e.take_earliest(i, &j, &dt, 1);
        });
    }
}

// The rest model needs gravity to rest against (config.cpp says so by key first). With
// epsilon > 0 its particles at rest stay out of groups (outside_groups).
template <int D, Motion<D> M>
template <class Kernel>
inline void RestModel<D, M>::set_up(Kernel e) {
    if constexpr (!M::has_field) {
        throw std::invalid_argument("Engine: the rest model needs gravity");
    } else {
        if (norm(e.motion().gravity()) == 0.0)
            throw std::invalid_argument("Engine: the rest model needs gravity");
        // reach: never below the round-off of a contact of the smallest particles
        double smallest = never;
        for (const auto& sp : e.particles().table.species)
            smallest = std::min(smallest, 2.0 * sp.radius);
        rule_ = RestRule(e.settings().rest_speed, norm(e.motion().gravity()),
                         e.contact_tolerance() * smallest);
        slot_.assign(e.particles().size(), none);
        at_rest_ = static_cast<std::uint32_t>(
            std::count_if(e.particles().state.begin(), e.particles().state.end(),
                          [](const ParticleState<D>& p) { return p.resting(); }));
    }
}

} // namespace choc
