// The event loop of exact binary EDMD (docs/ARCHITECTURE.md, "The event loop"):
//
//   pop the particle with the earliest scheduled event (time t)
//     pair, partner's counter changed  -> stale: take the runner-up if it is still valid,
//                                         else re-predict this particle's pairs; loop
//     pair                             -> advance both to t, binary rule, re-predict both
//     wall                             -> advance to t, reflect, re-predict
//     cell crossing                    -> move to the next cell (wrap on a periodic edge),
//                                         look at the newly adjacent layer only
//
// Every particle keeps its candidate events (the best pair and the runner-up, wall, cell
// crossing); the calendar holds the earliest of them. Why two pair candidates are enough:
// a pair (i, j) whose trajectories changed after i's last scan is covered by j's own scan
// when j changed. For the rest, i keeps a horizon H (the runner-up slot's time, or the
// wall's if earlier) with the invariant
//     every pair of i that no scan of i kept comes no earlier than H,
// since a scan keeps the two earliest pairs and discards only what is later than both, and
// a later scan (a cell crossing's new layer) only lowers H. The runner-up spares a scan:
// when the best turns out stale and the runner-up's partner has not moved, the runner-up
// is i's next pair event as it stands. Promoting it must not raise H: the slot keeps its
// time with no partner, so the next stale event rescans. (Emptying the slot let a later
// candidate from a crossing fill it and be promoted past a discarded earlier pair: two
// particles passed through each other, issue 10.)
//
// Prediction cost is memory latency (a cache line per neighbour), so every so often the
// particles are renumbered in cell order: the cells a scan visits then sit in a few
// contiguous runs of memory. `id` maps the engine's order back to the caller's.
#pragma once

#include "choc/errors.hpp"
#include "choc/kernel/archive.hpp"
#include "choc/kernel/audit.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/calendar.hpp"
#include "choc/kernel/cell_levels.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/collide.hpp"
#include "choc/kernel/configuration_archive.hpp"
#include "choc/kernel/contact_graph.hpp"
#include "choc/kernel/engine/accounts.hpp"
#include "choc/kernel/engine/glides.hpp"
#include "choc/kernel/engine/grids.hpp"
#include "choc/kernel/engine/invariants.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/engine/rest_model.hpp"
#include "choc/kernel/engine/schedule.hpp"
#include "choc/kernel/engine/sliding_boundaries.hpp"
#include "choc/kernel/engine/tc_clocks.hpp"
#include "choc/kernel/engine_concept.hpp"
#include "choc/kernel/engine_settings.hpp"
#include "choc/kernel/event_log.hpp"
#include "choc/kernel/flux_tally.hpp"
#include "choc/kernel/group_step.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/lees_edwards.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/overlap.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/restitution.hpp"
#include "choc/kernel/segment_time.hpp"
#include "choc/kernel/tally.hpp"
#include "choc/kernel/thermal_wall.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace choc {

// Motion: Ballistic<D> (straight lines, the fast path) or Field<D> (gravity and drag).
template <int D, Calendar Cal = DefaultCalendar, Motion<D> Motion = Ballistic<D>>
class Engine {
  public:
    using Settings = EngineSettings;
    using MotionT = Motion;
    // Every contact at its contact distance: the run checks overlaps as an invariant.
    static constexpr bool exact = true;
    // It can keep the momentum and energy flux integrals (fluxes(): in a bulk fluid).
    static constexpr bool keeps_fluxes = true;

    enum class Stop {
        time,       // reached `until`
        collisions, // reached the pair-collision limit
        budget,     // processed the event budget (call again)
        no_events,  // nothing will ever happen again (every particle at rest, say)
    };

    Engine(Box<D> box, Particles<D> particles, Settings settings, Motion motion = {});

    // Processes events in time order while the next one is no later than `until` (an
    // absolute time), stopping once the measured phase has `collision_limit` pair
    // collisions or after `budget` events (so the caller can report progress).
    // After Stop::time every particle's state is valid at `until`.
    Stop run(double until, std::uint64_t collision_limit, std::uint64_t budget);

    // Starts the measured phase: counts, virial and energy integrals from zero.
    void reset_tally();

    // The energy and momentum invariants (audit.hpp) now, against the last check; done at
    // every maintenance step, and by the caller at the end of a run. O(N).
    void check_conservation();

    // Largest relative gap (or overlap) a contact may show from round-off (audit.hpp).
    double contact_tolerance() const { return invariants_.contact_tolerance(); }

    // Absolute time: exactly the target after a stop at one, so that callers can
    // compare it with the targets they asked for.
    double time() const { return stopped_at_ ? *stopped_at_ : origin_ + now_; }
    // Length of the measured phase so far.
    double measured_time() const { return now_ - accounts_.tally().start; }
    // Absolute time -> the local clock the particles' time stamps use.
    double local(double t) const { return t - origin_; }

    const Box<D>& box() const { return box_; }
    // Particles in the engine's current order (renumbered now and then; see `id`).
    const Particles<D>& particles() const { return particles_; }
    // The caller's index of the engine's particle i.
    std::uint32_t id(std::uint32_t i) const { return id_[i]; }
    // A copy of the particles in the caller's original order, advanced along free flight
    // to absolute time `t` and stamped with it (for output; the engine's states are not
    // touched).
    Particles<D> snapshot(double t) const;
    // Engine particle i's position at absolute time `t` (the value `snapshot` gives it).
    Vec<D> position(std::uint32_t i, double t) const {
        return motion_.position(particles_.state[i], local(t));
    }
    // Calls f(id, p) for every particle: its caller's index, and its state advanced to
    // absolute time `t` and stamped with it (the element `snapshot` gives), in the
    // engine's order. An observer that needs no more reads it without a copy of them all.
    template <class F>
    void visit(double t, F&& f) const;
    // The same in the caller's order (id 0, 1, ...), for sums whose round-off that order
    // fixes; it costs 4 bytes per particle while it runs, against a snapshot's 64.
    template <class F>
    void visit_in_order(double t, F&& f) const;
    // Engine particle i's state advanced along its flight to absolute time `t` and
    // stamped with it.
    ParticleState<D> state_at(std::uint32_t i, double t) const;
    const Tally& tally() const { return accounts_.tally(); }
    // The momentum and energy fluxes integrated over the measured phase (flux_tally.hpp),
    // kept in a box periodic on every axis without walls, segments or a field; otherwise
    // none.
    const FluxTally<D>* fluxes() const { return accounts_.fluxes(); }
    // Their moments G and H now; none unless they are kept.
    std::optional<FluxMoments<D>> flux_moments() const { return accounts_.flux_moments(now_); }
    // Under sliding boundaries (box().sheared()): the xy moment of the momentum flux in the
    // frame of the shear flow, from the last reset_fluxes to now
    // (SlidingBoundaries::shear_moment). None without sliding boundaries.
    std::optional<double> shear_moment() const;
    // Under sliding boundaries: the time integral of the kinetic energy of the fluid's
    // drift from the last reset_fluxes to now (SlidingBoundaries::drift_integral). None
    // without sliding boundaries.
    std::optional<double> drift_integral() const;
    // The number of cell grids: one per level of sizes (cell_levels.hpp).
    std::size_t grids() const { return grids_.size(); }
    // The bytes of the engine's arrays that grow with N (particles, candidate events, cells,
    // calendar, indices): what the benchmarks divide by N.
    // A retired engine reports what it held while it ran.
    std::size_t memory_bytes() const;
    // The run is over: frees what only the event loop needs (the calendar, the candidate
    // events, the cells: about two thirds of the engine's memory) before the caller's
    // final outputs take theirs, so that the end of a run does not set its peak memory.
    // The particles, the clock and the tally stay: snapshot, visit, the kinetic integrals
    // and memory_bytes still answer. run() may not be called again.
    void retire();
    // Tells `log` of every collision from now on (event_log.hpp); nullptr: no one. The log
    // must outlive the runs it watches.
    void log_events_to(EventLog* log) { log_ = log; }
    // Calendar entries processed since the engine was built (every event, stale ones
    // included): what a `budget` counts, so a caller can stop on a fixed grid of counts.
    std::uint64_t processed() const { return processed_; }

    // Switches the TC model on (settings.tc, armed but not from the start): the answer to
    // an inelastic collapse that the caller detected.
    void enable_tc() { clocks_.enable(settings_.tc); }

    // The rest model (resting.hpp; settings.rest_speed): its rule, and how many particles
    // are at rest now.
    const RestRule& rest_rule() const { return rest_.rule(); }
    // A stall over the last `span` of time (the collapse watch found it, or an instant the
    // plastic collisions did not end): every particle that collided within it stops where
    // it is, its kinetic energy booked as the rest model's, and moves on from rest
    // (engine/rest_model.hpp). Without a field: nothing to do.
    void rescue_stall(double span) { rest_.rescue_stall(kernel(), span); }
    std::uint32_t at_rest() const { return rest_.at_rest(); }
    // Flights so far (under a field) too short to move their particle by round-off
    // (too_short): what the collapse watch compares with the events.
    std::uint64_t short_flights() const { return short_flights_; }

    // Species s's kinetic energy now, and its time integral over the measured phase up to
    // now (of every species: the last), from the accounts (engine/accounts.hpp).
    double kinetic_integral(std::uint32_t s) const {
        return accounts_.kinetic_integral(s, particles_, glides_, motion_, now_);
    }
    double kinetic(std::uint32_t s) const {
        return accounts_.kinetic(s, particles_, motion_, now_);
    }
    double kinetic_integral() const {
        return accounts_.kinetic_integral(particles_, glides_, motion_, now_);
    }

    // --- Checkpoints -------------------------------------------------------------------
    //
    // Everything the engine's future depends on, in the engine's own order: the box, the
    // particles, their candidate events, the cell lists (their order too: among equal
    // times a scan keeps the first it meets), the clocks, the counters, the TC clocks and
    // the invariants' ledger. Not stored: what follows from the settings and the motion
    // (the restitution table, the tolerances), which the caller gives back, and the
    // calendar, whose order is a function of its entries, (time, particle), and is
    // rebuilt from the candidates. A restored engine processes the same events in the same
    // order with the same arithmetic as the one saved: its run is the same to the bit.
    void save(ArchiveWriter& out) const;

    // The engine `save` wrote, with the settings and motion it was built with. Throws
    // ArchiveError when the state is damaged or does not fit the settings.
    static Engine restore(ArchiveReader& in, Settings settings, Motion motion = {});

  private:
    // The engine as its parts see it (engine/kernel.hpp): the state they share and the
    // operations they call back, by name. A nested class reaches the engine's members; a
    // part reaches only what the Kernel names.
    class Kernel;
    Kernel kernel();

    // What follows from the box, the particles and the settings alone: the grid, the
    // tables and the limits, with no particle in a cell and nothing scheduled yet (the
    // public constructor goes on to place and predict; `restore` reads them back).
    struct Unscheduled {};
    Engine(Box<D> box, Particles<D> particles, Settings settings, Motion motion, Unscheduled);

    // A particle's candidate events (engine/schedule.hpp), and the kind of its next one.
    using Schedule = CandidateEvents;
    using Kind = EventKind;
    static constexpr std::uint32_t none = no_partner;
    // A glider's wall candidate that is not an obstacle: its contact leaves the face it
    // glides on (glide_end_time). Glides need epsilon = 0: a group never meets one.
    static constexpr std::uint32_t glide_end = none - 1;

    static constexpr int batch = 256; // candidates gathered per pass of scan_pairs
    static constexpr int fixed_slots = Cells<D>::usual_slots; // lists copied whole

    // The calendar's next few particles' records asked for now (engine/prefetch.hpp).
    [[gnu::always_inline]] void prefetch_upcoming() const;
    [[gnu::always_inline]] void prefetch_calendar(std::uint32_t i) const;

    // The rest model's wakes that wait for the end of the instant (RestModel::end_instant).
    bool instant_open() const { return Motion::has_field && rest_.instant_open(); }
    void end_instant() {
        if (instant_open()) [[unlikely]]
            rest_.end_instant(kernel());
    }

    void process(std::uint32_t i) {
        Schedule& s = schedule_[i];
        switch (s.kind) {
        case Kind::pair:
            if (stale(i))
                renew(i);
            else if (settings_.epsilon > 0.0 && !outside_groups(i))
                group_.resolve(kernel(), i);
            else
                collide_pair(i, s.pair.partner);
            break;
        case Kind::wall:
            if (s.wall == glide_end) [[unlikely]]
                glides_.leave_glide(kernel(), i);
            else if (settings_.epsilon > 0.0)
                group_.resolve(kernel(), i);
            else
                collide_wall(i, s.wall);
            break;
        case Kind::crossing:
            cross(i);
            break;
        case Kind::nothing:
            break;
        }
    }

    // Whether i's next event (valid, a pair or a wall) is one the group step leaves to the
    // binary rules with epsilon > 0: a meeting with a particle at rest (meet_resting), or
    // a glide's end (leave_glide). A particle at rest is held by its supports: it is met
    // as a fixed sphere, or woken, by the rest model's rule, and, like a wall, joins no
    // group (GroupStep::add_touching passes it by), so it transmits nothing between the
    // particles that meet it at one instant. (Only the rest model rests and glides; the
    // code is in engine/collisions.hpp.)
    bool outside_groups(std::uint32_t i) const;

    // The restitution of a collision now, and the TC clocks: a part (engine/tc_clocks.hpp).

    // The event log's record of a pair or wall collision (by engine index), if one listens.
    void log_pair(std::uint32_t i, std::uint32_t j) {
        if (log_) [[unlikely]]
            log_->pair(origin_ + now_, id_[i], id_[j]);
    }
    void log_wall(std::uint32_t i, std::uint32_t w) {
        if (log_) [[unlikely]]
            log_->wall(origin_ + now_, id_[i], w);
    }

    bool valid(const PairCandidate& c) const {
        return particles_.state[c.partner].count == c.count;
    }
    bool stale(std::uint32_t i) const { return !valid(schedule_[i].pair); }

    // A pair candidate whose partner has moved since: the runner-up if it still holds, else
    // look again (engine/pair_prediction.hpp).
    void renew(std::uint32_t i);

    // Simultaneous collisions (epsilon > 0): GroupStep (group_step.hpp), given the Kernel.

    // --- Invariants (engine/invariants.hpp, audit.hpp): a part (invariants_) -------------

    // A scan found i overlapping a candidate (engine/pair_prediction.hpp); energy and
    // momentum now, with their round-off scales (engine/maintenance.hpp).
    template <bool Shifted>
    [[gnu::cold, gnu::noinline]] void overlap_seen(std::uint32_t i, const std::uint32_t* candidate,
                                                   const Vec<D>* shift, const std::uint8_t* from,
                                                   int k) const;
    Ledger<D> ledger() const;

    // --- Binary collisions (engine/collisions.hpp) ----------------------------------------

    // A pair's collision as an event (or its meeting with a particle at rest), and a pair
    // approaching by round-off in a long instant, left at rest instead.
    void collide_pair(std::uint32_t i, std::uint32_t j);
    bool at_rest_contact(std::uint32_t i, std::uint32_t j) const requires Motion::has_field;
    void leave_at_rest(std::uint32_t i, std::uint32_t j) requires Motion::has_field;
    // The binary rule on i and j advanced to now, with its tallies (`at_contact`: the
    // pair's own predicted event, at its contact distance).
    void apply_pair(std::uint32_t i, std::uint32_t j, bool at_contact);
    // A wall's (obstacle's) collision as an event; i put back on the contact its flight
    // cannot rise out of; the reflection from w with its tallies.
    void collide_wall(std::uint32_t i, std::uint32_t w);
    void back_to_contact(std::uint32_t i, std::uint32_t w) requires Motion::has_field;
    void apply_wall(std::uint32_t i, std::uint32_t w, bool at_contact);

    // --- The rest model and its glides (engine/rest_model.hpp, engine/glides.hpp) ------------
    //
    // Parts of their own (rest_, glides_): under gravity with settings.rest_speed > 0, a
    // particle at rest has no events of its own and is met as a fixed sphere; a slow one on
    // a floor glides along it. Without a field nothing rests or glides. Their hooks: after
    // a collision at now (with obstacle w, if one), i put to rest, gliding, or predicted
    // anew; at an event of i (advanced to now), its glide, if it glided, ends; the flight p
    // follows (a glide's, or the field's).
    void predict_or_rest(std::uint32_t i, std::uint32_t w = none) {
        rest_.predict_or_rest(kernel(), i, w);
    }
    void end_glide(std::uint32_t i) { glides_.end_glide(kernel(), i); }
    const Motion& flight_motion(const ParticleState<D>& p) const {
        return glides_.flight_motion(p, motion_);
    }

    // --- Cell events (engine/crossings.hpp) --------------------------------------------

    // i leaves its cell (of one of its grids, cross_levels), or wraps through a periodic face.
    void cross(std::uint32_t i);
    void wrap(std::uint32_t i, int axis, int dir);

    // --- Levels of cell grids (engine/grids.hpp): size-disperse particles ---------------

    std::size_t level_of(std::uint32_t i) const {
        return grids_.level(particles_.state[i].species);
    }
    // i's position now, when asked for (the stencils of coarser grids are around it).
    auto position_now(std::uint32_t i) const {
        return [this, i] { return motion_.position(particles_.state[i], now_); };
    }
    // A crossing of one of i's grids, with more than one level (engine/crossings.hpp); i's
    // pairs in every stencil a full scan looks at over the levels (Grids::for_each_stencil),
    // and in the coarser grids' than level a (engine/pair_prediction.hpp).
    void cross_levels(std::uint32_t i);
    void scan_levels(std::uint32_t i);
    void scan_coarser(std::uint32_t i, std::size_t a);

    // --- A particle's flight and its candidate events (engine/flights.hpp) -----------------

    // After a velocity change: every candidate event of i anew; its obstacles besides the
    // plane walls.
    void predict_all(std::uint32_t i);
    void predict_finite_walls(std::uint32_t i);
    // i's flight restarted now, and brought to now; a flight too short to move i.
    ParticleState<D> flight_from_now(std::uint32_t i) const;
    void advance(std::uint32_t i);
    bool too_short(const ParticleState<D>& p) const;

    // --- Accounts (engine/accounts.hpp): a part of their own (accounts_) -----------------

    // A collision's change of species s's kinetic energy; the tally and the flux integrals
    // from zero now (and the sliding boundaries' accounts with them).
    void kinetic_change(std::uint32_t s, double dk) { accounts_.kinetic_change(s, now_, dk); }
    void reset_accounts();

    // When p, in `cell` of `cells`, next leaves it, and i's next cell event over its
    // grids (engine/crossings.hpp).
    typename Cells<D>::Crossing next_crossing(const Cells<D>& cells, std::uint32_t cell,
                                              const ParticleState<D>& p) const;
    void set_next_crossing(std::uint32_t i);

    // --- Pair prediction (engine/pair_prediction.hpp) --------------------------------------

    // Every pair of i anew, and i's pairs with the particles of some cells: gathered, then
    // predicted in batches, the earliest two kept.
    void scan_all_pairs(std::uint32_t i);
    template <class S>
    void scan_pairs(std::uint32_t i, const Cells<D>& cells, const S& near);
    template <bool Shifted, class S>
    void gather(std::uint32_t i, const Cells<D>& cells, const S& near);
    template <bool Shifted>
    void predict_candidates(std::uint32_t i, const Vec<D>* shift, const std::uint32_t* candidate,
                            const std::uint8_t* from, int k);

    // i's position xi as candidate m sees it: xi - shift[from[m]], or xi when no shift.
    template <bool Shifted>
    static Vec<D> xi_seen_by(const Vec<D>& xi, const Vec<D>* shift, const std::uint8_t* from,
                             int m);

    // When a pair that met now is to be met again (never, or deeper: a contact at rest),
    // and when two flights of any kind meet.
    [[gnu::cold, gnu::noinline]] double held_contact_delay(std::uint32_t i, std::uint32_t j) const;
    template <bool Gliders>
    double meeting_time(std::uint32_t i, const ParticleState<D>& q, const ParticleState<D>& pj,
                        const Vec<D>& xj, const Vec<D>& vj, const Vec<D>& r, const Vec<D>& v,
                        double sigma2, double horizon) const;

    // The earliest time a new pair candidate of i must beat to be kept: the runner-up's,
    // or the wall event's (after which i's velocity changes anyway). Relative to now.
    double pair_horizon(const Schedule& s) const;
    // How far ahead (relative to now) a curved meeting of i is searched (a particle at rest,
    // a glider): its pair horizon or its cell crossing, whichever is first.
    double meeting_window(std::uint32_t i) const;

    // Merges pair times into i's best and runner-up, and the two ways of computing them:
    // batched for straight flights, one by one for curved ones (and gliders, at rest).
    void take_earliest(std::uint32_t i, const std::uint32_t* candidate, const double* dt, int k);
    template <bool Shifted>
    void pair_times_batched(std::uint32_t i, const Vec<D>* shift, const std::uint32_t* candidate,
                            const std::uint8_t* from, int k);
    template <bool Shifted, bool Gliders = false>
    void pair_times_one_by_one(std::uint32_t i, const Vec<D>* shift, const std::uint32_t* candidate,
                               const std::uint8_t* from, int k);

    // i's calendar entry: the earliest of its candidate events.
    void reschedule(std::uint32_t i);

    // --- Maintenance (engine/maintenance.hpp) ----------------------------------------------

    // Every maintain_every_ events: the invariants, then rebase() (the clock's origin to
    // now) and renumber() (the particles in cell order).
    void maintain();
    void renumber();
    void rebase();

    // --- The checkpoint (engine/engine_state.hpp) ------------------------------------------

    // A mark between the sections of a saved state ("CHOE", then one more per section).
    static constexpr std::uint32_t archive_tag = 0x454f4843;

    // The engine's one field list (archive.hpp): save() writes it, restore() reads it.
    template <class Archive>
    void fields(Archive& ar);
    // The sizes the settings gave the arrays a state may leave empty, taken before
    // `fields` reads a state over them.
    struct Shape {
        std::size_t tc_clocks, glides, obstacles;
    };
    Shape shape() const;
    // What `fields` read, checked; then the calendar is rebuilt from the candidates.
    void check_restored(const Shape& shape);

    Box<D> box_;
    Particles<D> particles_;
    Settings settings_;
    Motion motion_;
    Glides<D, Motion> glides_; // the rest model's glides (engine/glides.hpp)
    Grids<D> grids_;           // the cell grids, one per level of sizes (engine/grids.hpp)
    Obstacles<D> obstacles_;   // segments and triangles (engine/obstacles.hpp)
    Cal calendar_;
    FastVector<Schedule> schedule_;
    std::vector<std::uint32_t> last_partner_; // cold: read only for a zero-time pair
    std::vector<std::uint32_t> id_;           // caller's index of each particle
    TcClocks<D, Motion> clocks_;              // restitution and TC clocks (engine/tc_clocks.hpp)
    // The runtime invariants: their tolerances, the instant (engine/invariants.hpp).
    Invariants<D, Motion> invariants_;
    Accounts<D, Motion> accounts_;     // tallies, fluxes, ledger (engine/accounts.hpp)
    ThermalEmission<D> emission_;      // the thermal walls' draws
    EventLog* log_ = nullptr;          // log_events_to
    bool retired_ = false;             // retire(): the event loop's arrays are gone
    std::size_t retired_bytes_ = 0;    // memory_bytes() just before
    GroupStep<D> group_;               // the simultaneous step, kept to reuse its memory
    double now_ = 0.0;                 // local clock
    std::optional<double> stopped_at_; // the target of the last run() that stopped at one
    double origin_ = 0.0;              // absolute time of local zero
    std::uint64_t since_maintenance_ = 0, maintain_every_ = 0;
    std::uint64_t processed_ = 0;     // calendar entries processed (processed())
    SlidingBoundaries<D> sliding_;    // (box_.shear_rate; engine/sliding_boundaries.hpp)
    RestModel<D, Motion> rest_;       // (settings.rest_speed; engine/rest_model.hpp)
    std::uint64_t short_flights_ = 0; // (short_flights)
};

// --- The entry points, defined outside the class ----------------------------------------
//
// Not inline, so that a program using one of the engines compiled in the library (below)
// does not compile the event loop again: everything else is reached only through these.
// The event loop is here; the others are with their parts: the constructors, retire() and
// reset_tally() in engine/set_up.hpp, check_conservation() in engine/maintenance.hpp, save()
// and restore() in engine/engine_state.hpp.

template <int D, Calendar Cal, Motion<D> Motion>
auto Engine<D, Cal, Motion>::run(double until, std::uint64_t collision_limit, std::uint64_t budget)
    -> Stop {
    if (retired_) throw std::logic_error("Engine::run after retire()");
    stopped_at_.reset();
    // (a spent budget waits for the instant's end: a stop between calls changes nothing)
    for (std::uint64_t k = 0; k < budget || instant_open(); ++k) {
        const double local_until = until - origin_; // the origin moves at maintenance
        if (accounts_.tally().collisions >= collision_limit) {
            end_instant();
            return Stop::collisions;
        }
        double t = calendar_.top_time();
        if (t > now_ && instant_open()) [[unlikely]] {
            end_instant(); // (those it wakes may meet something now)
            t = calendar_.top_time();
        }
        if (sliding_.on()) [[unlikely]] {
            // the sliding images pass a column width first: widen the windows
            const double tick = sliding_.next_tick();
            if (tick <= t && tick <= local_until) {
                now_ = std::max(now_, tick);
                sliding_.tick(kernel());
                continue;
            }
            if (sliding_.thermostat_due(accounts_.tally().collisions, particles_.size())) {
                sliding_.thermostat(kernel());
                continue;
            }
        }
        if (t > local_until || t == never) {
            if (local_until == never) return Stop::no_events;
            now_ = local_until;
            stopped_at_ = until; // origin_ + now_ may differ from it in the last bit
            return Stop::time;
        }
        invariants_.next_event(kernel(), t); // not before now; a clock that moves on
        if constexpr (Motion::has_field) {
            if (invariants_.rescue_due() && rest_.on()) [[unlikely]] {
                rescue_stall(0.0); // the plastic collisions of the instant did not end it
                continue;          // (the calendar's top has changed)
            }
        }
        now_ = t;
        prefetch_upcoming();
        ++processed_;
        process(calendar_.top());
        if (++since_maintenance_ >= maintain_every_) maintain();
    }
    return Stop::budget;
}

} // namespace choc

#include "choc/kernel/engine/collisions.hpp"
#include "choc/kernel/engine/crossings.hpp"
#include "choc/kernel/engine/engine_state.hpp"
#include "choc/kernel/engine/flights.hpp"
#include "choc/kernel/engine/kernel.hpp"
#include "choc/kernel/engine/maintenance.hpp"
#include "choc/kernel/engine/pair_prediction.hpp"
#include "choc/kernel/engine/prefetch.hpp"
#include "choc/kernel/engine/set_up.hpp"
#include "choc/kernel/engine/views.hpp"

namespace choc {

// The engines `choc run` uses (simulation.cpp: 2D or 3D, straight flights or a field, the
// default calendar, no event log) are compiled once, in the library
// (lib/choc/kernel/engine_*.cpp), and linked wherever they are used. An engine with another
// calendar or an event log (tests, benchmarks) is compiled where it is used.
static_assert(RunEngine<Engine<3>>); // what the run asks of an engine (engine_concept.hpp)
extern template class Engine<2>;
extern template class Engine<3>;
extern template class Engine<2, DefaultCalendar, Field<2>>;
extern template class Engine<3, DefaultCalendar, Field<3>>;

} // namespace choc
