// The engine as its parts see it (docs/ARCHITECTURE.md, "The engine's parts"): what a
// part (engine/*.hpp) may read and call back on the engine, by name, and nothing else.
// Kernel is a nested class of Engine, so it reaches the engine's members without a
// friend; a part is given one by value (it holds a reference) and calls it in its hot
// loops as the engine would call itself: every call is inlined.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

template <int D, Calendar Cal, Motion<D> M>
class Engine<D, Cal, M>::Kernel {
  public:
    explicit Kernel(Engine& e) : e_(e) {}

    using Schedule = typename Engine::Schedule; // a particle's candidate events
    using Kind = typename Engine::Kind;         // of its next one
    static constexpr std::uint32_t none = Engine::none;
    static constexpr std::uint32_t glide_end = Engine::glide_end;

    // --- The shared state ---------------------------------------------------------------
    const Box<D>& box() const { return e_.box_; }
    const EngineSettings& settings() const { return e_.settings_; }
    const M& motion() const { return e_.motion_; }
    Particles<D>& particles() const { return e_.particles_; }
    std::uint32_t id(std::uint32_t i) const { return e_.id_[i]; } // the caller's index of i
    Schedule& schedule(std::uint32_t i) const { return e_.schedule_[i]; }
    Cal& calendar() const { return e_.calendar_; }
    Tally& tally() const { return e_.accounts_.tally(); }
    const RestRule& rest() const { return e_.rest_.rule(); }
    // The local clock, and moving it (the group step makes a crossing at its own time
    // inside the step's window, then comes back: GroupStep::look_past).
    double now() const { return e_.now_; }
    // The absolute time of local zero, and of now (what the invariants' messages say).
    double origin() const { return e_.origin_; }
    double time() const { return e_.origin_ + e_.now_; }
    void set_now(double t) const { e_.now_ = t; }
    // The potential energy the ledger takes back for periodic wraps (Engine::wrap).
    double& wrapped_potential() const { return e_.accounts_.wrapped_potential(); }
    // The overlap a scan allows, in terms of c = r.r - sigma^2: c < -overlap_c() sigma^2.
    double overlap_c() const { return e_.invariants_.overlap_c(); }
    // The contact check's tolerance, relative to the contact distance (audit.hpp).
    double contact_tolerance() const { return e_.invariants_.contact_tolerance(); }

    // --- Cells --------------------------------------------------------------------------
    Cells<D>& cells() const { return e_.grids_.cells(); } // the grid of level 0
    Cells<D>& grid(std::size_t l) const { return e_.grids_.grid(l); }
    std::size_t level_of(std::uint32_t i) const { return e_.level_of(i); }
    // The obstacles besides the plane walls, by kind (engine/obstacles.hpp): what the rest
    // model, the glides and the group step ask of them at an instant.
    const Obstacles<D>& obstacles() const { return e_.obstacles_; }
    // Calls f(j, shift) for every particle j that a full scan of i looks at (i itself among
    // them), with the shift that brings j's image next to i: x_j + shift.
    template <class F>
    void for_each_near(std::uint32_t i, F&& f) const {
        e_.grids_.for_each_near(i, e_.level_of(i), e_.position_now(i), std::forward<F>(f));
    }
    // i crosses into its next cell, as the event loop makes the crossing (Engine::cross).
    void cross(std::uint32_t i) const { e_.cross(i); }

    // --- Particles and their predictions ------------------------------------------------
    // i's state brought from its time stamp to now.
    void advance(std::uint32_t i) const { e_.advance(i); }
    // i's flight restarted now: its position and velocity now, stamp 0 (flight_from_now).
    ParticleState<D> flight_from_now(std::uint32_t i) const { return e_.flight_from_now(i); }
    // The flight p follows: a glide's, or the field's (Engine::flight_motion).
    const M& flight_motion(const ParticleState<D>& p) const { return e_.flight_motion(p); }
    // How far ahead of now a curved meeting of i is searched (Engine::meeting_window).
    double meeting_window(std::uint32_t i) const { return e_.meeting_window(i); }
    // i's calendar entry from its candidate events.
    void reschedule(std::uint32_t i) const { e_.reschedule(i); }
    // Every candidate event of i anew (its velocity changed), and its calendar entry.
    void predict_all(std::uint32_t i) const { e_.predict_all(i); }
    // The time, relative to now, that a new pair candidate of i must beat to be kept.
    double pair_horizon(std::uint32_t i) const { return e_.pair_horizon(e_.schedule_[i]); }
    // Merges pair times dt[0 .. k) with the candidates' into i's candidate events.
    void take_earliest(std::uint32_t i, const std::uint32_t* candidate, const double* dt,
                       int k) const {
        e_.take_earliest(i, candidate, dt, k);
    }
    // Whether i's pair candidate is stale (its partner moved since), and renewing it.
    bool stale(std::uint32_t i) const { return e_.stale(i); }
    void renew(std::uint32_t i) const { e_.renew(i); }
    // Whether i's next event is one the group step leaves to the binary rules.
    bool outside_groups(std::uint32_t i) const { return e_.outside_groups(i); }
    // After a collision at now (with obstacle w, if one): i put to rest, gliding, or
    // predicted anew (Engine::predict_or_rest).
    void predict_or_rest(std::uint32_t i, std::uint32_t w) const { e_.predict_or_rest(i, w); }
    // i (advanced to now) has an event: its glide, if it glided, ends here.
    void end_glide(std::uint32_t i) const { e_.end_glide(i); }
    // Under a field, i reflected from obstacle w put back on its contact when its flight
    // cannot rise out of a round-off overlap (Engine::back_to_contact).
    void back_to_contact(std::uint32_t i, std::uint32_t w) const requires M::has_field {
        e_.back_to_contact(i, w);
    }
    // Straight lines may meet again after every velocity changed at once: no pair is
    // excluded as just collided any more (take_earliest).
    void forget_last_partners() const {
        std::fill(e_.last_partner_.begin(), e_.last_partner_.end(), none);
    }
    // i's velocity was set by a group: no pair of it is excluded as just collided.
    void clear_last_partner(std::uint32_t i) const { e_.last_partner_[i] = none; }
    // i's flight has changed in kind (put to rest, or woken): a pair it has just met is
    // no longer two straight lines that cannot meet again at this instant, so the
    // just-met exclusion (take_earliest) ends for it and its partner. Seen: a disc struck
    // from above and put to rest at once (slow), still moving into the floor, was passed
    // through by the disc above it, whose contact with it at this instant the exclusion
    // skipped.
    void forget_partner(std::uint32_t i) const {
        const std::uint32_t j = e_.last_partner_[i];
        if (j != none && e_.last_partner_[j] == i) e_.last_partner_[j] = none;
        e_.last_partner_[i] = none;
    }

    // --- The rest model's glides (engine/glides.hpp) ------------------------------------
    // The part itself: the rest model starts glides and meets gliders through it.
    Glides<D, M>& glides() const { return e_.glides_; }

    // --- Collisions ---------------------------------------------------------------------
    // The binary rules on particles advanced to now, with their tallies; `at_contact`: the
    // pair's (the wall's) own predicted event, so at its contact distance.
    void apply_pair(std::uint32_t i, std::uint32_t j, bool at_contact) const {
        e_.apply_pair(i, j, at_contact);
    }
    void apply_wall(std::uint32_t i, std::uint32_t w, bool at_contact) const {
        e_.apply_wall(i, w, at_contact);
    }
    // The restitution of a collision now (TC and the rest model's plastic instants in).
    double pair_restitution(std::uint32_t i, std::uint32_t j) const {
        return e_.clocks_.pair(*this, i, j);
    }
    double wall_restitution(std::uint32_t i, std::uint32_t w) const {
        return e_.clocks_.wall(*this, i, w);
    }
    // The restitution configured for the species of i and j (no TC), and whether the
    // collisions now are plastic (a long instant with the rest model: Invariants).
    double species_restitution(std::uint32_t i, std::uint32_t j) const {
        return e_.clocks_.species(*this, i, j);
    }
    bool plastic_instant() const requires M::has_field {
        return e_.invariants_.long_instant() && e_.rest_.on();
    }
    // i collided now (its TC clock), and when it last did (kept whenever TC or the rest
    // model is configured); the event log's records of a pair and a wall.
    void collided(std::uint32_t i) const { e_.clocks_.collided(i, e_.now_); }
    double last_collision(std::uint32_t i) const { return e_.clocks_.last_collision(i); }
    void log_pair(std::uint32_t i, std::uint32_t j) const { e_.log_pair(i, j); }
    void log_wall(std::uint32_t i, std::uint32_t w) const { e_.log_wall(i, w); }

    // --- Accounts -----------------------------------------------------------------------
    // i's velocity is about to change at now, and has just changed: the flux integrals,
    // when kept (fluxes()), take its old streaming share out and the new one in.
    void flux_leave(std::uint32_t i) const {
        if (e_.accounts_.fluxes_kept())
            e_.accounts_.flux_leave(e_.now_, e_.particles_.mass(i), e_.particles_.state[i].v);
    }
    void flux_enter(std::uint32_t i) const {
        if (e_.accounts_.fluxes_kept())
            e_.accounts_.flux().add(e_.particles_.mass(i), e_.particles_.state[i].v, 1.0);
    }
    // Species s's kinetic energy changed by dk (the tally and the energy ledger).
    void kinetic_change(std::uint32_t s, double dk) const { e_.kinetic_change(s, dk); }
    // The momentum and energy flux integrals, and whether they are kept (Engine::fluxes).
    FluxTally<D>& flux() const { return e_.accounts_.flux(); }
    bool fluxes_kept() const { return e_.accounts_.fluxes_kept(); }

    // --- Invariants ---------------------------------------------------------------------
    // A collision's contact distance (audit.hpp): never overlapping beyond round-off, and
    // at contact when it is the pair's (wall's) own predicted event.
    void check_pair_contact(std::uint32_t i, std::uint32_t j, const Vec<D>& r,
                            bool at_contact) const {
        e_.invariants_.pair_contact(*this, i, j, r, at_contact);
    }
    void check_wall_contact(std::uint32_t i, std::uint32_t w, const Wall<D>& wall,
                            bool at_contact) const {
        e_.invariants_.wall_contact(*this, i, w, wall, at_contact);
    }
    // A scan across the sliding face found i and j overlapping (audit.hpp).
    [[noreturn]] void overlap_across_face(std::uint32_t i, std::uint32_t j, double r,
                                          double sigma) const {
        e_.invariants_.overlap_across_face(*this, i, j, r, sigma);
    }

  private:
    Engine& e_;
};

template <int D, Calendar Cal, Motion<D> M>
auto Engine<D, Cal, M>::kernel() -> Kernel {
    return Kernel(*this);
}

} // namespace choc
