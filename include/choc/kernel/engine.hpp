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
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/engine/sliding_boundaries.hpp"
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
#include "choc/kernel/rest_cycle.hpp"
#include "choc/kernel/rest_group.hpp"
#include "choc/kernel/resting.hpp"
#include "choc/kernel/restitution.hpp"
#include "choc/kernel/segment_time.hpp"
#include "choc/kernel/tally.hpp"
#include "choc/kernel/thermal_wall.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/triangle_cells.hpp"
#include "choc/kernel/triangle_time.hpp"

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
    double contact_tolerance() const { return contact_tolerance_; }

    // Absolute time: exactly the target after a stop at one, so that callers can
    // compare it with the targets they asked for.
    double time() const { return stopped_at_ ? *stopped_at_ : origin_ + now_; }
    // Length of the measured phase so far.
    double measured_time() const { return now_ - tally_.start; }
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
    Particles<D> snapshot(double t) const {
        Particles<D> out;
        out.table = particles_.table;
        out.state.resize(particles_.size());
        visit(t, [&](std::uint32_t id, const ParticleState<D>& p) { out.state[id] = p; });
        return out;
    }
    // Engine particle i's position at absolute time `t` (the value `snapshot` gives it).
    Vec<D> position(std::uint32_t i, double t) const {
        return motion_.position(particles_.state[i], local(t));
    }
    // Calls f(id, p) for every particle: its caller's index, and its state advanced to
    // absolute time `t` and stamped with it (the element `snapshot` gives), in the
    // engine's order. An observer that needs no more reads it without a copy of them all.
    template <class F>
    void visit(double t, F&& f) const {
        for (std::uint32_t i = 0; i < particles_.size(); ++i) f(id_[i], state_at(i, t));
    }
    // The same in the caller's order (id 0, 1, ...), for sums whose round-off that order
    // fixes; it costs 4 bytes per particle while it runs, against a snapshot's 64.
    template <class F>
    void visit_in_order(double t, F&& f) const {
        std::vector<std::uint32_t> where(particles_.size());
        for (std::uint32_t i = 0; i < particles_.size(); ++i) where[id_[i]] = i;
        for (std::uint32_t k = 0; k < where.size(); ++k) f(k, state_at(where[k], t));
    }
    // Engine particle i's state advanced along its flight to absolute time `t` and
    // stamped with it.
    ParticleState<D> state_at(std::uint32_t i, double t) const {
        ParticleState<D> p = particles_.state[i];
        p.x = motion_.position(p, local(t));
        p.v = motion_.velocity(p, local(t));
        p.t = t;
        return p;
    }
    const Tally& tally() const { return tally_; }
    // The momentum and energy fluxes integrated over the measured phase (flux_tally.hpp),
    // kept in a box periodic on every axis without walls, segments or a field; otherwise
    // none.
    const FluxTally<D>* fluxes() const { return fluxes_ ? &flux_ : nullptr; }
    // Their moments G and H now; none unless they are kept.
    std::optional<FluxMoments<D>> flux_moments() const {
        if (!fluxes_) return std::nullopt;
        return flux_.moments(now_);
    }
    // Under sliding boundaries (box().sheared()): the xy moment of the momentum flux in the
    // frame of the shear flow, from the last reset_fluxes to now
    // (SlidingBoundaries::shear_moment). None without sliding boundaries.
    std::optional<double> shear_moment() const {
        if (!sliding_.on() || !fluxes_) return std::nullopt;
        constexpr int xy = D; // FluxTally's xy component (after the D diagonal ones)
        return sliding_.shear_moment(flux_.moments(now_).momentum[xy], particles_, now_);
    }
    // Under sliding boundaries: the time integral of the kinetic energy of the fluid's
    // drift from the last reset_fluxes to now (SlidingBoundaries::drift_integral). None
    // without sliding boundaries.
    std::optional<double> drift_integral() const {
        if (!sliding_.on()) return std::nullopt;
        return sliding_.drift_integral(now_);
    }
    // The number of cell grids: one per level of sizes (cell_levels.hpp).
    std::size_t grids() const { return levels_.size(); }
    // The bytes of the engine's arrays that grow with N (particles, candidate events, cells,
    // calendar, indices): what the benchmarks divide by N.
    // A retired engine reports what it held while it ran.
    std::size_t memory_bytes() const {
        if (retired_) return retired_bytes_;
        std::size_t b = held_bytes(particles_.state) + held_bytes(schedule_) + cells_.bytes() +
                        held_bytes(last_partner_) + held_bytes(id_) + held_bytes(last_collision_) +
                        held_bytes(glide_on_);
        if constexpr (requires(const Cal& c) { c.bytes(); }) b += calendar_.bytes();
        for (const auto& g : upper_) b += g.bytes();
        return b;
    }
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
    void enable_tc() { tc_ = settings_.tc; }

    // The rest model (resting.hpp; settings.rest_speed): its rule, and how many particles
    // are at rest now.
    const RestRule& rest_rule() const { return rest_; }
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
    void rescue_stall(double span) {
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
    std::uint32_t at_rest() const { return at_rest_; }
    // Flights so far (under a field) too short to move their particle by round-off
    // (too_short): what the collapse watch compares with the events.
    std::uint64_t short_flights() const { return short_flights_; }

    // Time integral of species s's kinetic energy over the measured phase, up to now.
    // Without a field the tally keeps it in O(1); with one, the flights not yet ended are
    // added up here, O(N).
    double kinetic_integral(std::uint32_t s) const {
        if constexpr (!Motion::has_field) {
            return tally_.kinetic_integral(s, now_);
        } else {
            double k = tally_.kinetic_time[s];
            for (std::uint32_t i = 0; i < particles_.size(); ++i)
                if (particles_.state[i].species == s) k += open_flight_kinetic(i);
            return k;
        }
    }
    // Kinetic energy of species s now.
    double kinetic(std::uint32_t s) const {
        if constexpr (!Motion::has_field) {
            return tally_.kinetic[s];
        } else {
            double k = 0.0;
            for (std::uint32_t i = 0; i < particles_.size(); ++i)
                if (particles_.state[i].species == s)
                    k += kinetic_energy(particles_.mass(i),
                                        motion_.velocity(particles_.state[i], now_));
            return k;
        }
    }
    double kinetic_integral() const {
        double k = 0.0;
        for (std::uint32_t s = 0; s < particles_.table.size(); ++s) k += kinetic_integral(s);
        return k;
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

    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    // A glider's wall candidate that is not an obstacle: its contact leaves the face it
    // glides on (glide_end_time). Glides need epsilon = 0: a group never meets one.
    static constexpr std::uint32_t glide_end = none - 1;
    enum class Kind : std::uint8_t { pair, wall, crossing, nothing };

    // A predicted pair collision of a particle with `partner`.
    struct PairCandidate {
        double time = never;
        std::uint32_t partner = none; // none: no candidate (see Schedule::runner_up)
        std::uint32_t count = 0;      // partner's counter when predicted: stale if changed
    };
    // A particle's candidate events; the calendar holds the earliest.
    struct Schedule {
        PairCandidate pair; // the earliest pair candidate
        // The next one (another partner). Its time is also the horizon of i's last scans:
        // every pair they discarded comes no earlier. Once the runner-up has been promoted
        // to `pair`, the slot keeps that time with partner `none`, since the pairs
        // discarded behind it are still out there.
        PairCandidate runner_up;
        double wall_time = never;
        double crossing_time = never;
        // (after the doubles: between them, padding made the record 64 bytes, not 56)
        std::uint32_t wall = 0;
        std::int8_t axis = 0, dir = 0;
        Kind kind = Kind::nothing;
        std::uint8_t grid = 0; // the level whose grid the crossing is in (cell_levels.hpp)
    };
    static_assert(sizeof(Schedule) == 56, "a particle's candidate events: 56 bytes");

    using Stencil = typename Cells<D>::Stencil;
    static constexpr int batch = 256; // candidates gathered per pass of scan_pairs
    static constexpr int fixed_slots = Cells<D>::usual_slots; // lists copied whole

    // The event after this one is almost always one the calendar already has next in
    // line (the top's successors; the top itself is about to move later): ask for their
    // records now, so that they are in cache when their turn comes.
    // Always inlined: GCC finds a function of nothing but prefetches free of side effects
    // and deletes the call to it.
    [[gnu::always_inline]] void prefetch_upcoming() const {
        if constexpr (requires(const Cal& c, std::uint32_t* out) { c.upcoming(out); }) {
            std::array<std::uint32_t, 4> next;
            const std::size_t n = calendar_.upcoming(next.data());
            for (std::size_t k = 0; k < n; ++k) {
                __builtin_prefetch(&schedule_[next[k]]);
                __builtin_prefetch(&particles_.state[next[k]]);
                cells_.prefetch_place(next[k]);
                prefetch_calendar(next[k]);
            }
        }
    }

    [[gnu::always_inline]] void prefetch_calendar(std::uint32_t i) const {
        if constexpr (requires(const Cal& c) { c.prefetch(i); }) calendar_.prefetch(i);
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
                leave_glide(i);
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
    // particles that meet it at one instant. (Only the rest model rests and glides.)
    bool outside_groups(std::uint32_t i) const {
        if constexpr (Motion::has_field) {
            const Schedule& s = schedule_[i];
            if (s.kind == Kind::pair) return particles_.state[s.pair.partner].resting();
            if (s.kind == Kind::wall) return s.wall == glide_end;
        }
        return false;
    }

    // Restitution of a collision now: the pair's (or the wall's), or 1 under the TC model
    // when either particle collided less than tc ago.
    // With the rest model, an instant of more than long_instant_ events makes its
    // collisions plastic (e = 0, TC or not). Seen: two discs in a row between a wall and a
    // disc held at rest, with no gap between them, passing their speed of 0.12 to and fro
    // at one instant for ever, elastic under TC (the 60-disc box, e = 0.3, seed 7, TC:
    // exit 3). Plastic collisions there halve the speeds at each round, to zero in a few
    // thousand events; a jam that has no room cannot keep its energy, and the loss is
    // booked as the collisions' (docs/PHYSICS.md, "Particles at rest").
    double pair_restitution(std::uint32_t i, std::uint32_t j) const {
        if constexpr (Motion::has_field)
            if (plastic_instant()) [[unlikely]]
                return 0.0;
        if (tc_ > 0.0 && (recent(i) || recent(j))) return 1.0;
        return species_restitution(i, j);
    }
    // The restitution configured for the species of i and j (collisions.pair or the default).
    double species_restitution(std::uint32_t i, std::uint32_t j) const {
        return restitution_(particles_.state[i].species, particles_.state[j].species);
    }
    double wall_restitution(std::uint32_t i, std::uint32_t w) const {
        if constexpr (Motion::has_field)
            if (plastic_instant()) [[unlikely]]
                return 0.0;
        if (tc_ > 0.0 && recent(i)) return 1.0;
        return obstacle_restitution(box_, w); // w: an obstacle number (obstacle.hpp)
    }
    bool recent(std::uint32_t i) const { return within_tc(tc_, now_, last_collision_[i]); }
    // Whether collisions now are plastic: an instant of more than long_instant_ events.
    bool plastic_instant() const requires Motion::has_field {
        return events_at_now_ > long_instant_ && rest_.on();
    }
    // The TC clock: kept whenever TC is configured, so it is right when TC switches on.
    void collided(std::uint32_t i) {
        if (!last_collision_.empty()) last_collision_[i] = now_;
    }
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

    // A pair candidate whose partner has moved since: the runner-up if it still holds
    // (see the top of this file), else look again.
    void renew(std::uint32_t i) {
        ++tally_.stale;
        Schedule& s = schedule_[i];
        if (s.runner_up.partner != none && valid(s.runner_up)) {
            s.pair = s.runner_up;
            s.runner_up.partner = none; // keeps its time: the horizon of the last scan
        } else {
            ++tally_.rescans;
            s.pair = {}, s.runner_up = {};
            scan_all_pairs(i);
        }
        reschedule(i);
    }

    // Simultaneous collisions (epsilon > 0): GroupStep (group_step.hpp), given the Kernel.

    // --- Invariants (audit.hpp) ------------------------------------------------------------

    // Pair i, j (advanced to now, r = x_i - x_j) at a collision: never overlapping beyond
    // round-off, and, when it is the pair's own predicted event, not apart either.
    void check_pair_contact(std::uint32_t i, std::uint32_t j, const Vec<D>& r, bool at_contact) {
        const double sigma =
            particles_.table.pair_sigma(particles_.state[i].species, particles_.state[j].species);
        const double gap = (norm(r) - sigma) / sigma;
        tally_.overlap(-gap);
        if (gap < -contact_tolerance_ || (at_contact && gap > contact_tolerance_))
            invariant_violated(
                "contact distance", origin_ + now_,
                fmt::format("particles {} and {} collide at distance {:.17g}, contact distance "
                            "{:.17g} (relative gap {:.3g}, tolerance {:.3g})",
                            id_[i], id_[j], norm(r), sigma, gap, contact_tolerance_));
    }
    void check_wall_contact(std::uint32_t i, std::uint32_t w, const Wall<D>& wall,
                            bool at_contact) {
        const double a = particles_.radius(i);
        const double gap = (wall.distance(particles_.state[i].x) - a) / a;
        tally_.overlap(-gap);
        if (gap < -contact_tolerance_ || (at_contact && gap > contact_tolerance_))
            invariant_violated("contact distance", origin_ + now_,
                               fmt::format("particle {} meets wall {} at centre distance {:.17g}, "
                                           "radius {:.17g} (relative gap {:.3g}, tolerance {:.3g})",
                                           id_[i], w, wall.distance(particles_.state[i].x), a, gap,
                                           contact_tolerance_));
    }

    [[gnu::cold, gnu::noinline]] void clock_stuck() const {
        if constexpr (Motion::has_field) {
            if (rest_.on()) stall_not_ended(); // (rescued at 2 long_instant_ events already)
            slide_without_rest_model();
        }
        const std::uint32_t i = calendar_.top();
        invariant_violated(
            "progress", origin_ + now_,
            fmt::format("{} events in a row at this instant (the last of particle "
                        "{}, {} simultaneous groups so far): the clock cannot move on",
                        events_at_now_, id_[i], tally_.groups));
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
    void slide_without_rest_model() const requires Motion::has_field {
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
    [[gnu::cold, gnu::noinline]] void stall_not_ended() const {
        throw InelasticCollapse(fmt::format(
            "collisions.rest_speed: inelastic collapse at t = {}: {} events at one instant, "
            "after the rest model stopped the particles stalled there (particle {} the last): "
            "the stall goes on.{}",
            origin_ + now_, events_at_now_, id_[calendar_.top()],
            settings_.tc > 0.0 ? "" : " Set collisions.tc > 0 (the TC model) as well."));
    }

    [[gnu::cold, gnu::noinline]] void event_out_of_order(double t) const {
        const std::uint32_t i = calendar_.top();
        invariant_violated("event order", origin_ + now_,
                           fmt::format("the next event (particle {}, at t = {:.17g}) is earlier "
                                       "than the clock",
                                       id_[i], origin_ + t));
    }

    // A scan found i overlapping candidate j beyond the tolerance (c = r.r - sigma^2 < 0).
    template <bool Shifted>
    [[gnu::cold, gnu::noinline]] void overlap_seen(std::uint32_t i, const std::uint32_t* candidate,
                                                   const Vec<D>* shift, const std::uint8_t* from,
                                                   int k) const {
        const Vec<D> xi = motion_.position(particles_.state[i], now_);
        for (int m = 0; m < k; ++m) {
            const std::uint32_t j = candidate[m];
            if (j == i || group_.overlap_expected(i, j)) continue; // (group_step.hpp)
            const auto& pj = particles_.state[j];
            const double r =
                norm(xi_seen_by<Shifted>(xi, shift, from, m) - motion_.position(pj, now_));
            const double sigma =
                particles_.table.pair_sigma(particles_.state[i].species, pj.species);
            if ((sigma - r) / sigma > contact_tolerance_)
                invariant_violated("overlap", origin_ + now_,
                                   fmt::format("particles {} and {} overlap: distance {:.17g}, "
                                               "contact distance {:.17g}",
                                               id_[i], id_[j], r, sigma));
        }
    }

    [[noreturn, gnu::cold, gnu::noinline]] void
    overlap_across_face(std::uint32_t i, std::uint32_t j, double r, double sigma) const {
        invariant_violated("overlap", origin_ + now_,
                           fmt::format("particles {} and {} overlap across the sliding face: "
                                       "distance {:.17g}, contact distance {:.17g}",
                                       id_[i], id_[j], r, sigma));
    }

    // Energy (kinetic + potential in the field) and momentum now, with their round-off
    // scales; the tally's collision energy and the work of drag so far.
    Ledger<D> ledger() const {
        Ledger<D> l = measure_ledger(particles_, motion_, now_, wrapped_potential_,
                                     [this] { return kinetic_integral(); });
        l.collision_energy = collision_energy_since_check_;
        return l;
    }

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

    void collide_pair(std::uint32_t i, std::uint32_t j) {
        if constexpr (Motion::has_field)
            if (particles_.state[j].resting()) [[unlikely]]
                return meet_resting(i, j);
        // j's schedule and both cell entries are read only after i's scan: ask now
        __builtin_prefetch(&schedule_[j]);
        cells_.prefetch_place(i);
        cells_.prefetch_place(j);
        prefetch_calendar(j);
        advance(i);
        advance(j);
        if constexpr (Motion::has_field)
            if (events_at_now_ > long_instant_ && at_rest_contact(i, j)) [[unlikely]]
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
    // round-off; one that does not is rescued at 2 long_instant_ events (rescue_stall).
    bool at_rest_contact(std::uint32_t i, std::uint32_t j) const requires Motion::has_field {
        const auto& pi = particles_.state[i];
        const auto& pj = particles_.state[j];
        // (a glide ending, or a sliding image, changes the flights: a collision as usual)
        if (pi.gliding() || pj.gliding() || sliding_.on()) return false;
        const Vec<D> r = box_.minimum_image(pi.x - pj.x);
        const double u = dot(pi.v - pj.v, r) / norm(r); // < 0: approaching
        constexpr double eps = std::numeric_limits<double>::epsilon();
        return u >= -approach_round_off_ulps * eps * std::max(norm(pi.v), norm(pj.v));
    }
    void leave_at_rest(std::uint32_t i, std::uint32_t j) requires Motion::has_field {
        const auto& pi = particles_.state[i];
        const auto& pj = particles_.state[j];
        group_.resting().record(now_, id_[i], id_[j], pi.count, pj.count);
        predict_all(i);
        predict_all(j);
    }

    // The binary rule on i and j, both advanced to now, and its tally. `at_contact`: the
    // pair's own predicted collision, so it must be at its contact distance.
    void apply_pair(std::uint32_t i, std::uint32_t j, bool at_contact) {
        auto& pi = particles_.state[i];
        auto& pj = particles_.state[j];
        int image = 0; // across the sliding face: j's image moves at its sliding velocity
        const Vec<D> r = sliding_.on() ? sliding_.geometry().minimum_image(pi.x - pj.x, now_, image)
                                       : box_.minimum_image(pi.x - pj.x);
        check_pair_contact(i, j, r, at_contact);

        const double mi = particles_.mass(i), mj = particles_.mass(j);
        const double ki = kinetic_energy(mi, pi.v), kj = kinetic_energy(mj, pj.v);
        const Vec<D> vi = pi.v, vj = pj.v;
        if (image != 0) [[unlikely]]
            pj.v += sliding_.geometry().image_velocity(image);
        const auto impulse = binary_collision(r, pi.v, pj.v, mi, mj, pair_restitution(i, j));
        if (image != 0) [[unlikely]]
            pj.v -= sliding_.geometry().image_velocity(image);
        if (fluxes_) flux_.collision(now_, r, impulse.dp, mi, vi, pi.v, mj, vj, pj.v);
        collided(i);
        collided(j);
        kinetic_change(pi.species, kinetic_energy(mi, pi.v) - ki);
        kinetic_change(pj.species, kinetic_energy(mj, pj.v) - kj);
        tally_.virial += impulse.virial;
        tally_.pair_collision(pi.species, pj.species);
        log_pair(i, j);
        last_partner_[i] = j;
        last_partner_[j] = i;
    }

    void collide_wall(std::uint32_t i, std::uint32_t w) {
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
    void back_to_contact(std::uint32_t i, std::uint32_t w) requires Motion::has_field {
        auto& p = particles_.state[i];
        const Wall<D> plane = obstacle_plane(box_, w, p.x);
        const double gap = plane.distance(p.x) - particles_.radius(i);
        if (!(gap < 0.0)) return;
        const double u = dot(p.v, plane.normal), acc = motion_.along(plane.normal);
        if (u > 0.0 && acc < 0.0 && motion_.fall_after_turn(gap, u, acc) == never)
            p.x += plane.normal * -gap;
    }

    // Reflection of i, advanced to now, from wall w, and its tally.
    void apply_wall(std::uint32_t i, std::uint32_t w, bool at_contact) {
        auto& p = particles_.state[i];
        Wall<D> wall = obstacle_plane(box_, w, p.x);
        check_wall_contact(i, w, wall, at_contact);
        const double m = particles_.mass(i);
        const double k = kinetic_energy(m, p.v);
        const Vec<D> v = p.v;
        wall.restitution = wall_restitution(i, w);
        if (fluxes_) flux_leave(i);
        if (wall.thermal()) [[unlikely]] {
            // re-emitted, as reflection is, only when moving into the wall (collide.hpp)
            if (dot(p.v, wall.normal) < 0.0) p.v = emission_.emit(wall, m);
        } else {
            wall_collision(wall, p.v, m);
        }
        if (fluxes_) flux_.add(m, p.v, 1.0); // an external force: no contact term
        collided(i);
        const double dk = kinetic_energy(m, p.v) - k;
        kinetic_change(p.species, dk);
        if (w < tally_.wall_heat.size()) {
            tally_.wall_heat[w] += dk;
            for (int a = 0; a < D; ++a) tally_.wall_momentum[3 * w + a] += m * (p.v[a] - v[a]);
        }
        ++tally_.wall_collisions;
        log_wall(i, w);
        last_partner_[i] = none;
    }

    // --- The rest model (resting.hpp; settings.rest_speed > 0, under gravity) --------------
    //
    // A particle at rest has the stamp rest_stamp (particles.hpp), velocity zero, no
    // candidate events and no calendar entry; Field's position and velocity know it. Its
    // pairs are on the moving particles' schedules: an awake particle meets it as a fixed
    // sphere of radius sigma round its centre, on a curved flight, by the certified steps
    // of a segment's end (end_time, convex_time.hpp) searched no further than the pair
    // horizon or the cell crossing, whichever is first; at a crossing the particle looks
    // again at every particle at rest around it (rescan_resting). The covering argument
    // at the top of this file then holds as before: a pair whose trajectories changed is
    // predicted by the one that changed, or, when it is the one put to rest, by every
    // awake particle around it (put_to_rest).

    // After a collision at now (with wall w, if one): i is put to rest if slow and held, or
    // glides along w if w is a floor it left slowly, else is predicted anew.
    void predict_or_rest(std::uint32_t i, std::uint32_t w = none) {
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
                if (rest_.slow(particles_.state[i].v) && trapped(i)) [[unlikely]] {
                    free_from_contacts(i);
                    if (trapped(i)) {
                        ++tally_.leans;
                        return put_to_rest(i);
                    }
                }
            }
        }
        predict_all(i);
    }

    // Gliding. A particle that leaves a support slower than rest speed but moves along it
    // faster would bounce on it for ever in ever smaller hops (an inelastic collapse; with
    // TC, elastic micro-bounces too short for the clock), while a smooth particle slides.
    // It glides instead: its speed across the support (at most the rest speed) is taken and
    // booked as the rest model's loss, and it moves along the support, pulled by the
    // field's part along it, a = g − (g.n) n (the support takes the rest), with drag if
    // there is drag: on a floor square to the field a = 0, down a slope a = |g| sin θ along
    // it. Its next event of any kind ends the glide (end_glide): it is predicted again as
    // every particle is, and at the support it glides again. So does its contact leaving
    // the face it glides on (an end of a segment, an edge of a triangle: leave_glide). A
    // support here is the face of a plane wall, a segment or a triangle that reflects
    // (a thermal wall re-emits) with the field pressing onto it.
    //
    // Without the rest model nothing glides: bounces below round-off there end as they did
    // (tried, Session 30: glides of bounces below round-off on slopes, without the rest
    // model, left a disc bouncing on a glider at one instant for ever, elastic under TC:
    // the loaded glider the rest model puts to rest; scan cases 12532767243672626640,
    // 9564059025244880716). Before glides followed slopes, spheres woken from rest on a
    // tilted plane with v = 0, under the rest model, met it at one instant for ever
    // (invariant `progress`, scan cases 14466090374848110308 and 11682011839193705786).
    //
    // Returns the glide's slot (glides_) if i, just reflected by obstacle w at now, glides
    // on it, else 0.
    std::uint32_t glide_slot_on(std::uint32_t i, std::uint32_t w) {
        if constexpr (Motion::has_field) {
            if (!rest_.on()) return 0;
            const std::uint32_t slot = glide_slot(w);
            if (slot == 0) return 0;
            const auto& p = particles_.state[i];
            const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
            if (o.triangle && !box_.triangles[o.index].over_face(p.x)) return 0; // a rim
            const Wall<D> plane = obstacle_plane(box_, w, p.x);
            const double pull = motion_.along(plane.normal), u = dot(p.v, plane.normal);
            if (!(pull < 0.0)) return 0; // the field does not press it on
            if (std::abs(u) < rest_.speed) return slot;
        }
        return 0;
    }
    // The face that holds i where obstacle w met it: w, or, where w is a triangle met at a
    // rim that lies in the plane of a face i's centre is over and touches (a coplanar
    // neighbour of a mesh, sharing that edge), that face. A sphere lying on the plane at
    // their shared edge touches both: the neighbour's edge is in the plane, at distance a
    // from the centre to round-off, and with the field pressing the sphere onto the plane
    // the edge's search (convex_time.hpp) meets it at once, its F'' = 2 (r.g + |v_t|²) < 0:
    // one constraint, the plane's (GroupStep::on_surface_met keeps it once). Met as a rim,
    // it glided on nothing (glide_slot_on refuses rims), was reflected by round-off and
    // met again an ulp of the clock later, for ever, its flights too short to move it, so
    // that a neighbour ran into it. Seen (scan case 13963152623220796937, a ramp of two
    // coplanar triangles): sphere 286 left by a glide's end 16 ulps over triangle 0
    // (leave_glide's clearance), put to rest there, woken at t = 2.2716 by sphere 647 and
    // sliding off at 1.05, 0.09 across the shared edge away from it: triangle 1's rim met
    // it 4.9 million times while the clock crept by ulps, and 647 came 1e-9 into it. As
    // the face's own contact it glides, and the glide passes by the triangles in its
    // plane (predict_triangles). The face is the plane's to round-off: parallel to w
    // (same_plane_tolerance) and touching within the contact tolerance.
    std::uint32_t face_beside_rim(std::uint32_t i, std::uint32_t w) requires Motion::has_field {
        const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
        if (!o.triangle) return w;
        const Vec<D>& x = particles_.state[i].x;
        const Triangle<D>& rim = box_.triangles[o.index];
        if (rim.over_face(x)) return w;
        const double a = particles_.radius(i);
        std::uint32_t face = w;
        for_each_face_near(i, [&](std::uint32_t k, const Vec<D>&) {
            const Obstacle f = Obstacle::decode(k, box_.walls.size(), box_.segments.size());
            if (face != w || !f.triangle) return;
            const Triangle<D>& tri = box_.triangles[f.index];
            if (std::abs(dot(tri.normal, rim.normal)) > 1.0 - same_plane_tolerance &&
                std::abs(std::abs(tri.height(x)) - a) <= contact_tolerance_ * a)
                face = k;
        });
        return face;
    }
    void start_glide(std::uint32_t i, std::uint32_t w,
                     std::uint32_t slot) requires Motion::has_field {
        auto& p = particles_.state[i];
        const Vec<D> n = obstacle_plane(box_, w, p.x).normal;
        const double k = kinetic_energy(particles_.mass(i), p.v);
        p.v = along_face(p.v, n); // the velocity across the support taken
        const Crease crease = crease_of(i, w, n, slot);
        if (crease.w != none) [[unlikely]]
            p.v = crease.v, slot = crease.slot;
        const double lost = k - kinetic_energy(particles_.mass(i), p.v);
        kinetic_change(p.species, -lost);
        tally_.rest_energy += lost;
        if (crease.w != none && D == 2) [[unlikely]] { // a corner: nowhere to glide (v = 0)
            ++tally_.leans;
            return put_to_rest(i);
        }
        if (rest_.on() && loaded(i, motion_.glide_acceleration(slot))) [[unlikely]] {
            ++tally_.leans;
            return put_to_rest(i);
        }
        ++tally_.glides;
        ++gliding_;
        p.set_glide(slot);
        glide_on_[i] = {w, crease.w};
        p.bump();
        predict_all(i);
    }

    // A crease: a glide on one face pressed onto a second face it touches, slower across it
    // than rest speed. Gliding on the first alone it would hop onto the second at once, and
    // gliding on that one be pressed back onto the first, for ever at one instant (seen: a
    // sphere sliding at 0.34 along the edge of two box walls under a tilted field, scan
    // case 18193087561354815542, t = 3.787; a sphere in a valley of a mesh alike). Both
    // faces press while the forces f1, f2 that keep it on them are positive: with unit
    // normals n1, n2 (c = n1.n2) and a = g + f1 n1 + f2 n2 across neither,
    //   f1 = (c g.n2 − g.n1) / (1 − c²),   f2 = (c g.n1 − g.n2) / (1 − c²),
    // and f2 > 0 is the first glide's pull onto the second face, a1.n2 = −f2 (1 − c²) < 0.
    // It then glides along the crease's line t = n1 × n2 / |n1 × n2| at a = (g.t) t, its
    // velocity (v.t) t (the part across the second face is the rest model's, as the
    // first's); in 2D the crease is a corner, a = 0, and it rests there. Two box walls (axis
    // normals): the two coordinates set to zero exactly, as along_face does. With f1 <= 0
    // the first face lets go: the glide on it hops onto the second, which glides alone.
    struct Crease {
        std::uint32_t w = none, slot = 0; // the second face; the crease's slot
        Vec<D> v{};                       // the velocity along the crease
    };
    Crease crease_of(std::uint32_t i, std::uint32_t w, const Vec<D>& n1,
                     std::uint32_t slot) requires Motion::has_field {
        const auto& p = particles_.state[i];
        const Vec<D>& g = motion_.gravity();
        const Vec<D> a1 = motion_.glide_acceleration(slot);
        Crease crease;
        for_each_face_near(i, [&](std::uint32_t w2, const Vec<D>& n2) {
            if (crease.w != none || w2 == w) return;
            if (!(dot(a1, n2) < 0.0) || !(std::abs(dot(p.v, n2)) < rest_.speed)) return;
            const double c = dot(n1, n2), det = 1.0 - c * c;
            if (!(det > crease_parallel)) return; // (one plane: the glide is along both)
            if (!(c * dot(g, n2) - dot(g, n1) > 0.0)) return; // f1 <= 0
            if constexpr (D == 2) {
                crease.w = w2; // a corner: v = 0
            } else {
                Vec<D> a, v;
                if (along_axis(n1) && along_axis(n2)) {
                    a = along_face(along_face(g, n1), n2);
                    v = along_face(along_face(p.v, n1), n2);
                } else {
                    const Vec<D> t =
                        choc::cross(n1, n2) * (1.0 / std::sqrt(det)); // |n1 x n2|² = det
                    a = t * dot(g, t);
                    v = t * dot(p.v, t);
                }
                const std::uint32_t k = glide_slot_for(a);
                if (k == 0) return; // the table is full: it glides on w as before glides in creases
                crease.w = w2, crease.slot = k, crease.v = v;
            }
        });
        return crease;
    }
    static bool along_axis(const Vec<D>& n) {
        for (int a = 0; a < D; ++a)
            if (std::abs(n[a]) == 1.0) return true;
        return false;
    }
    // Calls f(w, n) for each face particle i (at now) touches within rest reach: obstacle
    // number w, its unit normal n towards i. The faces that reflect (a thermal wall re-emits)
    // of plane walls, segments (where i is over the segment) and triangles (over the face,
    // not a rim; a one-sided triangle from the front).
    template <class F>
    void for_each_face_near(std::uint32_t i, F&& f) requires Motion::has_field {
        const Vec<D>& x = particles_.state[i].x;
        const double a = particles_.radius(i), reach = rest_.reach;
        for (std::uint32_t k = 0; k < box_.walls.size(); ++k) {
            const auto& wall = box_.walls[k];
            if (!wall.thermal() && wall.distance(x) - a <= reach) f(k, wall.normal);
        }
        for (std::uint32_t k = 0; k < box_.segments.size(); ++k) {
            const auto& seg = box_.segments[k];
            const double along = seg.along(x);
            if (along < 0.0 || along > seg.length || std::abs(seg.height(x)) - a > reach) continue;
            const std::uint32_t w =
                Obstacle::encode_segment(box_.walls.size(), k, Segment<D>::face);
            f(w, obstacle_plane(box_, w, x).normal);
        }
        const TriangleCells<D>& triangles = obstacles_.triangles().cells();
        if (triangles.empty()) return;
        const std::uint32_t cell = cells_.cell_of(i);
        for (const auto* e = triangles.begin(cell); e != triangles.end(cell); ++e) {
            const Triangle<D>& tri = box_.triangles[e->index];
            if (!tri.over_face(x) || std::abs(tri.height(x)) - a > reach) continue;
            if (tri.one_sided && tri.height(x) <= 0.0) continue;
            const std::uint32_t w =
                Obstacle::encode_triangle(box_.walls.size(), box_.segments.size(), e->index);
            f(w, obstacle_plane(box_, w, x).normal);
        }
    }
    // Whether a falling particle touching i (about to glide at acceleration a, its velocity
    // along the support) meets it or bounces on it slower than rest speed, pulled back onto
    // it: one lying on i. A glider feels no pull across its support, so the one on it comes
    // back again and again, in ever shorter hops as each landing pushes i into the support,
    // which takes the push (seen: a disc riding on a gliding one, the 60-disc box, the 2D
    // hourglass: millions of events, or at last the same contact at the same instant for
    // ever). The smooth pair would push each other along in a lasting contact, which no
    // event describes. A loaded particle is therefore put to rest on its support instead,
    // as by friction, and the one on it comes to rest on it or leans on it
    // (docs/PHYSICS.md, "Particles at rest").
    bool loaded(std::uint32_t i, const Vec<D>& a) requires Motion::has_field {
        const auto& p = particles_.state[i];
        bool found = false;
        for_each_near(i, [&](std::uint32_t k, const Vec<D>& shift) {
            const auto& pk = particles_.state[k];
            if (found || k == i || pk.resting()) return;
            const ParticleState<D> q = flight_from_now(k);
            const Vec<D> r = q.x + shift - p.x; // from i to k's image beside it
            const double sigma = particles_.table.pair_sigma(p.species, pk.species);
            if (norm(r) - sigma > contact_tolerance_ * sigma) return; // not touching
            // k's motion relative to i's glide: velocity v, the pull a_k − a (a_k: g, or
            // k's own glide's pull: a glider sliding down onto one gliding slower, in a
            // crease, pushes it along as one lying on it does; seen: two spheres on a slope,
            // the lower one in its crease with a box wall, met at one instant for ever,
            // scan case 11682011839193705786)
            const Vec<D> v = q.v - p.v, n = r * (1.0 / norm(r));
            const Vec<D> a_k =
                pk.gliding() ? motion_.glide_acceleration(pk.glide_slot()) : motion_.gravity();
            // slow across the contact either way (an approach as slow lands as lightly; one
            // by round-off, seen, met the glider again and again at one instant)
            const double u = dot(v, n);
            const double pull = dot(a_k - a, n) + norm2(v - n * u) / norm(r);
            found = std::abs(u) < rest_.speed && pull < 0.0;
        });
        return found;
    }

    // i (advanced to now) has an event: its glide, if it glided, ends here.
    void end_glide(std::uint32_t i) {
        if constexpr (Motion::has_field)
            if (particles_.state[i].gliding()) [[unlikely]] {
                particles_.state[i].set_glide(0);
                --gliding_;
            }
    }
    // Glider i's contact leaves the face it glided on: it flies on from there. Its centre
    // is put just past the edge it reached, where the face no longer holds it: the time the
    // edge was reached is rounded, and a centre left a rounding short of the edge, pressed
    // onto the face with no speed across it, met the face at once, glided on it and left it
    // at once, for ever (seen: a disc leaving a segment's end). The step is of the order of
    // the rounding of the coordinates: the glide's end to round-off.
    void leave_glide(std::uint32_t i) {
        advance(i);
        if constexpr (Motion::has_field) {
            auto& x = particles_.state[i].x;
            // the edge it reached (inward normal n through e, of face o): the one it is
            // nearest inside, of either face of a crease; stepped past until that face's own
            // test (face_time's) no longer has it over it
            Vec<D> e{}, n{};
            Obstacle o{};
            double inside = never;
            for (const std::uint32_t w : glide_on_[i]) {
                if (w == none) continue;
                const Obstacle face = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
                for_each_edge(face, [&](const Vec<D>& through, const Vec<D>& normal) {
                    if (const double h = dot(x - through, normal); h < inside)
                        inside = h, e = through, n = normal, o = face;
                });
            }
            auto over = [&](const Vec<D>& y) {
                if (o.triangle) return box_.triangles[o.index].over(y);
                const auto& seg = box_.segments[o.index];
                const double along = seg.along(y);
                return along >= 0.0 && along <= seg.length;
            };
            if (inside < never) {
                double size = 0.0;
                for (int a = 0; a < D; ++a) size = std::max(size, std::abs(x[a]));
                double step = std::numeric_limits<double>::epsilon() * size;
                for (int k = 0; k < 16 && over(x); ++k, step *= 2.0)
                    x -= n * (std::max(dot(x - e, n), 0.0) + step);
                // ... and clear of the edge by a few roundings of that test, so that a
                // coplanar neighbour sharing the edge (a mesh's, a toothed floor's) has the
                // centre over it: a centre just past the edge can be over neither, by
                // round-off, and was then met by no face (nor by a rim: it rests on the
                // face's height) and sank through the neighbour under the field (scan case
                // 11607331221862812016, a sphere on a corrugated strip, 1.8e-5 of its
                // radius deep at t = 6.94)
                const double clear =
                    leave_edge_clearance_ulps * std::numeric_limits<double>::epsilon() * size;
                if (const double h = dot(x - e, n); h > -clear) x -= n * (h + clear);
            }
            // A centre a rounding below the face it glided on, its speed from the face one
            // too small to rise out of that, would fall through the face's coplanar
            // neighbour unmet (first_contact takes a gap below zero, rising, for a centre
            // beside the obstacle): put back on the contact, as after a bounce
            // (back_to_contact; the same case, 1.6e-3 of the radius deep at t = 4.07, its
            // gap -4.4e-16 and its speed from the face 2.4e-15 when it left the face)
            for (const std::uint32_t w : glide_on_[i])
                if (w != none) back_to_contact(i, w);
        }
        end_glide(i);
        particles_.state[i].bump();
        predict_all(i);
    }
    // When the contact of glider i, whose flight from now is q, leaves a face it glides
    // on: its centre's projection along the face reaches an end of the segment or an edge of
    // the triangle, each a one-dimensional gap closing as first_contact solves it (the
    // glide's pull along the face, a, its acceleration there); never on a plane wall. In a
    // crease, the first of its two faces' (the edge the two share, along the glide, stays
    // at its gap).
    double glide_end_time(std::uint32_t i,
                          const ParticleState<D>& q) const requires Motion::has_field {
        const Motion& m = flight_motion(q);
        double t = never;
        for (const std::uint32_t w : glide_on_[i]) {
            if (w == none) continue;
            const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
            // the gap inside the edge of inward normal n through point e
            for_each_edge(o, [&](const Vec<D>& e, const Vec<D>& n) {
                t = std::min(
                    t, m.first_contact(std::max(dot(q.x - e, n), 0.0), dot(q.v, n), m.along(n)));
            });
        }
        return t;
    }
    // Calls f(e, n) for each edge of obstacle o's face, through point e with unit normal n
    // in the face's plane towards its inside: a segment's two ends, a triangle's three
    // edges, nothing for a plane wall.
    template <class F>
    void for_each_edge(const Obstacle& o, F&& f) const {
        if (o.triangle) {
            const auto& tri = box_.triangles[o.index];
            for (int k = 0; k < 3; ++k) f(tri.vertex[k], tri.inward[k]);
        } else if (!o.wall) {
            const auto& seg = box_.segments[o.index];
            f(seg.from, seg.tangent);
            f(seg.to, seg.tangent * -1.0);
        }
    }
    using GlideFaces = std::array<std::uint32_t, 2>; // a face (and none), or a crease's two
    // The obstacles i glides on (none if it does not; the second none but in a crease): its
    // predictions pass them by, its flight being along them to round-off.
    GlideFaces glide_support(const ParticleState<D>& p, std::uint32_t i) const {
        if constexpr (Motion::has_field)
            if (p.gliding()) [[unlikely]]
                return glide_on_[i];
        return {none, none};
    }
    // A restored glider's faces: a face's own slot, or a crease's slot in the table.
    bool glide_faces_valid(std::uint32_t i) const {
        if (glide_on_.empty()) return false;
        const auto [w, w2] = glide_on_[i];
        const std::uint32_t slot = particles_.state[i].glide_slot();
        if (w >= glide_slot_of_.size()) return false;
        if (w2 == none) return glide_slot_of_[w] == slot;
        return w2 < glide_slot_of_.size() && w2 != w && slot < glide_table_->size();
    }
    // The flight p follows: a glide's, or the field's.
    const Motion& flight_motion(const ParticleState<D>& p) const {
        if constexpr (Motion::has_field)
            if (p.gliding()) [[unlikely]]
                return glide_motions_[p.glide_slot()];
        return motion_;
    }

    // Time until i, whose flight from now is q (x seen beside j), first meets particle j,
    // whose flight from now is (x_j, v_j) on glide slot j_slot, when their flights differ
    // in kind (one glides, or they glide on different supports): their relative motion is
    // then curved. Both flights are linear in their velocities and their pulls with the
    // same drag (motions.hpp), so the relative flight is the field's form with the relative
    // velocity and the pull a_i − a_j, met by the fixed point: the search of a particle at
    // rest, and with it its window and rescans. (When i glides and j falls, j's flight is
    // taken relative to i's, so that a glide along a floor, a = 0, is searched as before.)
    double time_to_glider(std::uint32_t i, ParticleState<D> q, const Vec<D>& x_j, const Vec<D>& v_j,
                          std::uint32_t j_slot, double sigma) const requires Motion::has_field {
        const Vec<D>& g = motion_.gravity();
        const Schedule& s = schedule_[i];
        const double window = std::min(pair_horizon(s), s.crossing_time - now_);
        if (q.gliding() && j_slot == 0) { // i glides, j falls: j's flight relative to i's
            const Vec<D> x_i = q.x;
            const Motion relative(g - motion_.glide_acceleration(q.glide_slot()), motion_.drag());
            q.x = x_j, q.v = v_j - q.v;
            q.set_glide(0);
            return end_time(relative, x_i, q, sigma, window);
        }
        const Vec<D> a_i = q.gliding() ? motion_.glide_acceleration(q.glide_slot()) : g;
        const Vec<D> a_j = j_slot > 0 ? motion_.glide_acceleration(j_slot) : g;
        const Motion relative(a_i - a_j, motion_.drag());
        q.v -= v_j;
        q.set_glide(0);
        return end_time(relative, x_j, q, sigma, window);
    }

    // Time until particle q (a flight from now, stamp 0) first touches the point x at
    // distance sigma: a particle at rest, looked at by i, within i's horizon and its cell.
    double time_to_resting(std::uint32_t i, const ParticleState<D>& q, const Vec<D>& x,
                           double sigma) const requires Motion::has_field {
        const Schedule& s = schedule_[i];
        const double window = std::min(pair_horizon(s), s.crossing_time - now_);
        return end_time(flight_motion(q), x, q, sigma, window);
    }

    // Particle i (awake, advanced to now, just collided) is held against gravity by its
    // supports within reach: the box walls and [[walls]] planes that reflect (a thermal
    // wall re-emits: it holds nothing), segments, triangles and particles at rest.
    bool held(std::uint32_t i) requires Motion::has_field {
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
    bool rests_together(std::uint32_t i) requires Motion::has_field {
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
                if (d - particles_.table.pair_sigma(particles_.state[b].species, pk.species) >
                    reach)
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
    template <class F>
    void for_each_support(std::uint32_t i, double reach, F&& f) requires Motion::has_field {
        for_each_support(i, particles_.state[i].x, reach, f);
    }
    // The same with i's centre at x (i's position now, i not advanced; in i's cell).
    template <class F>
    void for_each_support(std::uint32_t i, const Vec<D>& x, double reach,
                          F&& f) requires Motion::has_field {
        const std::uint32_t species = particles_.state[i].species;
        const double a = particles_.radius(i);
        for (const auto& wall : box_.walls)
            if (!wall.thermal() && wall.distance(x) - a <= reach) f(wall.normal, never);
        for (const auto& seg : box_.segments)
            if (seg.distance(x) - a <= reach)
                f(seg.contact_plane(seg.nearest_part(x), x).normal, never);
        if (const TriangleCells<D>& triangles = obstacles_.triangles().cells();
            !triangles.empty()) {
            const std::uint32_t cell = cells_.cell_of(i);
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
    void put_to_rest(std::uint32_t i) requires Motion::has_field {
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
    void meet_resting(std::uint32_t i, std::uint32_t j) requires Motion::has_field {
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
        if (trapped(i)) [[unlikely]] {
            free_from_contacts(i);
            if (trapped(i)) {
                ++tally_.leans;
                return put_to_rest(i);
            }
        }
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
    double rest_impact_restitution(std::uint32_t i,
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
    bool trapped(std::uint32_t i) requires Motion::has_field {
        const ParticleState<D> q = flight_from_now(i);
        const double resolution = round_off_time(q), height = round_off_height(q);
        const double reach = contact_tolerance_ * particles_.table.largest_diameter();
        bool found = false;
        for_each_support(i, reach, [&](const Vec<D>& n, double d) {
            found = found || returns_within(n, d, q.v, resolution, height);
        });
        return found;
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
    bool returns_within(const Vec<D>& n, double d, const Vec<D>& v, double window,
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
    double round_off_height(const ParticleState<D>& p) const {
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
    double round_off_time(const ParticleState<D>& p) const requires Motion::has_field {
        constexpr double eps = std::numeric_limits<double>::epsilon();
        double x = 0.0;
        for (int a = 0; a < D; ++a) x = std::max(x, std::abs(p.x[a]));
        const double move = eps * x, speed = norm(p.v), pull = norm(motion_.gravity());
        const double still =
            std::min(speed > 0.0 ? move / speed : never, std::sqrt(2.0 * move / pull));
        return 4.0 * std::max(std::nextafter(now_, never) - now_, still);
    }

    // Takes from i's velocity its approach to every support it touches (plastic contacts,
    // by repeated projection: the velocity nearest to i's that approaches none of them),
    // the lost energy booked as the rest model's.
    void free_from_contacts(std::uint32_t i) requires Motion::has_field {
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
    void wake(std::uint32_t j) requires Motion::has_field {
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
    void forget_partner(std::uint32_t i) {
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
    void wake_above(std::uint32_t j) requires Motion::has_field {
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
                if (norm(r) - particles_.table.pair_sigma(pb.species, pk.species) > rest_.reach)
                    return;
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
    void rescan_resting(std::uint32_t i) {
        if constexpr (Motion::has_field) {
            if (at_rest_ == 0 && gliding_ == 0) return;
            const ParticleState<D> q0 = flight_from_now(i);
            for_each_near(i, [&](std::uint32_t j, const Vec<D>& shift) {
                const auto& pj = particles_.state[j];
                if (j == i || !(pj.resting() || pj.glide_slot() != q0.glide_slot())) return;
                ParticleState<D> q = q0;
                q.x -= shift; // i as j's image sees it
                const double sigma = particles_.table.pair_sigma(q0.species, pj.species);
                const double dt = pj.resting() ? time_to_resting(i, q, pj.x, sigma)
                                               : time_to_glider(i, q, motion_.position(pj, now_),
                                                                motion_.velocity(pj, now_),
                                                                pj.glide_slot(), sigma);
                take_earliest(i, &j, &dt, 1);
            });
        }
    }

    void cross(std::uint32_t i) {
        if (!upper_.empty()) [[unlikely]]
            return cross_levels(i);
        Schedule& s = schedule_[i];
        bool wrapped = false;
        const std::uint32_t to = cells_.step(cells_.cell_of(i), s.axis, s.dir, wrapped);
        if (wrapped && sliding_.on() && s.axis == LeesEdwards<D>::gradient) [[unlikely]]
            return sliding_.reenter(kernel(), i, s.dir);
        if (wrapped) wrap(i, s.axis, s.dir);
        cells_.move(i, to);
        ++tally_.crossings;

        // the layer depends on the crossing just made, so take it before the next one
        cells_.layer(to, s.axis, s.dir, near_);
        set_next_crossing(i);
        // segment and triangle predictions look no further than the cell's edge: look again
        predict_finite_walls(i);
        scan_pairs(i, cells_, near_);
        // in a row along the sliding face, the window across it moved or is new
        if (sliding_.on()) [[unlikely]]
            sliding_.scan(kernel(), i);
        rescan_resting(i);
        reschedule(i);
    }

    // Leaving through the top of a periodic axis re-enters at the bottom: the whole
    // straight trajectory moves by -L (its time stamp need not change).
    void wrap(std::uint32_t i, int axis, int dir) {
        particles_.state[i].x[axis] -= dir * box_.length[axis];
        // the potential -m g.x jumps by m g_a dir L: the ledger takes it back
        if constexpr (Motion::has_field)
            wrapped_potential_ -=
                particles_.mass(i) * motion_.gravity()[axis] * dir * box_.length[axis];
    }

    // The rest model needs gravity to rest against (config.cpp says so by key first). With
    // epsilon > 0 its particles at rest stay out of groups (outside_groups).
    void set_up_rest() {
        if constexpr (!Motion::has_field) {
            throw std::invalid_argument("Engine: the rest model needs gravity");
        } else {
            if (norm(motion_.gravity()) == 0.0)
                throw std::invalid_argument("Engine: the rest model needs gravity");
            // reach: never below the round-off of a contact of the smallest particles
            double smallest = never;
            for (const auto& sp : particles_.table.species)
                smallest = std::min(smallest, 2.0 * sp.radius);
            rest_ = RestRule(settings_.rest_speed, norm(motion_.gravity()),
                             contact_tolerance_ * smallest);
            rest_slot_.assign(particles_.size(), none);
            at_rest_ = static_cast<std::uint32_t>(
                std::count_if(particles_.state.begin(), particles_.state.end(),
                              [](const ParticleState<D>& p) { return p.resting(); }));
        }
    }

    // The glide table: the pull along each support face a particle glides on, a = g −
    // (g.n) n, one slot per distinct a, given to a face when a particle first glides on it
    // (glide_slot: a mesh has many faces, most of which nothing glides on: the 3D
    // hourglass's upper cone has 48, its lower cone, an overhang, 48 more), at most
    // glide_slots − 1 of them: a face beyond them has none, and its particles bounce as
    // they did before glides. The table depends on the run's history, so it is saved with
    // the engine. On an axis normal a is g with that coordinate zero, exactly (a floor
    // square to the field: a = 0). Thermal walls re-emit and hold nothing; segment ends and
    // triangle rims are not faces.
    void set_up_glides() {
        if constexpr (Motion::has_field) {
            glide_table_ = std::make_shared<std::vector<Vec<D>>>(1); // slot 0: no glide
            glide_table_->reserve(glide_slots); // (Field reads it through the pointer)
            glide_slot_of_.assign(
                box_.walls.size() + 3 * box_.segments.size() + box_.triangles.size(), unslotted);
            set_up_glide_motions();
            glide_on_.assign(particles_.size(), GlideFaces{none, none});
            gliding_ = static_cast<std::uint32_t>(
                std::count_if(particles_.state.begin(), particles_.state.end(),
                              [](const ParticleState<D>& p) { return p.gliding(); }));
        }
    }
    // The flight of each slot of the table (reserved whole: flight_motion's references
    // stay valid as slots are added).
    void set_up_glide_motions() requires Motion::has_field {
        motion_.set_glides(glide_table_);
        glide_motions_.clear();
        glide_motions_.reserve(glide_slots);
        for (const Vec<D>& a : *glide_table_) add_glide_motion(a);
    }
    void add_glide_motion(const Vec<D>& a) requires Motion::has_field {
        glide_motions_.emplace_back(a, motion_.drag());
        glide_motions_.back().set_glides(glide_table_);
    }
    static constexpr std::uint8_t unslotted = 0xff;
    // v without its part along the unit normal n: on an axis exactly, that coordinate set to
    // zero (a glide along a floor stays at its height to the bit, and its pull is 0).
    static Vec<D> along_face(Vec<D> v, const Vec<D>& n) {
        for (int a = 0; a < D; ++a)
            if (std::abs(n[a]) == 1.0) {
                v[a] = 0.0;
                return v;
            }
        return v - n * dot(v, n);
    } // (glide_slot_of_: not looked at yet)

    // The slot of obstacle w's face (0: none), given now if it has none yet.
    std::uint32_t glide_slot(std::uint32_t w) requires Motion::has_field {
        if (w >= glide_slot_of_.size()) return 0;
        if (glide_slot_of_[w] != unslotted) return glide_slot_of_[w];
        glide_slot_of_[w] = 0;
        const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
        Vec<D> n{};
        if (o.wall && !box_.walls[o.index].thermal())
            n = box_.walls[o.index].normal;
        else if (o.triangle)
            n = box_.triangles[o.index].normal;
        else if (!o.wall && o.part == Segment<D>::face)
            n = box_.segments[o.index].normal;
        const Vec<D>& g = motion_.gravity();
        if (dot(g, n) == 0.0) return 0; // not a face, or the field never presses onto it
        return glide_slot_of_[w] = static_cast<std::uint8_t>(glide_slot_for(along_face(g, n)));
    }
    // The slot of pull a (0: the table is full), given now if no slot has it yet.
    std::uint32_t glide_slot_for(const Vec<D>& a) requires Motion::has_field {
        auto& table = *glide_table_;
        std::size_t k = 1;
        while (k < table.size() && !(table[k] == a)) ++k;
        if (k == table.size()) {
            if (table.size() == glide_slots) return 0; // full: it bounces as before
            table.push_back(a);
            add_glide_motion(a);
        }
        return static_cast<std::uint32_t>(k);
    }

    // --- Levels of cell grids (cell_levels.hpp): size-disperse particles ----------------

    std::size_t level_of(std::uint32_t i) const {
        return levels_.of_species()[particles_.state[i].species];
    }
    Cells<D>& grid(std::size_t l) { return l == 0 ? cells_ : upper_[l - 1]; }
    const Cells<D>& grid(std::size_t l) const { return l == 0 ? cells_ : upper_[l - 1]; }
    // Puts i in `cell` of grid l (emptied before): in its lists if l is i's level, else
    // only as i's cell there (a larger particle's, or one it never reads).
    void enter(std::size_t l, std::uint32_t i, std::uint32_t cell) {
        if (level_of(i) == l)
            grid(l).insert(i, cell);
        else
            grid(l).place(i, cell);
    }

    // A crossing of one of i's grids. Its own (level a): the new layer of its level, and
    // the coarser particles around it (their nearness is counted in this grid). A finer
    // grid's: the cells the step brought near there. A periodic face is a face
    // of every grid: i re-enters them all at once and looks at everything again.
    void cross_levels(std::uint32_t i) {
        Schedule& s = schedule_[i];
        const std::size_t a = level_of(i), g = s.grid;
        Cells<D>& crossed = grid(g);
        bool wrapped = false;
        const std::uint32_t to = crossed.step(crossed.cell_of(i), s.axis, s.dir, wrapped);
        ++tally_.crossings;
        if (wrapped) {
            wrap(i, s.axis, s.dir);
            for (std::size_t l = 0; l <= a; ++l) {
                Cells<D>& cells = grid(l);
                const std::uint32_t cell = cells.reentered(cells.cell_of(i), s.axis, s.dir);
                if (l == a)
                    cells.move(i, cell);
                else
                    cells.place(i, cell);
            }
        } else if (g == a) {
            crossed.move(i, to);
            crossed.layer(to, s.axis, s.dir, near_);
        } else {
            crossed.place(i, to);
            const auto& nb = levels_.neighbourhood(g, a);
            crossed.cells_at(to, nb.after_step(s.axis, s.dir), nb.reach, wide_);
        }
        set_next_crossing(i);
        predict_finite_walls(i);
        if (wrapped) {
            scan_levels(i);
        } else if (g == a) {
            scan_pairs(i, crossed, near_);
            scan_coarser(i, a);
        } else {
            scan_pairs(i, crossed, wide_);
        }
        rescan_resting(i);
        reschedule(i);
    }

    // Calls f(grid, stencil) for every stencil a full scan of i looks at over the levels:
    // the near cells in each finer grid, its own grid's 3^D cells, and each
    // coarser grid's 3^D cells around its position (for_each_coarser).
    template <class F>
    void for_each_stencil(std::uint32_t i, F&& f) {
        const std::size_t a = level_of(i);
        for (std::size_t c = 0; c < a; ++c) {
            const auto& nb = levels_.neighbourhood(c, a);
            grid(c).cells_at(grid(c).cell_of(i), nb.all, nb.reach, wide_);
            f(grid(c), wide_);
        }
        grid(a).around(grid(a).cell_of(i), near_);
        f(grid(a), near_);
        for_each_coarser(i, a, f);
    }
    template <class F>
    void for_each_coarser(std::uint32_t i, std::size_t a, F&& f) {
        if (a + 1 >= levels_.size()) return;
        const Vec<D> x = motion_.position(particles_.state[i], now_);
        for (std::size_t b = a + 1; b < levels_.size(); ++b) {
            grid(b).around(grid(b).cell_at(x), near_);
            f(grid(b), near_);
        }
    }
    void scan_levels(std::uint32_t i) {
        for_each_stencil(i, [&](const Cells<D>& g, const auto& near) { scan_pairs(i, g, near); });
    }
    void scan_coarser(std::uint32_t i, std::size_t a) {
        for_each_coarser(i, a,
                         [&](const Cells<D>& g, const auto& near) { scan_pairs(i, g, near); });
    }

    // Calls f(j, shift) for every particle j that a full scan of i looks at (i itself
    // among them), with the shift that brings j's image next to i: x_j + shift.
    template <class F>
    void for_each_near(std::uint32_t i, F&& f) {
        for_each_stencil(i, [&](const Cells<D>& cells, const auto& near) {
            for (int c = 0; c < near.size; ++c)
                for (const std::uint32_t* j = cells.begin(near.cell[c]);
                     j != cells.end(near.cell[c]); ++j)
                    f(*j, near.edge ? near.shift()[c] : Vec<D>{});
        });
    }

    // After a velocity change: every candidate event of i anew.
    void predict_all(std::uint32_t i) {
        Schedule& s = schedule_[i];
        const auto& p = particles_.state[i];
        if (p.resting()) [[unlikely]] { // no events of its own (the rest model)
            s = Schedule{};
            return reschedule(i);
        }
        const Motion& m = flight_motion(p);
        const Vec<D> x = m.position(p, now_);
        const Vec<D> v = m.velocity(p, now_);
        const double a = particles_.radius(i);
        const GlideFaces support = glide_support(p, i);
        s.wall_time = never;
        if constexpr (Motion::has_field)
            if (support[0] != none) [[unlikely]]
                s.wall_time = now_ + glide_end_time(i, flight_from_now(i)), s.wall = glide_end;
        for (std::uint32_t w = 0; w < box_.walls.size(); ++w) {
            if (w == support[0] || w == support[1]) [[unlikely]]
                continue;
            const auto& wall = box_.walls[w];
            const double t = now_ + m.first_contact(wall.distance(x) - a, dot(v, wall.normal),
                                                    m.along(wall.normal));
            if (t < s.wall_time) s.wall_time = t, s.wall = w;
        }
        set_next_crossing(i);
        predict_finite_walls(i);
        s.pair = {}, s.runner_up = {};
        scan_all_pairs(i);
        reschedule(i);
    }

    // Improves i's wall candidate with the obstacles other than plane walls (segments in
    // 2D, triangles in 3D: engine/obstacles.hpp).
    void predict_finite_walls(std::uint32_t i) {
        if (!obstacles_.any(box_)) return;
        Schedule& s = schedule_[i];
        const ParticleState<D> q = flight_from_now(i);
        const ObstacleFlight<D, Motion> f{
            q,    flight_motion(q), particles_.radius(i), cells_.cell_of(i),
            now_, s.crossing_time,  glide_support(q, i)};
        obstacles_.predict(box_, cells_, f, {s.wall_time, s.wall});
    }

    // Particle i's flight restarted now: its position and velocity now, time stamp 0 (the
    // form segment_time.hpp and triangle_time.hpp take).
    ParticleState<D> flight_from_now(std::uint32_t i) const {
        ParticleState<D> q = particles_.state[i];
        q.x = motion_.position(particles_.state[i], now_);
        q.v = motion_.velocity(particles_.state[i], now_);
        q.t = 0.0;
        return q;
    }

    // Brings particle i to now along its flight. Under a field its kinetic energy changed
    // along the way: the flight's share of the measured phase goes to the time integral.
    void advance(std::uint32_t i) {
        auto& p = particles_.state[i];
        if constexpr (Motion::has_field) {
            tally_.kinetic_time[p.species] += open_flight_kinetic(i);
            if (p.t < now_ && too_short(p)) [[unlikely]]
                ++short_flights_;
        }
        motion_.advance(p, now_);
    }

    // A flight from p's stamp to now too short for p to move by one unit in the last place
    // of its largest coordinate: |v| (now - t) below ulp(|x|). Its motion is then lost to
    // the rounding of x + v tau: a particle sliding along a floor in micro-bounces of
    // 1e-13 (normal speed 5e-14, tangential 3e-3, x near 7) stood still while its
    // predictions had it move, and was overtaken by its neighbour (issue 40). Now and then
    // such a flight is harmless (two collisions of one particle nearly at once); a run made
    // of them has stalled, however fast its clock still creeps: the collapse watch counts
    // them (short_flights).
    // (ulp(x) >= eps x / 2, so a flight shorter than that is short for certain.)
    bool too_short(const ParticleState<D>& p) const {
        if (p.resting()) return false;
        double x = 0.0, v = 0.0;
        for (int a = 0; a < D; ++a)
            x = std::max(x, std::abs(p.x[a])), v = std::max(v, std::abs(p.v[a]));
        return v * (now_ - p.t) < 0.5 * std::numeric_limits<double>::epsilon() * x;
    }

    // ∫ KE dt of particle i's flight from its stamp (or the start of the measured phase,
    // if later) to now. (Straight flights keep it in the tally instead.)
    double open_flight_kinetic(std::uint32_t i) const requires Motion::has_field {
        const auto& p = particles_.state[i];
        const double from = std::max(tally_.start - p.t, 0.0), to = now_ - p.t;
        return to > from
                   ? 0.5 * particles_.mass(i) * flight_motion(p).speed2_integral(p.v, from, to)
                   : 0.0;
    }

    // Particle i's velocity is about to change at now: the flux integrals up to now, and
    // its share of the streaming sums out (the caller puts the new one in).
    void flux_leave(std::uint32_t i) {
        flux_.advance(now_);
        flux_.add(particles_.mass(i), particles_.state[i].v, -1.0);
    }
    // The tally from zero at `now`, with a heat and a momentum account per plane wall.
    void reset_counts(double now) {
        tally_.reset(now, kinetic_per_species());
        tally_.wall_heat.assign(box_.walls.size(), 0.0);
        tally_.wall_momentum.assign(3 * box_.walls.size(), 0.0);
    }

    // The flux integrals from zero at now, the streaming sums from the particles.
    void reset_fluxes() {
        flux_.reset(now_);
        if (!fluxes_) return;
        for (std::uint32_t i = 0; i < particles_.size(); ++i)
            flux_.add(particles_.mass(i), particles_.state[i].v, 1.0);
        if (sliding_.on()) sliding_.reset_accounts(particles_, now_);
    }

    // A collision at now changed species s's kinetic energy by dk. Without a field kinetic
    // energy is constant between collisions and the tally integrates it per species; with
    // one, `advance` integrates each flight instead.
    void kinetic_change(std::uint32_t s, double dk) {
        tally_.collision_energy += dk;
        collision_energy_since_check_ += dk;
        if constexpr (!Motion::has_field) tally_.kinetic_change(s, now_, dk);
    }

    // When particle p, in `cell` of `cells`, next leaves it. In a field a particle can turn
    // round and leave through the face behind it, so both faces of every axis are tried.
    typename Cells<D>::Crossing next_crossing(const Cells<D>& cells, std::uint32_t cell,
                                              const ParticleState<D>& p) const {
        if constexpr (!Motion::has_field) {
            return cells.next_crossing(cell, p.x, p.v, p.t, now_);
        } else {
            const Motion& m = flight_motion(p);
            const Vec<D> x = m.position(p, now_), v = m.velocity(p, now_);
            const auto& g = m.gravity();
            typename Cells<D>::Crossing best{never, 0, 0};
            for (int a = 0; a < D; ++a)
                for (const int dir : {-1, 1}) {
                    if (!cells.open(cell, a, dir)) continue;
                    const double bound = cells.bound(cell, a, dir);
                    // the gap to that face, its rate and acceleration, seen from inside
                    const double t =
                        now_ + m.first_contact(dir * (bound - x[a]), dir * -v[a], dir * -g[a]);
                    if (t < best.time) best = {t, a, dir};
                }
            return best;
        }
    }

    // i's next cell event: the earliest crossing of any of its grids (one, but for
    // size-disperse particles: cell_levels.hpp).
    void set_next_crossing(std::uint32_t i) {
        Schedule& s = schedule_[i];
        const auto& p = particles_.state[i];
        auto best = next_crossing(cells_, cells_.cell_of(i), p);
        std::size_t g = 0;
        if (!upper_.empty()) [[unlikely]]
            for (std::size_t l = 1; l <= level_of(i); ++l) {
                const auto c = next_crossing(grid(l), grid(l).cell_of(i), p);
                if (c.time < best.time) best = c, g = l;
            }
        s.crossing_time = best.time;
        s.axis = static_cast<std::int8_t>(best.axis);
        s.dir = static_cast<std::int8_t>(best.dir);
        s.grid = static_cast<std::uint8_t>(g);
    }

    void scan_all_pairs(std::uint32_t i) {
        if (!upper_.empty()) [[unlikely]]
            return scan_levels(i);
        cells_.around(cells_.cell_of(i), near_);
        scan_pairs(i, cells_, near_);
        if (sliding_.on()) [[unlikely]]
            sliding_.scan(kernel(), i);
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
    template <class S>
    void scan_pairs(std::uint32_t i, const Cells<D>& cells, const S& near) {
        for (int c = 0; c < near.size; ++c) cells.prefetch(near.cell[c]);
        if (near.edge)
            gather<true>(i, cells, near);
        else
            gather<false>(i, cells, near);
    }

    // (A wide stencil (cell_levels.hpp) may have more cells than `from`, a byte, can
    // number: a batch then starts at cell `base` of it, and `from` counts from there.)
    template <bool Shifted, class S>
    void gather(std::uint32_t i, const Cells<D>& cells, const S& near) {
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
    template <bool Shifted>
    void predict_candidates(std::uint32_t i, const Vec<D>* shift, const std::uint32_t* candidate,
                            const std::uint8_t* from, int k) {
        tally_.pair_predictions += static_cast<std::uint64_t>(k); // i itself among them
        for (int m = 0; m < k; ++m) __builtin_prefetch(&particles_.state[candidate[m]]);
        if constexpr (Motion::has_field)
            pair_times_one_by_one<Shifted>(i, shift, candidate, from, k);
        else
            pair_times_batched<Shifted>(i, shift, candidate, from, k);
    }

    // i's position xi as candidate m sees it: xi - shift[from[m]], or xi when no shift.
    template <bool Shifted>
    static Vec<D> xi_seen_by(const Vec<D>& xi, const Vec<D>* shift, const std::uint8_t* from,
                             int m) {
        if constexpr (Shifted)
            return xi - shift[from[m]];
        else
            return xi;
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
    // its own rule within the contact check's tolerance.
    // (0 for a pair that did not meet now: its collision now is real.)
    [[gnu::cold, gnu::noinline]] double held_contact_delay(std::uint32_t i, std::uint32_t j) const {
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
        const double deep = std::min(norm(r), sigma) - 0.25 * contact_tolerance_ * sigma;
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
        if constexpr (Motion::has_field)
            if (qi.glide_slot() != qj.glide_slot()) [[unlikely]] {
                ParticleState<D> q = qi;
                q.x = qj.x + r; // i as j sees it
                return time_to_glider(i, q, qj.x, qj.v, qj.glide_slot(), deep);
            }
        return motion_.pair_time(r, qi.v - qj.v, deep * deep, never);
    }

    // The earliest time a new pair candidate of i must beat to be kept: the runner-up's,
    // or the wall event's (after which i's velocity changes anyway). Relative to now.
    double pair_horizon(const Schedule& s) const {
        return std::min(s.runner_up.time, s.wall_time) - now_;
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
    void take_earliest(std::uint32_t i, const std::uint32_t* candidate, const double* dt, int k) {
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
    template <bool Shifted>
    void pair_times_batched(std::uint32_t i, const Vec<D>* shift, const std::uint32_t* candidate,
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
            overlap |= (c[m] < -overlap_c_ * sigma2[pj.species]) & (candidate[m] != i);
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
    template <bool Shifted, bool Gliders = false>
    void pair_times_one_by_one(std::uint32_t i, const Vec<D>* shift, const std::uint32_t* candidate,
                               const std::uint8_t* from, int k) {
        if constexpr (!Gliders)
            if (gliding_ > 0) [[unlikely]]
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
            if (pj.resting()) [[unlikely]] // a fixed sphere (the rest model, above)
                dt[m] = time_to_resting(i, q, pj.x, std::sqrt(sigma2[pj.species]));
            else if (Gliders && pi.glide_slot() != pj.glide_slot()) // a curved meeting
                dt[m] =
                    time_to_glider(i, q, xj, vj, pj.glide_slot(), std::sqrt(sigma2[pj.species]));
            else if (Gliders && pi.gliding()) // both glide alike: straight, as without gravity
                dt[m] =
                    glide_motions_[pi.glide_slot()].pair_time(r, v, sigma2[pj.species], horizon);
            else
                dt[m] = motion_.pair_time(r, v, sigma2[pj.species], horizon);
            if (norm2(r) - sigma2[pj.species] < -overlap_c_ * sigma2[pj.species] &&
                candidate[m] != i) [[unlikely]]
                overlap_seen<Shifted>(i, candidate, shift, from, k);
        }
        take_earliest(i, candidate, dt.data(), k);
    }

    void reschedule(std::uint32_t i) {
        Schedule& s = schedule_[i];
        double t = s.pair.time;
        s.kind = t < never ? Kind::pair : Kind::nothing;
        if (s.wall_time < t) t = s.wall_time, s.kind = Kind::wall;
        if (s.crossing_time < t) t = s.crossing_time, s.kind = Kind::crossing;
        calendar_.set(i, t);
    }

    void maintain() {
        since_maintenance_ = 0;
        check_conservation();
#ifndef NDEBUG
        // debug builds: every pair, O(N) with a cell grid
        Particles<D> at_now = particles_; // max_overlap extrapolates straight lines
        for (auto& p : at_now.state) p.x = motion_.position(p, now_), p.t = now_;
        const double worst = max_overlap(box_, at_now, now_);
        if (worst > contact_tolerance_)
            invariant_violated("overlap", origin_ + now_,
                               fmt::format("a pair or wall overlaps by {:.3g}", worst));
#endif
        rebase();
        renumber();
    }

    // Renumbers the particles in cell order (cells in memory order, i.e. x fastest).
    // Every per-particle array and every stored index moves with them, and every calendar
    // entry is set anew. O(N log N), done every `maintain_every_` events: a small fraction.
    void renumber() {
        const auto n = static_cast<std::uint32_t>(particles_.size());
        std::vector<std::uint32_t> order; // order[k] = old index of new particle k
        order.reserve(n);
        for (std::size_t l = 0; l < levels_.size(); ++l) // (one level: the one grid)
            for (std::uint32_t c = 0; c < grid(l).size(); ++c)
                order.insert(order.end(), grid(l).begin(c), grid(l).end(c));
        std::vector<std::uint32_t> renamed(n); // old index -> new index
        for (std::uint32_t k = 0; k < n; ++k) renamed[order[k]] = k;

        // v[k] = old v[order[k]], in place: each cycle of the permutation is followed once
        // (`done` marks the places written). A copy of v would add its whole size to the
        // run's peak memory: 64 bytes per particle for the states.
        std::vector<bool> done(n);
        auto permute = [&](auto& v) {
            std::fill(done.begin(), done.end(), false);
            for (std::uint32_t start = 0; start < n; ++start) {
                if (done[start]) continue;
                auto saved = v[start];
                for (std::uint32_t k = start;;) {
                    done[k] = true;
                    const std::uint32_t from = order[k];
                    if (from == start) {
                        v[k] = saved;
                        break;
                    }
                    v[k] = v[from];
                    k = from;
                }
            }
        };
        permute(particles_.state);
        permute(schedule_);
        permute(last_partner_);
        if (!last_collision_.empty()) permute(last_collision_);
        if (!glide_on_.empty()) permute(glide_on_);
        permute(id_);
        for (auto& s : schedule_)
            for (PairCandidate* c : {&s.pair, &s.runner_up})
                if (c->partner != none) c->partner = renamed[c->partner];
        for (auto& p : last_partner_)
            if (p != none) p = renamed[p];

        std::vector<std::uint32_t>& cell = renamed; // (no longer needed: its memory reused)
        for (std::size_t l = 0; l < levels_.size(); ++l) {
            Cells<D>& cells = grid(l);
            for (std::uint32_t k = 0; k < n; ++k) cell[k] = cells.cell_of(order[k]);
            cells.clear();
            for (std::uint32_t k = 0; k < n; ++k) enter(l, k, cell[k]);
        }

        // Re-set every entry in place rather than assign a new calendar: Boost 1.74's
        // pairing_heap move assignment drops the old nodes without freeing them.
        for (std::uint32_t k = 0; k < n; ++k) reschedule(k);
    }

    // Moves the time origin to now so that time stamps stay small and `double` keeps
    // its resolution on long runs. Every stored time shifts by the same amount.
    void rebase() {
        const double shift = now_;
        if (shift == 0.0) return;
        for (auto& p : particles_.state) p.t -= shift;
        for (auto& s : schedule_) {
            s.pair.time -= shift;
            s.runner_up.time -= shift;
            s.wall_time -= shift;
            s.crossing_time -= shift;
        }
        for (auto& t : tally_.since) t -= shift;
        flux_.shift(shift);
        for (auto& t : last_collision_) t -= shift;
        group_.resting().shift(shift);
        rest_cycle_.shift(shift);
        tally_.start -= shift;
        calendar_.shift(shift);
        if (sliding_.on()) sliding_.rebase(shift, cells_.counts()[LeesEdwards<D>::flow]);
        origin_ += shift;
        now_ = 0.0;
    }

    // A mark between the sections of a saved state ("CHOE", then one more per section).
    static constexpr std::uint32_t archive_tag = 0x454f4843;

    // The engine's one field list (archive.hpp), after the box and the particles: the cell
    // lists, the candidate events and TC clocks, the rest model and glides, the tallies and
    // the ledger, the clock, the sliding boundaries. save() writes it and restore() reads it
    // back, then check_restored checks what it read.
    template <class Archive>
    void fields(Archive& ar) {
        for (std::size_t l = 0; l < levels_.size(); ++l) ar(grid(l));
        ar.section(archive_tag + 2, "cell lists");
        ar(schedule_, last_partner_, id_, last_collision_, tc_);
        ar.section(archive_tag + 3, "candidate events");
        ar(group_.resting(), rest_cycle_, glide_on_);
        if constexpr (Motion::has_field) ar(*glide_table_, glide_slot_of_);
        ar.section(archive_tag + 4, "rest model");
        ar(ledger_, wrapped_potential_, collision_energy_since_check_, tally_, flux_, emission_);
        ar.section(archive_tag + 5, "tallies");
        ar(now_, stopped_at_, origin_, events_at_now_, since_maintenance_, processed_,
           short_flights_);
        ar.section(archive_tag + 6, "clock");
        ar(sliding_);
        ar.section(archive_tag + 7, "sliding boundaries");
    }

    // The sizes the settings gave the arrays a state may leave empty, taken before
    // `fields` reads a state over them.
    struct Shape {
        std::size_t tc_clocks, glides, obstacles;
    };
    Shape shape() const {
        return {last_collision_.size(), glide_on_.size(), glide_slot_of_.size()};
    }

    // What `fields` read: whole and consistent with the particles, the box and `shape`, or
    // ArchiveError. Then the calendar is rebuilt from the candidates.
    void check_restored(const Shape& shape) {
        const std::size_t n = particles_.size();
        for (std::size_t l = 0; l < levels_.size(); ++l)
            grid(l).check_restored(n, [&](std::uint32_t i) { return level_of(i) == l; });
        if constexpr (Motion::has_field) {
            if (glide_table_->empty() || glide_table_->size() > glide_slots ||
                glide_slot_of_.size() != shape.obstacles ||
                std::any_of(glide_slot_of_.begin(), glide_slot_of_.end(), [&](std::uint8_t k) {
                    return k != unslotted && k >= glide_table_->size();
                }))
                throw ArchiveError("the state's glide table is damaged");
            set_up_glide_motions();
        }
        if (schedule_.size() != n || last_partner_.size() != n || id_.size() != n ||
            last_collision_.size() != shape.tc_clocks || glide_on_.size() != shape.glides)
            throw ArchiveError("the state's per-particle arrays do not match its particles");
        check_restored_tally(tally_, particles_.table.size());
        if (tally_.wall_heat.size() != box_.walls.size() ||
            tally_.wall_momentum.size() != 3 * box_.walls.size())
            throw ArchiveError("the state's wall heat and momentum do not match its walls");
        std::vector<std::uint8_t> seen(n, 0);
        for (std::uint32_t i = 0; i < n; ++i) {
            const auto& s = schedule_[i];
            if (id_[i] >= n || seen[id_[i]]++ || (s.pair.partner != none && s.pair.partner >= n) ||
                (s.runner_up.partner != none && s.runner_up.partner >= n) ||
                (last_partner_[i] != none && last_partner_[i] >= n) ||
                (particles_.state[i].gliding() && !glide_faces_valid(i)))
                throw ArchiveError("the state's particle indices are damaged");
        }
        for (std::uint32_t i = 0; i < n; ++i) reschedule(i);
    }

    std::vector<double> kinetic_per_species() const {
        return choc::kinetic_per_species(particles_, motion_, now_);
    }

    Box<D> box_;
    Particles<D> particles_;
    Settings settings_;
    Motion motion_;
    // The glides (set_up_glides): the flight of each glide slot (the pull along its
    // supports, the same drag), the table of their pulls, the slot of each obstacle number
    // (0: none glides on it; unslotted: not looked at yet), and the obstacles each gliding
    // particle glides on: one face (the second none), or the two of a crease.
    std::vector<Motion> glide_motions_;
    std::shared_ptr<std::vector<Vec<D>>> glide_table_; // the slots' pulls (Field reads it)
    std::vector<std::uint8_t> glide_slot_of_;
    std::vector<GlideFaces> glide_on_;
    CellLevels<D> levels_;        // one level, but for size-disperse particles
    Cells<D> cells_;              // the grid of level 0 (of every particle with one level)
    std::vector<Cells<D>> upper_; // the grids of levels 1, 2, ...
    Obstacles<D> obstacles_;      // segments and triangles (engine/obstacles.hpp)
    Cal calendar_;
    FastVector<Schedule> schedule_;
    std::vector<std::uint32_t> last_partner_; // cold: read only for a zero-time pair
    std::vector<std::uint32_t> id_;           // caller's index of each particle
    RestitutionTable restitution_;            // e per pair of species (restitution.hpp)
    std::vector<double> last_collision_;      // per particle, when TC is configured
    double tc_ = 0.0;                         // TC time in force (0: off)
    // Invariants (audit.hpp): the ledger at the last check; the contact tolerance, and the
    // overlap it allows in terms of c = r.r - sigma^2: c < -overlap_c_ sigma^2.
    Ledger<D> ledger_;
    double contact_tolerance_ = invariant_tolerance, overlap_c_ = 0.0;
    bool momentum_conserved_ = false;
    // Events at one instant so far, and how many mean the clock is stuck: a lattice start
    // has every particle colliding at once, with stale renewals and groups, a few events per
    // particle; 64 per particle and a million more is far beyond any real instant.
    std::uint64_t events_at_now_ = 0, stuck_limit_ = 0;
    // Under a field: an instant of more events than this has its pairs approaching by
    // round-off left as they are (at_rest_contact), and with the rest model its collisions
    // plastic (plastic_instant) and, at twice as many, its stall rescued (rescue_stall).
    std::uint64_t long_instant_ = std::numeric_limits<std::uint64_t>::max();
    double wrapped_potential_ = 0.0; // taken back from the potential at periodic wraps
    double collision_energy_since_check_ = 0.0;
    // Cells a scan visits; a member, filled afresh by each scan, so that no call pays
    // for zero-initialising its shifts (Vec's members are value-initialised).
    Stencil near_;
    typename Cells<D>::WideStencil wide_; // a finer grid's near cells (cell_levels.hpp)
    Tally tally_;
    FluxTally<D> flux_;
    bool fluxes_ = false;              // flux_ is kept (fluxes())
    ThermalEmission<D> emission_;      // the thermal walls' draws
    EventLog* log_ = nullptr;          // log_events_to
    bool retired_ = false;             // retire(): the event loop's arrays are gone
    std::size_t retired_bytes_ = 0;    // memory_bytes() just before
    GroupStep<D> group_;               // the simultaneous step, kept to reuse its memory
    double now_ = 0.0;                 // local clock
    std::optional<double> stopped_at_; // the target of the last run() that stopped at one
    double origin_ = 0.0;              // absolute time of local zero
    std::uint64_t since_maintenance_ = 0, maintain_every_ = 0;
    std::uint64_t processed_ = 0;  // calendar entries processed (processed())
    SlidingBoundaries<D> sliding_; // (box_.shear_rate; engine/sliding_boundaries.hpp)
    // The rest model (resting.hpp): its rule, the particles at rest now, and the scratch
    // lists of `held` and `wake_above`
    RestRule rest_;
    std::uint32_t at_rest_ = 0;
    std::uint64_t short_flights_ = 0; // (short_flights)
    std::vector<Vec<D>> rest_normals_;
    // rests_together's memory: the group, its positions now, each particle's slot in it
    // (none outside a call), and the judge of who holds whom
    std::vector<std::uint32_t> rest_group_;
    std::vector<Vec<D>> rest_group_x_;
    std::vector<std::uint32_t> rest_slot_;
    RestGroup<D> rest_judge_;
    std::vector<std::uint32_t> rest_woken_;
    std::vector<std::uint32_t> rest_above_; // (wake_above)
    std::uint32_t gliding_ = 0;             // particles gliding along a floor now
    RestCycle rest_cycle_;                  // woken and put to rest again at this instant
};

// --- The entry points, defined outside the class ----------------------------------------
//
// Not inline, so that a program using one of the engines compiled in the library (below)
// does not compile the event loop again: everything else is reached only through these.

template <int D, Calendar Cal, Motion<D> Motion>
Engine<D, Cal, Motion>::Engine(Box<D> box, Particles<D> particles, Settings settings, Motion motion)
    : Engine(std::move(box), std::move(particles), settings, motion, Unscheduled{}) {
    const auto n = static_cast<std::uint32_t>(particles_.size());
    for (std::uint32_t i = 0; i < n; ++i) id_[i] = i;
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::size_t l = 0; l <= level_of(i); ++l)
            enter(l, i, grid(l).cell_at(particles_.state[i].x));
    renumber();
    for (std::uint32_t i = 0; i < n; ++i) predict_all(i);
    reset_counts(0.0);
    reset_fluxes();
    ledger_ = ledger();
}

template <int D, Calendar Cal, Motion<D> Motion>
auto Engine<D, Cal, Motion>::run(double until, std::uint64_t collision_limit, std::uint64_t budget)
    -> Stop {
    if (retired_) throw std::logic_error("Engine::run after retire()");
    stopped_at_.reset();
    for (std::uint64_t k = 0; k < budget; ++k) {
        const double local_until = until - origin_; // the origin moves at maintenance
        if (tally_.collisions >= collision_limit) return Stop::collisions;
        const double t = calendar_.top_time();
        if (sliding_.on()) [[unlikely]] {
            // the sliding images pass a column width first: widen the windows
            const double tick = sliding_.next_tick();
            if (tick <= t && tick <= local_until) {
                now_ = std::max(now_, tick);
                sliding_.tick(kernel());
                continue;
            }
            if (sliding_.thermostat_due(tally_.collisions, particles_.size())) {
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
        if (t < now_) event_out_of_order(t); // every prediction is now + dt, dt >= 0
        // a run whose clock stands still for ever is stuck, not slow (audit.hpp)
        if (t > now_)
            events_at_now_ = 0;
        else if (++events_at_now_ > stuck_limit_) [[unlikely]]
            clock_stuck();
        if constexpr (Motion::has_field) {
            if (events_at_now_ == 2 * long_instant_ && rest_.on()) [[unlikely]] {
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

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::reset_tally() {
    sliding_.restart_thermostat(); // (the collision count restarts)
    reset_counts(now_);
    reset_fluxes();
    ledger_ = ledger(); // the drag integral starts again from zero
    collision_energy_since_check_ = 0.0;
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::check_conservation() {
    const Ledger<D> now = ledger();
    check_ledger(ledger_, now, momentum_conserved_, origin_ + now_);
    ledger_ = now;
    collision_energy_since_check_ = 0.0;
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::save(ArchiveWriter& out) const {
    out.tag(archive_tag);
    save_configuration(out, box_, particles_);
    out.tag(archive_tag + 1);
    const_cast<Engine&>(*this).fields(out); // (the writer only reads)
}

template <int D, Calendar Cal, Motion<D> Motion>
auto Engine<D, Cal, Motion>::restore(ArchiveReader& in, Settings settings, Motion motion)
    -> Engine {
    in.expect(archive_tag, "start");
    auto [box, particles] = restore_configuration<D>(in);
    in.expect(archive_tag + 1, "particles");
    Engine e(std::move(box), std::move(particles), settings, motion, Unscheduled{});
    const Shape shape = e.shape();
    e.fields(in);
    e.check_restored(shape);
    return e;
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::retire() {
    if (retired_) return;
    retired_bytes_ = memory_bytes();
    retired_ = true;
    calendar_ = Cal(0);
    schedule_ = FastVector<Schedule>();
    cells_.release();
    for (auto& g : upper_) g.release();
    obstacles_.triangles().release();
    last_partner_ = std::vector<std::uint32_t>();
}

template <int D, Calendar Cal, Motion<D> Motion>
Engine<D, Cal, Motion>::Engine(Box<D> box, Particles<D> particles, Settings settings, Motion motion,
                               Unscheduled)
    : box_(std::move(box)), particles_(std::move(particles)), settings_(settings),
      // sliding boundaries look across the face from one grid (scan_sliding)
      motion_(motion),
      levels_(cell_levels_of(box_, particles_, box_.sheared() ? 0.0 : settings_.level_ratio)),
      cells_(box_, levels_.min_width(0), levels_.listed(0), particles_.size()),
      calendar_(particles_.size()), schedule_(particles_.size()),
      last_partner_(particles_.size(), none), id_(particles_.size()) {
    for (std::size_t l = 1; l < levels_.size(); ++l)
        upper_.emplace_back(box_, levels_.min_width(l), levels_.listed(l), particles_.size());
    obstacles_.set_up(box_, cells_, particles_.table);
    contact_tolerance_ = contact_tolerance_for(box_, particles_.table);
    emission_ = ThermalEmission<D>(settings_.thermal_seed);
    // a group's linear system knows restitution, not re-emission
    if (settings_.epsilon > 0.0 && std::any_of(box_.walls.begin(), box_.walls.end(),
                                               [](const Wall<D>& w) { return w.thermal(); }))
        throw std::invalid_argument("Engine: thermal walls need epsilon = 0");
    // r < sigma (1 - tol)  <=>  c < -sigma^2 (1 - (1 - tol)^2)
    overlap_c_ = 1.0 - (1.0 - contact_tolerance_) * (1.0 - contact_tolerance_);
    // (the rest model's rescue of a stall reads the TC clock too)
    if (settings_.tc > 0.0 || (Motion::has_field && settings_.rest_speed > 0.0)) {
        last_collision_.assign(particles_.size(), -never);
        if (settings_.tc_from_start) tc_ = settings_.tc;
    }
    restitution_ = RestitutionTable(settings_, particles_.table.size(), "Engine");
    stuck_limit_ = stuck_events_per_particle * std::uint64_t{particles_.size()} + stuck_events_base;
    if constexpr (Motion::has_field)
        long_instant_ =
            plastic_events_per_particle * std::uint64_t{particles_.size()} + plastic_events_base;
    momentum_conserved_ =
        !Motion::has_field && box_.walls.empty() && box_.segments.empty() &&
        box_.triangles.empty() &&
        std::all_of(box_.periodic.begin(), box_.periodic.end(), [](bool p) { return p; });
    fluxes_ = momentum_conserved_; // (the streaming sums need straight flights)
    if (box_.sheared()) {
        sliding_.set_up(box_, cells_, levels_.size(), !Motion::has_field, settings_, now_);
        momentum_conserved_ = false; // the sliding boundary pushes the fluid along x
        fluxes_ = true;              // for shear_moment (straight flights, no walls)
    }
    set_up_glides();
    if (settings_.rest_speed > 0.0) set_up_rest();
    maintain_every_ = settings_.maintain_every > 0
                          ? settings_.maintain_every
                          : std::max<std::uint64_t>(4 * std::uint64_t{particles_.size()}, 1u << 16);
}

} // namespace choc

#include "choc/kernel/engine/kernel.hpp"

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
