// The engine's runtime invariants, a part of the engine (docs/ARCHITECTURE.md, "The
// engine's parts"; audit.hpp): the contact distance at every collision, the event order, a
// clock that cannot move on. Its state: the contact tolerance (and the overlap a scan
// allows), the events at the current instant and the counts that make an instant long or
// stuck, whether momentum is conserved. The checks stay on in release builds and read the
// engine through the Kernel. The overlaps a scan sees are checked by the pair prediction
// (Engine::overlap_seen), the ledger's conservation by check_conservation
// (engine/maintenance.hpp), both against this part's tolerances.
#pragma once

#include "choc/errors.hpp"
#include "choc/kernel/audit.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace choc {

template <int D, Motion<D> M>
class Invariants {
  public:
    // The tolerances for this box and these particles, the limits of an instant, and
    // whether momentum is conserved (a box periodic on every axis, without walls, segments,
    // triangles or a field; sliding boundaries say otherwise: momentum_not_conserved).
    void set_up(const Box<D>& box, const Particles<D>& particles) {
        contact_tolerance_ = contact_tolerance_for(box, particles.table);
        // r < sigma (1 - tol)  <=>  c < -sigma^2 (1 - (1 - tol)^2)
        overlap_c_ = 1.0 - (1.0 - contact_tolerance_) * (1.0 - contact_tolerance_);
        stuck_limit_ =
            stuck_events_per_particle * std::uint64_t{particles.size()} + stuck_events_base;
        if constexpr (M::has_field)
            long_instant_ =
                plastic_events_per_particle * std::uint64_t{particles.size()} + plastic_events_base;
        momentum_conserved_ =
            !M::has_field && Obstacles<D>::count(box) == 0 && // (plane walls included)
            std::all_of(box.periodic.begin(), box.periodic.end(), [](bool p) { return p; });
    }
    void momentum_not_conserved() { momentum_conserved_ = false; }

    // Largest relative gap (or overlap) a contact may show from round-off (audit.hpp), and
    // the overlap a scan allows in terms of c = r.r - sigma^2: c < -overlap_c() sigma^2.
    double contact_tolerance() const { return contact_tolerance_; }
    double overlap_c() const { return overlap_c_; }
    bool momentum_conserved() const { return momentum_conserved_; }

    // --- The instant --------------------------------------------------------------------
    //
    // Events at one instant so far (a field of the engine's "clock" section), and how many
    // mean the clock is stuck: a lattice start has every particle colliding at once, with
    // stale renewals and groups, a few events per particle; 64 per particle and a million
    // more is far beyond any real instant.
    std::uint64_t& events_at_now() { return events_at_now_; }
    // The event loop's next event, at local time t: never earlier than the clock (every
    // prediction is now + dt, dt >= 0), and a clock that stands still for ever is stuck,
    // not slow (audit.hpp).
    template <class Kernel>
    void next_event(const Kernel& e, double t) {
        if (t < e.now()) event_out_of_order(e, t);
        if (t > e.now())
            events_at_now_ = 0;
        else if (++events_at_now_ > stuck_limit_) [[unlikely]]
            clock_stuck(e);
    }
    // Under a field: an instant of more than long_instant_ events has its pairs approaching
    // by round-off left as they are (at_rest_contact), and with the rest model its
    // collisions plastic (plastic_instant) and, at rescue_instant_factor times as many, its
    // stall rescued (rescue_stall).
    bool long_instant() const { return events_at_now_ > long_instant_; }
    bool rescue_due() const { return events_at_now_ == rescue_instant_factor * long_instant_; }

    // --- The checks ---------------------------------------------------------------------

    // Pair i, j (advanced to now, r = x_i - x_j) at a collision: never overlapping beyond
    // round-off, and, when it is the pair's own predicted event, not apart either.
    template <class Kernel>
    void pair_contact(const Kernel& e, std::uint32_t i, std::uint32_t j, const Vec<D>& r,
                      bool at_contact) const {
        const auto& particles = e.particles();
        const double sigma =
            particles.table.pair_sigma(particles.state[i].species, particles.state[j].species);
        const double gap = (norm(r) - sigma) / sigma;
        e.tally().overlap(-gap);
        if (gap < -contact_tolerance_ || (at_contact && gap > contact_tolerance_))
            invariant_violated(
                "contact distance", e.time(),
                fmt::format("particles {} and {} collide at distance {:.17g}, contact distance "
                            "{:.17g} (relative gap {:.3g}, tolerance {:.3g})",
                            e.id(i), e.id(j), norm(r), sigma, gap, contact_tolerance_));
    }
    // Particle i (advanced to now) at a collision with wall (obstacle) w: the same.
    template <class Kernel>
    void wall_contact(const Kernel& e, std::uint32_t i, std::uint32_t w, const Wall<D>& wall,
                      bool at_contact) const {
        const auto& particles = e.particles();
        const double a = particles.radius(i);
        const double gap = (wall.distance(particles.state[i].x) - a) / a;
        e.tally().overlap(-gap);
        if (gap < -contact_tolerance_ || (at_contact && gap > contact_tolerance_))
            invariant_violated("contact distance", e.time(),
                               fmt::format("particle {} meets wall {} at centre distance {:.17g}, "
                                           "radius {:.17g} (relative gap {:.3g}, tolerance {:.3g})",
                                           e.id(i), w, wall.distance(particles.state[i].x), a, gap,
                                           contact_tolerance_));
    }
    // A scan across the sliding face found i and j overlapping.
    template <class Kernel>
    [[noreturn, gnu::cold, gnu::noinline]] void
    overlap_across_face(const Kernel& e, std::uint32_t i, std::uint32_t j, double r,
                        double sigma) const {
        invariant_violated("overlap", e.time(),
                           fmt::format("particles {} and {} overlap across the sliding face: "
                                       "distance {:.17g}, contact distance {:.17g}",
                                       e.id(i), e.id(j), r, sigma));
    }

    // The contact tolerance of the invariants: invariant_tolerance, or the round-off of
    // coordinates as large as the box's, relative to the smallest contact distance.
    static double contact_tolerance_for(const Box<D>& box, const SpeciesTable& table) {
        double longest = 0.0, shortest = never;
        for (int a = 0; a < D; ++a) longest = std::max(longest, box.length[a]);
        for (std::size_t a = 0; a < table.size(); ++a)
            shortest = std::min(shortest, 2.0 * table.species[a].radius);
        // a coordinate carries round-off of about eps * L; a contact is a few operations on
        // coordinates, so 64 of those, relative to the smallest contact distance
        const double round_off =
            contact_round_off_ulps * std::numeric_limits<double>::epsilon() * longest / shortest;
        return std::max(invariant_tolerance, round_off);
    }

  private:
    // The clock cannot move on: an inelastic collapse the model cannot resolve (exit 3:
    // stall_not_ended, slide_without_rest_model), else a broken engine ("progress").
    template <class Kernel>
    [[gnu::cold, gnu::noinline]] void clock_stuck(const Kernel& e) const {
        if constexpr (M::has_field) {
            if (e.rest().on())
                stall_not_ended(e); // (rescued at rescue_instant_factor long instants already)
            slide_without_rest_model(e);
        }
        const std::uint32_t i = e.calendar().top();
        invariant_violated("progress", e.time(),
                           fmt::format("{} events in a row at this instant (the last of particle "
                                       "{}, {} simultaneous groups so far): the clock cannot "
                                       "move on",
                                       events_at_now_, e.id(i), e.tally().groups));
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
    template <class Kernel>
    void slide_without_rest_model(const Kernel& e) const {
        const std::uint32_t i = e.calendar().top();
        const auto& s = e.schedule(i);
        if (s.kind != Kernel::Kind::wall || s.wall == Kernel::glide_end) return;
        const ParticleState<D> q = e.flight_from_now(i);
        const Wall<D> plane = obstacle_plane(e.box(), s.wall, q.x);
        const double u = dot(q.v, plane.normal);
        if (!(e.motion().along(plane.normal) < 0.0) ||
            !(std::abs(u) <= group_approach_tolerance * norm(q.v)))
            return;
        throw InelasticCollapse(fmt::format(
            "collisions.rest_speed: inelastic collapse at t = {}: particle {} lies on obstacle "
            "{} with no speed across it (the field pressing it on) and slides along it; hard "
            "spheres meet such a slide again at one instant for ever (bounces of no height, "
            "{} events at this instant). Set collisions.rest_speed > 0 (the rest model): its "
            "particles glide along their supports.",
            e.time(), e.id(i), s.wall, events_at_now_));
    }

    // An instant whose stall the rest model's rescue (rescue_stall) did not end, by the
    // stuck limit: a physical outcome of the model, an inelastic collapse it cannot
    // resolve, not a broken engine (exit status 3, as the collapse watch's). Seen: the
    // 60-disc box at e = 0.3 without TC (seeds 4 and 17), a million events at t = 6.2 after
    // the rescue. (At four times the plastic instant's events instead, two more seeds that
    // end their instants later stopped too.)
    template <class Kernel>
    [[gnu::cold, gnu::noinline]] void stall_not_ended(const Kernel& e) const {
        throw InelasticCollapse(fmt::format(
            "collisions.rest_speed: inelastic collapse at t = {}: {} events at one instant, "
            "after the rest model stopped the particles stalled there (particle {} the last): "
            "the stall goes on.{}",
            e.time(), events_at_now_, e.id(e.calendar().top()),
            e.settings().tc > 0.0 ? "" : " Set collisions.tc > 0 (the TC model) as well."));
    }

    template <class Kernel>
    [[gnu::cold, gnu::noinline]] void event_out_of_order(const Kernel& e, double t) const {
        const std::uint32_t i = e.calendar().top();
        invariant_violated("event order", e.time(),
                           fmt::format("the next event (particle {}, at t = {:.17g}) is earlier "
                                       "than the clock",
                                       e.id(i), e.origin() + t));
    }

    double contact_tolerance_ = invariant_tolerance, overlap_c_ = 0.0;
    bool momentum_conserved_ = false;
    std::uint64_t events_at_now_ = 0, stuck_limit_ = 0;
    std::uint64_t long_instant_ = std::numeric_limits<std::uint64_t>::max();
};

} // namespace choc
