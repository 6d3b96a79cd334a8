// The engine's runtime invariants (docs/ARCHITECTURE.md, "The engine's parts"; audit.hpp):
// the contact distance at every collision, overlaps seen by a scan, the event order, a
// clock that cannot move on, and the ledger's conservation. Members of Engine, defined
// apart from the class; they stay on in release builds.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

// Pair i, j (advanced to now, r = x_i - x_j) at a collision: never overlapping beyond
// round-off, and, when it is the pair's own predicted event, not apart either.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::check_pair_contact(std::uint32_t i, std::uint32_t j,
                                                       const Vec<D>& r, bool at_contact) {
    const double sigma =
        particles_.table.pair_sigma(particles_.state[i].species, particles_.state[j].species);
    const double gap = (norm(r) - sigma) / sigma;
    accounts_.tally().overlap(-gap);
    if (gap < -contact_tolerance_ || (at_contact && gap > contact_tolerance_))
        invariant_violated(
            "contact distance", origin_ + now_,
            fmt::format("particles {} and {} collide at distance {:.17g}, contact distance "
                        "{:.17g} (relative gap {:.3g}, tolerance {:.3g})",
                        id_[i], id_[j], norm(r), sigma, gap, contact_tolerance_));
}

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::check_wall_contact(std::uint32_t i, std::uint32_t w,
                                                       const Wall<D>& wall, bool at_contact) {
    const double a = particles_.radius(i);
    const double gap = (wall.distance(particles_.state[i].x) - a) / a;
    accounts_.tally().overlap(-gap);
    if (gap < -contact_tolerance_ || (at_contact && gap > contact_tolerance_))
        invariant_violated("contact distance", origin_ + now_,
                           fmt::format("particle {} meets wall {} at centre distance {:.17g}, "
                                       "radius {:.17g} (relative gap {:.3g}, tolerance {:.3g})",
                                       id_[i], w, wall.distance(particles_.state[i].x), a, gap,
                                       contact_tolerance_));
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::clock_stuck() const {
    if constexpr (Motion::has_field) {
        if (rest_.on())
            stall_not_ended(); // (rescued at rescue_instant_factor long instants already)
        slide_without_rest_model();
    }
    const std::uint32_t i = calendar_.top();
    invariant_violated("progress", origin_ + now_,
                       fmt::format("{} events in a row at this instant (the last of particle "
                                   "{}, {} simultaneous groups so far): the clock cannot move on",
                                   events_at_now_, id_[i], accounts_.tally().groups));
}

// Without the rest model: the stuck instant's next event is a particle meeting an
// obstacle the field presses it onto, with no speed across it beyond round-off (at
// most group_approach_tolerance of its speed). It slides along it: the limit of
// bounces of no height, infinitely many at one instant, which hard spheres cannot go
// past (an inelastic collapse of one particle; with TC the bounces are elastic and
// still of no height). A physical outcome of the model asked for (exit status 3),
// whose answer is the rest model's glide. Seen: a disc at a side wall under tilted
// gravity, its normal speed 6.7e-16 and then zero (scan case 9564059025244880716,
// t = 2.6538; choc run's collapse watch stops the same run at t = 3.17).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::slide_without_rest_model() const requires Motion::has_field {
    const std::uint32_t i = calendar_.top();
    const Schedule& s = schedule_[i];
    if (s.kind != Kind::wall || s.wall == glide_end) return;
    const ParticleState<D> q = flight_from_now(i);
    const Wall<D> plane = obstacle_plane(box_, s.wall, q.x);
    const double u = dot(q.v, plane.normal);
    if (!(motion_.along(plane.normal) < 0.0) ||
        !(std::abs(u) <= group_approach_tolerance * norm(q.v)))
        return;
    throw InelasticCollapse(fmt::format(
        "collisions.rest_speed: inelastic collapse at t = {}: particle {} lies on obstacle "
        "{} with no speed across it (the field pressing it on) and slides along it; hard "
        "spheres meet such a slide again at one instant for ever (bounces of no height, "
        "{} events at this instant). Set collisions.rest_speed > 0 (the rest model): its "
        "particles glide along their supports.",
        origin_ + now_, id_[i], s.wall, events_at_now_));
}

// An instant whose stall the rest model's rescue (rescue_stall) did not end, by the
// stuck limit: a physical outcome of the model, an inelastic collapse it cannot
// resolve, not a broken engine (exit status 3, as the collapse watch's). Seen: the
// 60-disc box at e = 0.3 without TC (seeds 4 and 17), a million events at t = 6.2 after
// the rescue. (At four times the plastic instant's events instead, two more seeds that
// end their instants later stopped too.)
template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::stall_not_ended() const {
    throw InelasticCollapse(fmt::format(
        "collisions.rest_speed: inelastic collapse at t = {}: {} events at one instant, "
        "after the rest model stopped the particles stalled there (particle {} the last): "
        "the stall goes on.{}",
        origin_ + now_, events_at_now_, id_[calendar_.top()],
        settings_.tc > 0.0 ? "" : " Set collisions.tc > 0 (the TC model) as well."));
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::event_out_of_order(double t) const {
    const std::uint32_t i = calendar_.top();
    invariant_violated("event order", origin_ + now_,
                       fmt::format("the next event (particle {}, at t = {:.17g}) is earlier "
                                   "than the clock",
                                   id_[i], origin_ + t));
}

// A scan found i overlapping candidate j beyond the tolerance (c = r.r - sigma^2 < 0).
template <int D, Calendar Cal, Motion<D> Motion>
template <bool Shifted>
void Engine<D, Cal, Motion>::overlap_seen(std::uint32_t i, const std::uint32_t* candidate,
                                          const Vec<D>* shift, const std::uint8_t* from,
                                          int k) const {
    const Vec<D> xi = motion_.position(particles_.state[i], now_);
    for (int m = 0; m < k; ++m) {
        const std::uint32_t j = candidate[m];
        if (j == i || group_.overlap_expected(i, j)) continue; // (group_step.hpp)
        const auto& pj = particles_.state[j];
        const double r = norm(xi_seen_by<Shifted>(xi, shift, from, m) - motion_.position(pj, now_));
        const double sigma = particles_.table.pair_sigma(particles_.state[i].species, pj.species);
        if ((sigma - r) / sigma > contact_tolerance_)
            invariant_violated("overlap", origin_ + now_,
                               fmt::format("particles {} and {} overlap: distance {:.17g}, "
                                           "contact distance {:.17g}",
                                           id_[i], id_[j], r, sigma));
    }
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::overlap_across_face(std::uint32_t i, std::uint32_t j, double r,
                                                 double sigma) const {
    invariant_violated("overlap", origin_ + now_,
                       fmt::format("particles {} and {} overlap across the sliding face: "
                                   "distance {:.17g}, contact distance {:.17g}",
                                   id_[i], id_[j], r, sigma));
}

// Energy (kinetic + potential in the field) and momentum now, with their round-off
// scales; the tally's collision energy and the work of drag so far.
template <int D, Calendar Cal, Motion<D> Motion>
inline Ledger<D> Engine<D, Cal, Motion>::ledger() const {
    return accounts_.ledger(particles_, motion_, now_, [this] { return kinetic_integral(); });
}

// The ledger now against the last check's (audit.hpp: check_ledger).
template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::check_conservation() {
    accounts_.check(ledger(), momentum_conserved_, origin_ + now_);
}

} // namespace choc
