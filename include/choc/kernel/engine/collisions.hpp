// The engine's binary collisions (docs/ARCHITECTURE.md, "The event loop" and "The
// engine's parts"; collide.hpp): a pair's and a wall's collision as events, the rules
// with their tallies, checks and flux terms, a pair approaching by round-off in a long
// instant left at rest, and a particle put back on the obstacle it cannot rise out of.
// Members of Engine, defined apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::collide_pair(std::uint32_t i, std::uint32_t j) {
    if constexpr (Motion::has_field)
        if (particles_.state[j].resting()) [[unlikely]]
            return rest_.meet_resting(kernel(), i, j);
    // j's schedule and both cell entries are read only after i's scan: ask now
    __builtin_prefetch(&schedule_[j]);
    grids_.cells().prefetch_place(i);
    grids_.cells().prefetch_place(j);
    prefetch_calendar(j);
    advance(i);
    advance(j);
    if constexpr (Motion::has_field)
        if (invariants_.long_instant() && at_rest_contact(i, j)) [[unlikely]]
            return leave_at_rest(i, j);
    end_glide(i);
    end_glide(j);
    apply_pair(i, j, true);
    particles_.state[i].bump();
    particles_.state[j].bump();
    predict_or_rest(i);
    predict_or_rest(j);
}

// A collision, in an instant of more than long_instant_ events (plastic ones with the
// rest model), of a pair that approaches by round-off only: by at most
// approach_round_off_ulps ulps of the faster one's speed. The
// rule would leave it approaching by round-off again, met again at once; a straight
// row of touching particles doing so, each contact in turn, is met at one instant for
// ever. The pair is left as it is, and not met again at this instant while neither
// changes course (RestingContacts, as the group rule's contacts at rest are): its
// approach is below what its velocities can resolve once rounded. Seen: a row of eight
// touching discs falling over sideways as one, at 6e-5, its collisions plastic (the 2D
// hourglass, rest_speed 0.01, TC: a million events at t = 39.9, invariant `progress`);
// without the rest model, a touching row of six discs falling at 5.3 onto a tilted
// elastic plane, elastic under TC, the end one pressed from below at 1e-16 through a
// contact 6e-10 off vertical: each collision changed no vertical speed (the impulse
// below their ulp) and passed a sideways 1e-23 along the row and back, at one instant
// for ever (scan case 18319875465077269755, t = 3.1926, `progress`). The limit is far
// above any real instant (16 events a particle and 10,000 more), so a run that never
// stalls is unchanged to the bit.
//     Round-off, not the group rule's "at rest" (1e-9 of the speeds, which this was
// until Session 35): a pair left approaching at up to 1e-9 |v| flies into its partner
// until one of them changes course or held_contact_delay meets it a quarter of the
// contact tolerance deeper, where a collision reverses the approach but not the
// overlap, and the next hold goes a quarter deeper again. Seen: a touching fcc lattice
// of 1790 spheres falling as one into a trough of triangles (TC, the rest model), its
// columns left approaching at 7e-10 by the plastic cascades of its impacts, pairs
// 2.5e-10 and then 6.9e-10 of a diameter into each other at t = 2.11 (scan case
// 12855189909378056514; with round-off here its worst overlap is 1.5e-14). The plastic
// cascade of a long instant converges geometrically, so a few rounds more reach
// round-off; one that does not is rescued at rescue_instant_factor long instants (rescue_stall).
template <int D, Calendar Cal, Motion<D> Motion>
inline bool
Engine<D, Cal, Motion>::at_rest_contact(std::uint32_t i,
                                        std::uint32_t j) const requires Motion::has_field {
    const auto& pi = particles_.state[i];
    const auto& pj = particles_.state[j];
    // (a glide ending, or a sliding image, changes the flights: a collision as usual)
    if (pi.gliding() || pj.gliding() || sliding_.on()) return false;
    const Vec<D> r = box_.minimum_image(pi.x - pj.x);
    const double u = dot(pi.v - pj.v, r) / norm(r); // < 0: approaching
    constexpr double eps = std::numeric_limits<double>::epsilon();
    return u >= -approach_round_off_ulps * eps * std::max(norm(pi.v), norm(pj.v));
}

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::leave_at_rest(std::uint32_t i,
                                                  std::uint32_t j) requires Motion::has_field {
    const auto& pi = particles_.state[i];
    const auto& pj = particles_.state[j];
    group_.resting().record(now_, id_[i], id_[j], pi.count, pj.count);
    predict_all(i);
    predict_all(j);
}

// The binary rule on i and j, both advanced to now, and its tally. `at_contact`: the
// pair's own predicted collision, so it must be at its contact distance.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::apply_pair(std::uint32_t i, std::uint32_t j, bool at_contact) {
    auto& pi = particles_.state[i];
    auto& pj = particles_.state[j];
    int image = 0; // across the sliding face: j's image moves at its sliding velocity
    const Vec<D> r = sliding_.on() ? sliding_.geometry().minimum_image(pi.x - pj.x, now_, image)
                                   : box_.minimum_image(pi.x - pj.x);
    invariants_.pair_contact(kernel(), i, j, r, at_contact);

    const double mi = particles_.mass(i), mj = particles_.mass(j);
    const double ki = kinetic_energy(mi, pi.v), kj = kinetic_energy(mj, pj.v);
    const Vec<D> vi = pi.v, vj = pj.v;
    if (image != 0) [[unlikely]]
        pj.v += sliding_.geometry().image_velocity(image);
    const auto impulse = binary_collision(r, pi.v, pj.v, mi, mj, clocks_.pair(kernel(), i, j));
    if (image != 0) [[unlikely]]
        pj.v -= sliding_.geometry().image_velocity(image);
    if (accounts_.fluxes_kept())
        accounts_.flux().collision(now_, r, impulse.dp, mi, vi, pi.v, mj, vj, pj.v);
    clocks_.collided(i, now_);
    clocks_.collided(j, now_);
    kinetic_change(pi.species, kinetic_energy(mi, pi.v) - ki);
    kinetic_change(pj.species, kinetic_energy(mj, pj.v) - kj);
    accounts_.tally().virial += impulse.virial;
    accounts_.tally().pair_collision(pi.species, pj.species);
    log_pair(i, j);
    last_partner_[i] = j;
    last_partner_[j] = i;
}

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::collide_wall(std::uint32_t i, std::uint32_t w) {
    advance(i);
    end_glide(i);
    apply_wall(i, w, true);
    if constexpr (Motion::has_field) back_to_contact(i, w);
    particles_.state[i].bump();
    predict_or_rest(i, w);
}

// Under a field, i (reflected from obstacle w at now) leaves it from a round-off overlap
// that its flight cannot rise out of before the field turns it back: i is put back on
// the contact, along the obstacle's normal. Field::first_contact measures a flight that
// can rise out from the gap it has, so that it ends at contact (motions.hpp); one that
// cannot is measured from zero and ends where it began, in the overlap, plus the
// rounding of its end's coordinates. On a tilted support that rounding does not
// vanish: the slide moves both coordinates, each rounded to its ulp, and nearly equal
// flights round alike, so the overlap grew by about the same at every bounce. Seen
// (issue 40): a disc sliding at 1.1 along a tilted segment 30 from the origin, in
// elastic TC bounces rising 1.3e-15 (less than the coordinates' ulp, 7e-15), sank by
// about 4e-15 a bounce until the contact check stopped the run at 1e-9 of the radius
// (scan case 17361983651036864775, t = 5.13); one sliding at 3 down a tilted plane, its
// normal speed at the round-off of its velocity (4.4e-16, flights of 5e-15), by
// 1.2e-15 a bounce (case 14466090374848110308, t = 21.98). Sunk so, a disc's bounces
// also lost what refreshes their speed (a fall from a height), and one whose normal
// speed rounded to zero met the plane at one instant for ever (case
// 12532767243672626640: 6e-11 deep, `progress` at t = 0.4895). The lift comes at the
// first bounce that cannot rise out, so it is of a few ulps (the contact check bounds
// it in any case): it leaves i at contact to the rounding of this one step, moves it by
// round-off only, and gives back the potential energy the rounding took (m |g.n| times
// the overlap). A flight that can rise out, and every run without a field, is left as
// it was, to the bit.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::back_to_contact(std::uint32_t i,
                                                    std::uint32_t w) requires Motion::has_field {
    auto& p = particles_.state[i];
    const Wall<D> plane = obstacle_plane(box_, w, p.x);
    const double gap = plane.distance(p.x) - particles_.radius(i);
    if (!(gap < 0.0)) return;
    const double u = dot(p.v, plane.normal), acc = motion_.along(plane.normal);
    if (u > 0.0 && acc < 0.0 && motion_.fall_after_turn(gap, u, acc) == never)
        p.x += plane.normal * -gap;
}

// Reflection of i, advanced to now, from wall w, and its tally.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::apply_wall(std::uint32_t i, std::uint32_t w, bool at_contact) {
    auto& p = particles_.state[i];
    Wall<D> wall = obstacle_plane(box_, w, p.x);
    invariants_.wall_contact(kernel(), i, w, wall, at_contact);
    const double m = particles_.mass(i);
    const double k = kinetic_energy(m, p.v);
    const Vec<D> v = p.v;
    wall.restitution = clocks_.wall(kernel(), i, w);
    if (accounts_.fluxes_kept()) accounts_.flux_leave(now_, m, p.v);
    if (wall.thermal()) [[unlikely]] {
        // re-emitted, as reflection is, only when moving into the wall (collide.hpp)
        if (dot(p.v, wall.normal) < 0.0) p.v = emission_.emit(wall, m);
    } else {
        wall_collision(wall, p.v, m);
    }
    if (accounts_.fluxes_kept()) accounts_.flux().add(m, p.v, 1.0); // an external force
    clocks_.collided(i, now_);
    const double dk = kinetic_energy(m, p.v) - k;
    kinetic_change(p.species, dk);
    Tally& tally = accounts_.tally();
    if (w < tally.wall_heat.size()) {
        tally.wall_heat[w] += dk;
        for (int a = 0; a < D; ++a) tally.wall_momentum[3 * w + a] += m * (p.v[a] - v[a]);
    }
    ++tally.wall_collisions;
    log_wall(i, w);
    last_partner_[i] = none;
}

// Whether i's next event is one the group step leaves to the binary rules (engine.hpp).
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::outside_groups(std::uint32_t i) const {
    if constexpr (Motion::has_field) {
        const Schedule& s = schedule_[i];
        if (s.kind == Kind::pair) return particles_.state[s.pair.partner].resting();
        if (s.kind == Kind::wall) return s.wall == glide_end;
    }
    return false;
}

} // namespace choc
