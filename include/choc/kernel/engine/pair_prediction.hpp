// How the engine predicts a particle's pair collisions (docs/ARCHITECTURE.md, "The event
// loop" and "The engine's parts"): the scan of its cells, the batched pair times of
// straight flights and the one-by-one times of curved ones, the best and runner-up kept
// with the horizon, a stale candidate renewed, and an overlap a scan sees (the invariant,
// against the invariants' tolerance: engine/invariants.hpp). Members of Engine, defined
// apart from the class: the hot loop, every call inlined as before.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

// A pair candidate whose partner has moved since: the runner-up if it still holds
// (engine.hpp, at the top), else look again.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::renew(std::uint32_t i) {
    ++accounts_.tally().stale;
    Schedule& s = schedule_[i];
    if (s.runner_up.partner != none && valid(s.runner_up)) {
        s.pair = s.runner_up;
        s.runner_up.partner = none; // keeps its time: the horizon of the last scan
    } else {
        ++accounts_.tally().rescans;
        s.pair = {}, s.runner_up = {};
        scan_all_pairs(i);
    }
    reschedule(i);
}

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::scan_all_pairs(std::uint32_t i) {
    if (!grids_.one()) [[unlikely]]
        return scan_levels(i);
    const Cells<D>& cells = grids_.cells();
    cells.around(cells.cell_of(i), grids_.near());
    scan_pairs(i, cells, grids_.near());
    if (sliding_.on()) [[unlikely]]
        sliding_.scan(kernel(), i);
}

// i's pairs in every stencil a full scan of it looks at over the levels of grids, and in
// the coarser grids' than level a (around i's position now).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::scan_levels(std::uint32_t i) {
    grids_.for_each_stencil(i, level_of(i), position_now(i),
                            [&](const Cells<D>& g, const auto& near) { scan_pairs(i, g, near); });
}

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::scan_coarser(std::uint32_t i, std::size_t a) {
    grids_.for_each_coarser(a, position_now(i),
                            [&](const Cells<D>& g, const auto& near) { scan_pairs(i, g, near); });
}

// Improves i's pair candidates with the particles of the given cells.
//
// Two passes: first gather the candidates of every cell and prefetch their records,
// so that the cache misses overlap instead of queueing behind each other; then test
// them. A cell holds 0 to a few particles, a count the branch predictor cannot guess,
// so while the lists are short the gather copies every slot of a list (a fixed
// count) and only advances by the number in use. Away from the box's edges (most
// scans) every periodic shift is zero: the candidates need no record of their cell,
// and the pair loop subtracts no shift (x - 0 is x: the same bits either way).
template <int D, Calendar Cal, Motion<D> Motion>
template <class S>
inline void Engine<D, Cal, Motion>::scan_pairs(std::uint32_t i, const Cells<D>& cells,
                                               const S& near) {
    for (int c = 0; c < near.size; ++c) cells.prefetch(near.cell[c]);
    if (near.edge)
        gather<true>(i, cells, near);
    else
        gather<false>(i, cells, near);
}

// (A wide stencil (cell_levels.hpp) may have more cells than `from`, a byte, can
// number: a batch then starts at cell `base` of it, and `from` counts from there.)
template <int D, Calendar Cal, Motion<D> Motion>
template <bool Shifted, class S>
inline void Engine<D, Cal, Motion>::gather(std::uint32_t i, const Cells<D>& cells, const S& near) {
    constexpr bool wide = std::is_same_v<S, typename Cells<D>::WideStencil>;
    std::array<std::uint32_t, batch + fixed_slots> candidate;
    std::array<std::uint8_t, batch + fixed_slots> from; // which of `near` it is in
    // The lists' storage in locals: the byte stores to `from` may alias anything, and
    // would make the compiler load the grid's pointer and stride again for every cell.
    const auto lists = cells.lists();
    const Vec<D>* shift = near.shift();
    int k = 0, base = 0;
    auto flush = [&](int next) {
        // (unshifted, `from` is neither filled in nor read: none is handed on, which
        // also tells a compiler that cannot see it that nothing reads it)
        predict_candidates<Shifted>(i, shift + base, candidate.data(),
                                    Shifted ? from.data() : nullptr, k);
        k = 0;
        if constexpr (wide) base = next;
    };
    if (lists.slots() == fixed_slots) {
        for (int c = 0; c < near.size; ++c) {
            if (k + fixed_slots > batch || (wide && c - base > 255)) flush(c);
            std::copy_n(lists.begin(near.cell[c]), fixed_slots, &candidate[k]);
            if constexpr (Shifted)
                std::fill_n(&from[k], fixed_slots, static_cast<std::uint8_t>(c - base));
            k += static_cast<int>(lists.count(near.cell[c]));
        }
    } else {
        for (int c = 0; c < near.size; ++c) {
            if (wide && c - base > 255) flush(c);
            const std::uint32_t* begin = lists.begin(near.cell[c]);
            const auto count = static_cast<int>(lists.count(near.cell[c]));
            for (int q = 0; q < count; ++q) {
                if (k == batch) flush(c);
                candidate[k] = begin[q];
                if constexpr (Shifted) from[k] = static_cast<std::uint8_t>(c - base);
                ++k;
            }
        }
    }
    flush(near.size);
}

// Predicts i's pairs with a batch of candidates and keeps the earliest (take_earliest).
// Candidate m is particle candidate[m], seen through shift[from[m]] (Shifted), or as
// it is (not Shifted: `from` is not filled in).
template <int D, Calendar Cal, Motion<D> Motion>
template <bool Shifted>
inline void Engine<D, Cal, Motion>::predict_candidates(std::uint32_t i, const Vec<D>* shift,
                                                       const std::uint32_t* candidate,
                                                       const std::uint8_t* from, int k) {
    accounts_.tally().pair_predictions += static_cast<std::uint64_t>(k); // i itself among them
    for (int m = 0; m < k; ++m) __builtin_prefetch(&particles_.state[candidate[m]]);
    if constexpr (Motion::has_field)
        pair_times_one_by_one<Shifted>(i, shift, candidate, from, k);
    else
        pair_times_batched<Shifted>(i, shift, candidate, from, k);
}

// i and j, at contact, have just been resolved at this instant: alone
// (last_partner_) or as a contact of a group left at rest (GroupStep::resting).
// Alone means each other's last partner and both stamped now: their collision advanced
// both to its instant, and the last partner alone does not say when. Straight relative
// flights never meet twice, but in a periodic box a pair that collided earlier and
// has met nothing since can meet again through another image; when that contact falls
// exactly on a cell crossing, the crossing's scan finds it at dt = 0, a real collision
// (it was skipped: oracle family aligned3d, a striker round a box of 8 diameters).
//
// When i and j met now, the time from now at which their pair is to be met again:
// never after a collision alone (straight relative flights never meet twice; with
// e = 0 the pair may look approaching by round-off of its velocities), and for a
// contact left at rest (RestingContacts), when its relative flight (straight when the
// field is the same for both; curved between a glider and another flight, below)
// would take it a quarter of the contact tolerance deeper, if ever.
// A contact that slides (its relative velocity not small against its approach, at
// most group_approach_tolerance of the speeds) never gets so deep: its path comes no
// nearer than |r| (1 − (u/|v|)²/2). One that approaches head on does: skipped for ever
// instead, it went on approaching until either particle changed course, a touching
// pair of a row falling as one, left approaching at 1.7e-9 (of speeds of 2.3) by the
// rest model's long instant, flying so for 1.09 time units without another event of
// either, 1.9e-9 into each other (invariant `overlap`, scan case
// 9279866344031185594, t = 3.615). Met then, at a later instant, the pair collides by
// its own rule within the contact check's tolerance (with epsilon > 0 in a group too,
// GroupStep::reflect_held_pairs, whose rule would call it at rest again).
// (0 for a pair that did not meet now: its collision now is real.)
template <int D, Calendar Cal, Motion<D> Motion>
double Engine<D, Cal, Motion>::held_contact_delay(std::uint32_t i, std::uint32_t j) const {
    if (last_partner_[i] == j && last_partner_[j] == i && particles_.state[i].t == now_ &&
        particles_.state[j].t == now_)
        return never;
    if (!group_.resting().holds(now_, id_[i], id_[j], particles_.state[i].count,
                                particles_.state[j].count))
        return 0.0;
    if (sliding_.on()) return never; // (a sliding image's velocity: not worth the case)
    const ParticleState<D> qi = flight_from_now(i), qj = flight_from_now(j);
    const Vec<D> r = box_.minimum_image(qi.x - qj.x);
    // a quarter of the tolerance deeper than it is now: never now again, and a pair
    // held so twice, plastic (e = 0 leaves it where it met), still within the check
    const double sigma = particles_.table.pair_sigma(qi.species, qj.species);
    const double deep =
        std::min(norm(r), sigma) - held_contact_depth * invariants_.contact_tolerance() * sigma;
    // Flights that differ in kind (the rest model: one glides and the other falls, or
    // they glide on different supports) are not straight relative to each other: their
    // relative flight is pulled by a_i − a_j, (g.n) n for a faller and one gliding on a
    // face of normal n, and a contact the group rule left at rest may close again under
    // that pull however it slides now. Near contact the gap moves as
    //     gap(τ) = u τ + (a_ij.n̂ + |v_t|² / |r|) τ² / 2 + O(τ³)     (n̂ = r / |r|),
    // and where the tangential speed wins (the bracket > 0) the pair parts and the
    // constant pull brings it back later, at a root the straight path above cannot
    // see: its straight path only moves away (u at rest by the rule, |v_t| large), so
    // the pair was never met again. Seen (scan case 7458845209701578175): disc 370
    // falling across the top of disc 196, which glides down a plane of the vee, the
    // two sliding past at 0.43 with u at round-off after a group with the plane (pull
    // −0.20 along the contact, |v_t|²/|r| = 0.26): the curved search (time_to_glider)
    // meets them again 0.174 later, but the group rule's "at rest" left them
    // approaching by round-off, so the search's first root was the contact now, which
    // this delay turned into never; 370 flew 1.2e-4 into 196 by t = 9.2475 (invariant
    // `overlap`). The delay is then the curved search's for the deeper distance, as
    // every prediction of such a pair searches (time_to_glider: within i's horizon and
    // cell, searched again at i's crossing by rescan_resting): the return, a quarter of
    // the tolerance past the contact, or, if the round-off approach got that deep
    // before the pull turned it (at most u² / (2 × the bracket)), that. Straight pairs,
    // and every run without a glide, are unchanged.
    ParticleState<D> q = qi;
    q.x = qj.x + r; // i as j sees it
    return meeting_time<true>(i, q, qj, qj.x, qj.v, r, qi.v - qj.v, deep * deep, never);
}

// When i, flying as q from now (stamp 0, at j's side of the box), first meets j (state
// pj, at xj with velocity vj now) at distance sqrt(sigma2), r and v their relative
// position and velocity now, before the horizon (relative to now): by the kind of their
// relative flight. A particle at rest is a fixed sphere (the rest model); a glider and a
// falling particle, or gliders on different supports, meet on a curved relative flight;
// two on the same slot on a straight one, as does every pair without a glide. The
// prediction (pair_times_one_by_one) and the search for a held contact
// (held_contact_delay) both ask this, so no kind of flight is missed by either.
// Gliders: whether a glide may be among them (the loop without the branches is faster).
template <int D, Calendar Cal, Motion<D> Motion>
template <bool Gliders>
[[gnu::always_inline]] inline double Engine<D, Cal, Motion>::meeting_time(
    std::uint32_t i, const ParticleState<D>& q, const ParticleState<D>& pj, const Vec<D>& xj,
    const Vec<D>& vj, const Vec<D>& r, const Vec<D>& v, double sigma2, double horizon) const {
    if constexpr (Motion::has_field) {
        if (pj.resting()) [[unlikely]] // a fixed sphere (engine/rest_model.hpp)
            return RestModel<D, Motion>::time_to_resting(flight_motion(q), q, pj.x,
                                                         std::sqrt(sigma2), meeting_window(i));
        if (Gliders && q.glide_slot() != pj.glide_slot()) // a curved meeting
            return Glides<D, Motion>::time_to_glider(motion_, q, xj, vj, pj.glide_slot(),
                                                     std::sqrt(sigma2), meeting_window(i));
        if (Gliders && q.gliding()) // both glide alike: straight, as without gravity
            return glides_.motion(q.glide_slot()).pair_time(r, v, sigma2, horizon);
    }
    return motion_.pair_time(r, v, sigma2, horizon);
}

// Merges the candidates' pair times dt[0 .. k) into i's best and runner-up: strictly
// earlier wins, so among equal times the first listed does, as in a one-by-one scan.
//
// The candidates are compared as they are stored, absolute times t = fl(now + dt), not
// as intervals from now. renew() promotes the runner-up when the best proves stale, at
// the best's time, so the promise is pair.time <= runner_up.time as stored. Against an
// interval, a stored time T is T - now, exact only when now >= T / 2 (Sterbenz); soon
// after a rebase (now small, T far off) it is rounded, and a dt >= fl(T - now) could be
// stored as fl(now + dt) = T - 1 ulp: a runner-up an ulp before the best, promoted at a
// clock already past it (invariant 'event order', scan case 17988110416831559236: the
// same pair found again after the partner re-entered through the sliding face, its
// count new and its relative flight unchanged). fl(now + dt) is monotone in dt, so the
// order decided here is the order the calendar and renew() see.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::take_earliest(std::uint32_t i, const std::uint32_t* candidate,
                                                  const double* dt, int k) {
    Schedule& s = schedule_[i];
    double best = std::min(s.pair.time, s.wall_time);
    double next = std::min(s.runner_up.time, s.wall_time);
    for (int m = 0; m < k; ++m) {
        const double t = now_ + dt[m];
        if (t >= next) continue;
        const std::uint32_t j = candidate[m];
        // A pair that has just collided is at contact, and with e = 0 it may look
        // approaching by round-off; straight lines cannot meet twice, so skip it. A
        // contact just left at rest (resting_contacts.hpp) is met again only deeper
        // (held_contact_delay).
        double t_pair = t;
        if (dt[m] == 0.0) [[unlikely]] {
            t_pair = now_ + held_contact_delay(i, j);
            if (t_pair >= next) continue;
        }
        const PairCandidate c{t_pair, j, particles_.state[j].count};
        if (t_pair < best) {
            s.runner_up = s.pair, next = best;
            s.pair = c, best = t_pair;
        } else {
            s.runner_up = c, next = t_pair;
        }
    }
}

// Straight flights: the relative motions of the batch are gathered (and checked for
// overlaps) first, then pair_times (predict.hpp) computes every time alike, without a
// branch per candidate: pair_time's times to the bit, in a loop the compiler vectorises.
template <int D, Calendar Cal, Motion<D> Motion>
template <bool Shifted>
inline void Engine<D, Cal, Motion>::pair_times_batched(std::uint32_t i, const Vec<D>* shift,
                                                       const std::uint32_t* candidate,
                                                       const std::uint8_t* from, int k) {
    const Schedule& s = schedule_[i];
    const auto& pi = particles_.state[i];
    const Vec<D> xi = pi.position_at(now_);
    const double* sigma2 = &particles_.table.sigma2[pi.species * particles_.table.size()];
    const double horizon = pair_horizon(s);
    alignas(64) std::array<std::array<double, batch>, D> r, v;
    alignas(64) std::array<double, batch> c, dt;
    bool overlap = false; // some candidate other than i overlaps beyond the tolerance
    for (int m = 0; m < k; ++m) {
        const auto& pj = particles_.state[candidate[m]];
        const Vec<D> rm = xi_seen_by<Shifted>(xi, shift, from, m) - pj.position_at(now_);
        for (int a = 0; a < D; ++a) r[a][m] = rm[a], v[a][m] = pi.v[a] - pj.v[a];
        c[m] = norm2(rm) - sigma2[pj.species];
        overlap |= (c[m] < -invariants_.overlap_c() * sigma2[pj.species]) & (candidate[m] != i);
    }
    if (overlap) [[unlikely]]
        overlap_seen<Shifted>(i, candidate, shift, from, k);
    // i itself is among the candidates: r = 0 and v = 0 give b = 0, "not approaching".
    pair_times<D>(r, v, c, horizon, dt, k);
    take_earliest(i, candidate, dt.data(), k);
}

// With Gliders (only while some particle glides, resting.hpp) a glider and a falling
// particle meet on a curved relative flight, as do two gliders on different supports;
// two on the same slot on a straight one. The two
// branches this takes per candidate cost a fifth of a run under gravity when always in
// the loop (measured, the 2D hourglass), so the loop without them is compiled apart.
template <int D, Calendar Cal, Motion<D> Motion>
template <bool Shifted, bool Gliders>
inline void Engine<D, Cal, Motion>::pair_times_one_by_one(std::uint32_t i, const Vec<D>* shift,
                                                          const std::uint32_t* candidate,
                                                          const std::uint8_t* from, int k) {
    if constexpr (!Gliders)
        if (glides_.gliding() > 0) [[unlikely]]
            return pair_times_one_by_one<Shifted, true>(i, shift, candidate, from, k);
    const auto& pi = particles_.state[i];
    const Vec<D> xi = motion_.position(pi, now_);
    const Vec<D> vi = motion_.velocity(pi, now_);
    const double* sigma2 = &particles_.table.sigma2[pi.species * particles_.table.size()];
    const Schedule& s = schedule_[i];
    const double horizon = pair_horizon(s);
    std::array<double, batch> dt;
    for (int m = 0; m < k; ++m) {
        const auto& pj = particles_.state[candidate[m]];
        const Vec<D> xs = xi_seen_by<Shifted>(xi, shift, from, m);
        const Vec<D> xj = motion_.position(pj, now_), vj = motion_.velocity(pj, now_);
        const Vec<D> r = xs - xj;
        const Vec<D> v = vi - vj;
        const ParticleState<D> q{xs, vi, 0.0, pi.count, pi.species}; // i's flight from now
        dt[m] = meeting_time<Gliders>(i, q, pj, xj, vj, r, v, sigma2[pj.species], horizon);
        if (norm2(r) - sigma2[pj.species] < -invariants_.overlap_c() * sigma2[pj.species] &&
            candidate[m] != i) [[unlikely]]
            overlap_seen<Shifted>(i, candidate, shift, from, k);
    }
    take_earliest(i, candidate, dt.data(), k);
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
        if ((sigma - r) / sigma > invariants_.contact_tolerance())
            invariant_violated("overlap", origin_ + now_,
                               fmt::format("particles {} and {} overlap: distance {:.17g}, "
                                           "contact distance {:.17g}",
                                           id_[i], id_[j], r, sigma));
    }
}

// i's position xi as candidate m sees it: xi - shift[from[m]], or xi when no shift.
template <int D, Calendar Cal, Motion<D> Motion>
template <bool Shifted>
inline Vec<D> Engine<D, Cal, Motion>::xi_seen_by(const Vec<D>& xi, const Vec<D>* shift,
                                                 const std::uint8_t* from, int m) {
    if constexpr (Shifted)
        return xi - shift[from[m]];
    else
        return xi;
}

// The earliest time a new pair candidate must beat to be kept (relative to now).
template <int D, Calendar Cal, Motion<D> Motion>
inline double Engine<D, Cal, Motion>::pair_horizon(const Schedule& s) const {
    return std::min(s.runner_up.time, s.wall_time) - now_;
}

// How far ahead of now a curved meeting of i is searched.
template <int D, Calendar Cal, Motion<D> Motion>
inline double Engine<D, Cal, Motion>::meeting_window(std::uint32_t i) const {
    const Schedule& s = schedule_[i];
    return std::min(pair_horizon(s), s.crossing_time - now_);
}

// i's calendar entry: the earliest of its candidate events, and their kind.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::reschedule(std::uint32_t i) {
    Schedule& s = schedule_[i];
    double t = s.pair.time;
    s.kind = t < never ? Kind::pair : Kind::nothing;
    if (s.wall_time < t) t = s.wall_time, s.kind = Kind::wall;
    if (s.crossing_time < t) t = s.crossing_time, s.kind = Kind::crossing;
    calendar_.set(i, t);
}

} // namespace choc
