// The rest model (docs/ARCHITECTURE.md, "The engine's parts"; resting.hpp; REFERENCE and
// PHYSICS, "Particles at rest"; settings.rest_speed > 0, under gravity): particles put to
// rest on their supports, met as fixed spheres, woken by an impact, and a stall rescued.
// Members of Engine, defined apart from the class; the glides are engine/glides.hpp's.
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

#include "choc/kernel/engine.hpp"

namespace choc {

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
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::rescue_stall(double span) {
    if constexpr (Motion::has_field) {
        if (!rest_.on()) return;
        std::vector<std::uint32_t>& stopped = rest_woken_;
        stopped.clear();
        const auto stop = [&](std::uint32_t i) {
            auto& p = particles_.state[i];
            advance(i);
            end_glide(i);
            const double k = kinetic_energy(particles_.mass(i), p.v);
            kinetic_change(p.species, -k);
            tally_.rest_energy += k;
            p.v = Vec<D>{};
            p.bump();
            forget_partner(i);
            rest_slot_[i] = 0; // (marks it stopped; the slots are none outside calls)
            stopped.push_back(i);
        };
        for (std::uint32_t i = 0; i < particles_.size(); ++i) {
            const auto& p = particles_.state[i];
            if (!p.resting() && now_ - last_collision_[i] <= span) stop(i);
        }
        for (std::size_t n = 0; n < stopped.size(); ++n) {
            const std::uint32_t b = stopped[n];
            const Vec<D> xb = particles_.state[b].x;
            for_each_near(b, [&](std::uint32_t k, const Vec<D>& shift) {
                const auto& pk = particles_.state[k];
                if (k == b || pk.resting() || rest_slot_[k] != none) return;
                const ParticleState<D> qk = flight_from_now(k);
                const Vec<D> r = xb - (qk.x + shift); // from k to b
                const double sigma =
                    particles_.table.pair_sigma(particles_.state[b].species, pk.species);
                if (norm(r) - sigma > contact_tolerance_ * sigma || dot(qk.v, r) <= 0.0) return;
                stop(k);
            });
        }
        for (const std::uint32_t i : stopped) rest_slot_[i] = none;
        ++tally_.rescues;
        // (predict_or_rest may put others of them to rest together with one)
        for (const std::uint32_t i : stopped)
            if (!particles_.state[i].resting()) predict_or_rest(i);
    }
}

// After a collision at now (with wall w, if one): i is put to rest if slow and held, or
// glides along w if w is a floor it left slowly, else is predicted anew.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::predict_or_rest(std::uint32_t i, std::uint32_t w) {
    if constexpr (Motion::has_field) {
        if (rest_.on() && rest_.slow(particles_.state[i].v)) [[unlikely]] {
            if (particles_.state[i].resting()) return; // (put to rest with i's partner)
            if (held(i)) return put_to_rest(i);
            if (rests_together(i)) return;
        }
        if (w != none && rest_.on()) {
            w = face_beside_rim(i, w);
            if (const std::uint32_t slot = glide_slot_on(i, w); slot > 0) [[unlikely]]
                return start_glide(i, w, slot);
            // Slow off an obstacle it does not glide on (a segment's end, a triangle's
            // edge or vertex) and pressed back onto one within round-off: leaning, as
            // off a particle at rest (meet_resting). Seen: a sphere come to a ridge of
            // a corrugated mesh at no speed, met by the ridge at one instant for ever
            // (scan case 16504033785178342395, t = 11.17, once glides led it there).
            if (rest_.slow(particles_.state[i].v) && leans(i)) [[unlikely]]
                return;
        }
    }
    predict_all(i);
}

// Time until particle q (a flight from now, stamp 0) first touches the point x at
// distance sigma: a particle at rest, looked at by i, within i's horizon and its cell.
template <int D, Calendar Cal, Motion<D> Motion>
inline double
Engine<D, Cal, Motion>::time_to_resting(std::uint32_t i, const ParticleState<D>& q, const Vec<D>& x,
                                        double sigma) const requires Motion::has_field {
    const Schedule& s = schedule_[i];
    const double window = std::min(pair_horizon(s), s.crossing_time - now_);
    return end_time(flight_motion(q), x, q, sigma, window);
}

// Particle i (awake, advanced to now, just collided) is held against gravity by its
// supports within reach: the box walls and [[walls]] planes that reflect (a thermal
// wall re-emits: it holds nothing), segments, triangles and particles at rest.
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::held(std::uint32_t i) requires Motion::has_field {
    std::vector<Vec<D>>& normals = rest_normals_;
    normals.clear();
    for_each_support(i, rest_.reach, [&](const Vec<D>& n, double) { normals.push_back(n); });
    return holds_against_gravity<D>(normals, motion_.gravity());
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
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::rests_together(std::uint32_t i) requires Motion::has_field {
    std::vector<std::uint32_t>& group = rest_group_;
    std::vector<Vec<D>>& where = rest_group_x_;
    RestGroup<D>& judge = rest_judge_;
    judge.clear();
    group.assign(1, i);
    where.assign(1, particles_.state[i].x);
    rest_slot_[i] = 0;
    const double reach = rest_.reach;
    for (std::size_t n = 0; n < group.size(); ++n) {
        const std::uint32_t b = group[n];
        const Vec<D> xb = where[n];
        for_each_near(b, [&](std::uint32_t k, const Vec<D>& shift) {
            const auto& pk = particles_.state[k];
            if (k == b || pk.resting()) return;
            const ParticleState<D> qk = flight_from_now(k);
            const Vec<D> r = xb - (qk.x + shift);
            const double d = norm(r);
            if (d - particles_.table.pair_sigma(particles_.state[b].species, pk.species) > reach)
                return;
            if (!rest_.slow(qk.v)) return; // a fast one is no support
            std::uint32_t m = rest_slot_[k];
            if (m == none) {
                if (group.size() >= rest_cluster_limit) return;
                m = rest_slot_[k] = static_cast<std::uint32_t>(group.size());
                group.push_back(k);
                where.push_back(qk.x);
            }
            judge.add_contact(static_cast<std::uint32_t>(n), m, r * (1.0 / d));
        });
    }
    for (const std::uint32_t b : group) rest_slot_[b] = none; // (the slots are scratch)
    if (group.size() < 2) return false;
    for (std::size_t n = 0; n < group.size(); ++n) {
        for_each_support(group[n], where[n], rest_.reach,
                         [&](const Vec<D>& nn, double) { judge.add_support(nn); });
        judge.end_supports();
    }
    const std::vector<char>& in = judge.solve(motion_.gravity());
    bool any = false;
    for (std::size_t n = 0; n < group.size(); ++n) {
        if (!in[n]) continue;
        const std::uint32_t b = group[n];
        if (b != i) {
            advance(b);
            end_glide(b);
        }
        ++tally_.leans;
        put_to_rest(b);
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
template <int D, Calendar Cal, Motion<D> Motion>
template <class F>
inline void Engine<D, Cal, Motion>::for_each_support(std::uint32_t i, double reach,
                                                     F&& f) requires Motion::has_field {
    for_each_support(i, particles_.state[i].x, reach, f);
}

// The same with i's centre at x (i's position now, i not advanced; in i's cell).
template <int D, Calendar Cal, Motion<D> Motion>
template <class F>
inline void Engine<D, Cal, Motion>::for_each_support(std::uint32_t i, const Vec<D>& x, double reach,
                                                     F&& f) requires Motion::has_field {
    const std::uint32_t species = particles_.state[i].species;
    const double a = particles_.radius(i);
    for (const auto& wall : box_.walls)
        if (!wall.thermal() && wall.distance(x) - a <= reach) f(wall.normal, never);
    for (const auto& seg : box_.segments)
        if (seg.distance(x) - a <= reach)
            f(seg.contact_plane(seg.nearest_part(x), x).normal, never);
    if (const TriangleCells<D>& triangles = obstacles_.triangles().cells(); !triangles.empty()) {
        const std::uint32_t cell = grids_.cells().cell_of(i);
        for (const auto* e = triangles.begin(cell); e != triangles.end(cell); ++e) {
            const Triangle<D>& tri = box_.triangles[e->index];
            if (tri.distance(x) - a > reach) continue;
            if (tri.one_sided && tri.height(x) <= 0.0) continue; // from the front only
            f(tri.contact_plane(x).normal, never);
        }
    }
    for_each_near(i, [&](std::uint32_t j, const Vec<D>& shift) {
        const auto& pj = particles_.state[j];
        if (j == i || !pj.resting()) return;
        const Vec<D> r = x - (pj.x + shift);
        const double d = norm(r);
        if (d - particles_.table.pair_sigma(species, pj.species) <= reach) f(r * (1.0 / d), d);
    });
}

// Puts particle i (awake, at now) to rest where it is: its kinetic energy is booked as
// lost, its counter moves (every prediction naming it is stale), and every awake
// particle around it predicts its contact with it, since i will predict nothing.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::put_to_rest(std::uint32_t i) requires Motion::has_field {
    if (rest_cycle_.holds(now_, id_[i], RestCycle::woken)) [[unlikely]]
        rest_cycle_.record(now_, id_[i], RestCycle::again);
    auto& p = particles_.state[i];
    const double k = kinetic_energy(particles_.mass(i), p.v);
    kinetic_change(p.species, -k);
    tally_.rest_energy += k;
    ++tally_.rests;
    ++at_rest_;
    p.v = Vec<D>{};
    p.t = rest_stamp;
    p.bump();
    forget_partner(i);
    schedule_[i] = Schedule{};
    reschedule(i); // nothing: out of the calendar's reach
    for_each_near(i, [&](std::uint32_t j, const Vec<D>& shift) {
        const auto& pj = particles_.state[j];
        if (j == i || pj.resting()) return;
        ParticleState<D> q = flight_from_now(j);
        q.x += shift;
        const double dt =
            time_to_resting(j, q, p.x, particles_.table.pair_sigma(p.species, pj.species));
        take_earliest(j, &i, &dt, 1);
        reschedule(j);
    });
}

// Awake particle i meets particle j at rest at now. An impact at least rest speed wakes
// j, and every particle at rest that lay on j, and is an ordinary collision; a slower
// one meets j as a fixed sphere: i is reflected from the plane tangent at the contact
// (restitution of the pair, TC included), and j, held by its supports, does not move.
// That, and the impulse the supports then take, is the model's departure from
// hard-sphere dynamics (docs/PHYSICS.md).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::meet_resting(std::uint32_t i,
                                                 std::uint32_t j) requires Motion::has_field {
    advance(i);
    end_glide(i);
    auto& pi = particles_.state[i];
    auto& pj = particles_.state[j];
    const Vec<D> r = box_.minimum_image(pi.x - pj.x);
    const double u = -dot(pi.v, r) / norm(r); // approach speed (j does not move)
    if (rest_.wakes(u) && !rest_cycle_.holds(now_, id_[j], RestCycle::again)) {
        wake(j);
        apply_pair(i, j, true);
        pi.bump();
        pj.bump();
        wake_above(j);
        predict_or_rest(i);
        predict_or_rest(j);
        return;
    }
    check_pair_contact(i, j, r, true);
    const double m = particles_.mass(i), k = kinetic_energy(m, pi.v);
    Wall<D> plane;
    plane.normal = r * (1.0 / norm(r));
    plane.restitution =
        rest_.settling(pi.v) ? rest_impact_restitution(i, j) : pair_restitution(i, j);
    wall_collision(plane, pi.v, m);
    collided(i);
    kinetic_change(pi.species, kinetic_energy(m, pi.v) - k);
    tally_.pair_collision(pi.species, pj.species);
    ++tally_.rest_impacts;
    log_pair(i, j);
    // a curved flight may meet the fixed sphere again at once (a contact in a pocket):
    // no just-met exclusion, as with a wall
    last_partner_[i] = none;
    pi.bump();
    if (leans(i)) [[unlikely]]
        return;
    predict_or_rest(i);
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
template <int D, Calendar Cal, Motion<D> Motion>
inline double
Engine<D, Cal, Motion>::rest_impact_restitution(std::uint32_t i,
                                                std::uint32_t j) const requires Motion::has_field {
    if (plastic_instant()) [[unlikely]]
        return 0.0;
    return species_restitution(i, j);
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
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::trapped(std::uint32_t i) requires Motion::has_field {
    const ParticleState<D> q = flight_from_now(i);
    const double resolution = round_off_time(q), height = round_off_height(q);
    const double reach = contact_tolerance_ * particles_.table.largest_diameter();
    bool found = false;
    for_each_support(i, reach, [&](const Vec<D>& n, double d) {
        found = found || returns_within(n, d, q.v, resolution, height);
    });
    return found;
}

// i trapped (above) and still trapped once its velocity went into its contacts: put to
// rest, leaning on them, and counted; else free to move on from there.
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::leans(std::uint32_t i) requires Motion::has_field {
    if (!trapped(i)) return false;
    free_from_contacts(i);
    if (!trapped(i)) return false;
    ++tally_.leans;
    put_to_rest(i);
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
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::returns_within(const Vec<D>& n, double d, const Vec<D>& v,
                                                   double window,
                                                   double height) const requires Motion::has_field {
    const double u = dot(v, n);
    // An approach meets now, at any speed: a disc in a slot between a wall and a disc
    // held at rest (RestCycle), narrower than itself by round-off, went from one to the
    // other at 0.082 for ever (the 60-disc box, e = 0.3, seed 6, TC).
    if (u < 0.0) return true;
    const double pull = dot(motion_.gravity(), n) + norm2(v - n * u) / d;
    return pull < 0.0 && (2.0 * u < window * -pull || u * u < 2.0 * height * -pull);
}

// The round-off of particle p's position: gaps at its contacts below it are noise.
template <int D, Calendar Cal, Motion<D> Motion>
inline double Engine<D, Cal, Motion>::round_off_height(const ParticleState<D>& p) const {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    double x = 0.0;
    for (int a = 0; a < D; ++a) x = std::max(x, std::abs(p.x[a]));
    return 4.0 * eps * std::max(x, particles_.table.largest_diameter());
}

// How soon a contact that comes back is the same contact: within a few ulps of the
// clock, or before particle p (a flight from now) can move beyond the round-off of its
// coordinates, |v| τ + |g| τ²/2 < eps |x| (too_short, which the collapse watch counts:
// a run of such flights has stalled however its clock creeps). Seen: a disc sliding
// down a sphere at rest in micro-bounces one ulp of the clock long.
template <int D, Calendar Cal, Motion<D> Motion>
inline double
Engine<D, Cal, Motion>::round_off_time(const ParticleState<D>& p) const requires Motion::has_field {
    constexpr double eps = std::numeric_limits<double>::epsilon();
    double x = 0.0;
    for (int a = 0; a < D; ++a) x = std::max(x, std::abs(p.x[a]));
    const double move = eps * x, speed = norm(p.v), pull = norm(motion_.gravity());
    const double still = std::min(speed > 0.0 ? move / speed : never, std::sqrt(2.0 * move / pull));
    return 4.0 * std::max(std::nextafter(now_, never) - now_, still);
}

// Takes from i's velocity its approach to every support it touches (plastic contacts,
// by repeated projection: the velocity nearest to i's that approaches none of them),
// the lost energy booked as the rest model's.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::free_from_contacts(std::uint32_t i) requires Motion::has_field {
    auto& p = particles_.state[i];
    const double k = kinetic_energy(particles_.mass(i), p.v);
    const double reach = contact_tolerance_ * particles_.table.largest_diameter();
    std::vector<Vec<D>>& normals = rest_normals_;
    normals.clear();
    for_each_support(i, reach, [&](const Vec<D>& n, double) { normals.push_back(n); });
    for (int sweep = 0; sweep < 16; ++sweep) {
        bool changed = false;
        for (const Vec<D>& n : normals)
            if (const double u = dot(p.v, n); u < 0.0) p.v -= n * u, changed = true;
        if (!changed) break;
    }
    const double lost = k - kinetic_energy(particles_.mass(i), p.v);
    kinetic_change(p.species, -lost);
    tally_.rest_energy += lost;
}

// Particle j, at rest, moves again from now, at rest velocity zero (its caller gives it
// one, or gravity does); predicted by its caller (meet_resting) or by wake_above.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::wake(std::uint32_t j) requires Motion::has_field {
    rest_cycle_.record(now_, id_[j], RestCycle::woken);
    auto& p = particles_.state[j];
    p.t = now_;
    p.v = Vec<D>{};
    p.bump();
    forget_partner(j);
    ++tally_.wakes;
    --at_rest_;
}

// i's flight has changed in kind (put to rest, or woken): a pair it has just met is
// no longer two straight lines that cannot meet again at this instant, so the
// just-met exclusion (take_earliest) ends for it. Seen: a disc struck from above and
// put to rest at once (slow), still moving into the floor, was passed through by the
// disc above it, whose contact with it at this instant the exclusion skipped.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::forget_partner(std::uint32_t i) {
    const std::uint32_t j = last_partner_[i];
    if (j != none && last_partner_[j] == i) last_partner_[j] = none;
    last_partner_[i] = none;
}

// j has just been woken: every particle at rest within reach of it and above it (the
// contact's normal from j has a part against gravity: j may have been holding it) that
// its supports still at rest no longer hold (held) wakes too, and so on up; each is
// then predicted from rest. One still held stays at rest, as it would have been put to
// rest with those supports alone; if j comes back, it meets it as one at rest. Seen:
// woken with every particle above, a grain struck deep in a pile woke the cone above
// it, which came to rest again at once (the 2D hourglass, rest_speed 0.05, to t = 22:
// 1.38 million rests, 1.19 million of the wakes from here; 0.38 million rests now).
// (Tried, issue 40: leaving at rest one that leans on a support at rest below its
// centre, which woken with velocity zero meets it at once and is put to rest there
// again. In the 2D hourglass's settled pile that cut the wakes from here from 273,000
// to 39,000 in 0.05 time units, and the time by 18 %; but in the 60-disc box (e = 0.3,
// seed 17, no TC) six slow discs above one so left then met one another at one
// instant, which no rescue ended: exit 3 at t = 6.1. Not kept.)
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::wake_above(std::uint32_t j) requires Motion::has_field {
    std::vector<std::uint32_t>& woken = rest_woken_;
    std::vector<std::uint32_t>& above = rest_above_;
    woken.assign(1, j);
    for (std::size_t n = 0; n < woken.size(); ++n) {
        const std::uint32_t b = woken[n];
        const auto& pb = particles_.state[b];
        above.clear();
        for_each_near(b, [&](std::uint32_t k, const Vec<D>& shift) {
            const auto& pk = particles_.state[k];
            if (!pk.resting()) return;
            const Vec<D> r = (pk.x + shift) - pb.x;
            if (norm(r) - particles_.table.pair_sigma(pb.species, pk.species) > rest_.reach) return;
            if (dot(r, motion_.gravity()) >= 0.0) return; // not above b
            above.push_back(k);
        });
        // (held walks the cells too: after the walk above, not inside it)
        for (const std::uint32_t k : above)
            if (particles_.state[k].resting() && !held(k)) {
                wake(k);
                woken.push_back(k);
            }
    }
    for (std::size_t n = 1; n < woken.size(); ++n) predict_all(woken[n]);
}

// After a cell crossing: i's contacts with the particles at rest around it, searched
// before only as far as the crossing, are searched again as far as the next one.
// So are its curved meetings with gliders (when i falls) or with falling particles
// (when i glides), searched no further than the crossing either.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::rescan_resting(std::uint32_t i) {
    if constexpr (Motion::has_field) {
        if (at_rest_ == 0 && gliding_ == 0) return;
        const ParticleState<D> q0 = flight_from_now(i);
        for_each_near(i, [&](std::uint32_t j, const Vec<D>& shift) {
            const auto& pj = particles_.state[j];
            if (j == i || !(pj.resting() || pj.glide_slot() != q0.glide_slot())) return;
            ParticleState<D> q = q0;
            q.x -= shift; // i as j's image sees it
            const double sigma = particles_.table.pair_sigma(q0.species, pj.species);
            const double dt =
                pj.resting() ? time_to_resting(i, q, pj.x, sigma)
                             : time_to_glider(i, q, motion_.position(pj, now_),
                                              motion_.velocity(pj, now_), pj.glide_slot(), sigma);
            take_earliest(i, &j, &dt, 1);
        });
    }
}

// The rest model needs gravity to rest against (config.cpp says so by key first). With
// epsilon > 0 its particles at rest stay out of groups (outside_groups).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::set_up_rest() {
    if constexpr (!Motion::has_field) {
        throw std::invalid_argument("Engine: the rest model needs gravity");
    } else {
        if (norm(motion_.gravity()) == 0.0)
            throw std::invalid_argument("Engine: the rest model needs gravity");
        // reach: never below the round-off of a contact of the smallest particles
        double smallest = never;
        for (const auto& sp : particles_.table.species)
            smallest = std::min(smallest, 2.0 * sp.radius);
        rest_ =
            RestRule(settings_.rest_speed, norm(motion_.gravity()), contact_tolerance_ * smallest);
        rest_slot_.assign(particles_.size(), none);
        at_rest_ = static_cast<std::uint32_t>(
            std::count_if(particles_.state.begin(), particles_.state.end(),
                          [](const ParticleState<D>& p) { return p.resting(); }));
    }
}

} // namespace choc
