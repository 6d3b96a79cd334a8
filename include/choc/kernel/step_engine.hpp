// Time-step-and-rewind hard spheres: the time-stepped model EDMD is measured against
// (run.integrator = "timestep"; docs/ARCHITECTURE.md, "The stepped engine"). One step
// [T0, T1 = T0 + dt]:
//
//   move every particle along its exact free flight to T1 (motions.hpp: gravity and drag
//     as in the event-driven engine)
//   pass 1 .. passes:
//     find, with the cell grid, every pair that overlaps at T1 and is approaching
//       (r.v < 0), and every particle overlapping a wall or a segment and moving into it
//     give each its contact time tc: the first contact of the flights as they are now,
//       looked for from w, the later of the step's start and the last collision of either
//       particle in this step (their present flights began there) -- the kernel's own
//       pair_time, first_contact and segment times; w itself when they overlap already
//       then (a pair the passes of an earlier step left overlapping)
//     in order of tc, and each particle at most once per pass: take both back to tc,
//       apply the binary rule (or the reflection) with its restitution, move them on to T1
//     stop early when a pass finds nothing
//   what the last pass leaves is counted (SteppingTally) and met again in the next step
//
// No simultaneous groups (collisions.epsilon is refused with this engine), no event
// calendar: a collision that begins and ends within one step is never seen, and two that
// a particle should make in one step take two passes. Those are the model's errors, which
// the run's summary measures against an EDMD run of the same start.
//
// The interface is the event-driven engine's (engine.hpp) where the run needs it, so that
// one MeasuredPhase and one LiveRun drive both; `exact` tells them apart (overlaps are
// part of this model, so the run's overlap invariant is not checked against it). The
// energy and momentum invariants are: every binary rule and reflection conserves them
// (or loses exactly what its restitution says) wherever it is applied.
//
// The steps lie on a fixed grid start + k dt. The run may stop between two grid points
// (a sample, a block edge, its end): the particles stay at the last step's end and the
// state between is their free flight (snapshot), so where the run stops never changes
// the steps it takes. Kinetic-energy integrals are kept exactly along the flights as
// resolved: each step adds every particle's flight over the step, and each collision
// replaces the part of the two flights after tc.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/audit.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/collide.hpp"
#include "choc/kernel/configuration_archive.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/engine/tc_clocks.hpp"
#include "choc/kernel/engine_concept.hpp"
#include "choc/kernel/engine_settings.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/segment_time.hpp"
#include "choc/kernel/step_grid.hpp"
#include "choc/kernel/tally.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace choc {

// What stepping costs, over the measured phase.
struct SteppingTally {
    std::uint64_t steps = 0;  // steps taken
    std::uint64_t passes = 0; // overlap passes run (at most passes per step)
    // Contacts (pairs, walls, segments) still overlapping and approaching when a step's
    // passes ran out, summed over steps: collisions the step has not resolved. (The worst
    // overlap found at a step's end, before its passes, is the tally's max_overlap.)
    std::uint64_t unresolved = 0;
};

template <int D, Motion<D> M = Ballistic<D>>
class StepEngine {
  public:
    using Settings = EngineSettings;
    using MotionT = M;
    // Overlaps are part of this model: the run does not check them as an invariant.
    static constexpr bool exact = false;
    // No flux integrals (the transport observers need the event-driven engine).
    static constexpr bool keeps_fluxes = false;

    enum class Stop { time, collisions, budget, no_events };

    StepEngine(Box<D> box, Particles<D> particles, Settings settings, M motion = {});

    // Steps while the next step's end is no later than `until` (absolute), stopping once
    // the measured phase has `collision_limit` pair collisions (checked between steps) or
    // after about `budget` particle moves. After Stop::time the clock reads `until`.
    Stop run(double until, std::uint64_t collision_limit, std::uint64_t budget);

    void reset_tally();

    void check_conservation() {
        const Ledger<D> now = ledger();
        check_ledger(ledger_, now, momentum_conserved_, now_);
        ledger_ = now;
        collision_energy_since_check_ = 0.0;
    }

    // The energy now against the start of the measured phase's plus what collisions gained
    // and drag took since, relative to the energy's scale: round-off when every collision
    // is applied as the rules say.
    double energy_error() const {
        const Ledger<D> now = ledger();
        const double expected = energy_at_reset_ + tally_.collision_energy - now.drag_work;
        return std::abs(now.energy - expected) / std::max(now.energy_scale, energy_scale_at_reset_);
    }

    // Pairs that overlap now (at the last step's end), whether approaching or not.
    std::uint64_t overlapping_pairs() const;

    // No round-off rule to hold contacts to: overlaps are measured, not checked.
    double contact_tolerance() const { return never; }
    double time() const { return now_; }
    double measured_time() const { return now_ - tally_.start; }
    const Box<D>& box() const { return box_; }
    const Particles<D>& particles() const { return particles_; }
    std::uint32_t id(std::uint32_t i) const { return i; }
    const Tally& tally() const { return tally_; }
    const SteppingTally& stepping() const { return stepping_; }
    std::uint64_t processed() const { return processed_; }
    double dt() const { return settings_.dt; }
    std::uint32_t passes() const { return settings_.passes; }
    void enable_tc() { clocks_.enable(settings_.tc); }
    // The rest of the run engines' interface (engine_concept.hpp), which fixed steps need
    // not: no flight is too short to count (the collapse watch watches the event-driven
    // engine only), no stall to rescue (no rest model), nothing the final outputs need the
    // memory of (the grid is rebuilt at every pass).
    std::uint64_t short_flights() const { return 0; }
    void rescue_stall(double) {}
    void retire() {}

    // The particles in the caller's order (the stepped engine never renumbers), along
    // their free flights to absolute time t.
    Particles<D> snapshot(double t) const {
        Particles<D> out;
        out.table = particles_.table;
        out.state = particles_.state;
        for (auto& p : out.state) motion_.advance(p, t);
        return out;
    }
    // Particle i's state advanced to time `t` (the element `snapshot` gives).
    ParticleState<D> state_at(std::uint32_t i, double t) const {
        auto p = particles_.state[i];
        motion_.advance(p, t);
        return p;
    }
    Vec<D> position(std::uint32_t i, double t) const { return state_at(i, t).x; }
    // Calls f(i, p) for every particle with its state at time `t`, without a copy of them
    // all (Engine::visit). The order is the caller's.
    template <class F>
    void visit(double t, F&& f) const {
        for (std::uint32_t i = 0; i < particles_.size(); ++i) f(i, state_at(i, t));
    }
    template <class F>
    void visit_in_order(double t, F&& f) const {
        visit(t, f);
    }

    double kinetic_integral(std::uint32_t s) const {
        return kinetic_time_[s] + open_kinetic_integral(s, stepped_to_, now_);
    }
    double kinetic_integral() const {
        double k = 0.0;
        for (std::uint32_t s = 0; s < particles_.table.size(); ++s) k += kinetic_integral(s);
        return k;
    }
    double kinetic(std::uint32_t s) const { return species_kinetic(particles_, motion_, now_, s); }

    // --- Checkpoints: everything the future steps depend on. The grid is not stored: it
    // is rebuilt at every pass, and a pass sorts what it finds by (time, particles).
    void save(ArchiveWriter& out) const;

    static StepEngine restore(ArchiveReader& in, Settings settings, M motion = {});

  private:
    // What follows from the box, the particles and the settings, the particles taken as
    // they are (a restored state's stand at their step's end already).
    struct Restored {};
    StepEngine(Box<D> box, Particles<D> particles, Settings settings, M motion, Restored);

    static constexpr std::uint32_t archive_tag = 0x50455453; // "STEP"
    // The engine's one field list (archive.hpp), after the box and the particles.
    template <class Archive>
    void fields(Archive& ar) {
        clocks_.fields(ar);
        ar(steps_, now_, stepped_to_, floor_, kinetic_time_, tally_, stepping_.steps,
           stepping_.passes, stepping_.unresolved, ledger_, energy_at_reset_,
           energy_scale_at_reset_, wrapped_potential_, collision_energy_since_check_, processed_);
        ar.section(archive_tag + 2, "clocks");
    }
    static constexpr std::uint32_t no_partner = std::numeric_limits<std::uint32_t>::max();

    // A contact found overlapping at a step's end: a pair (i, j), or particle i and
    // obstacle `obstacle` (obstacle.hpp) when j is no_partner.
    struct Found {
        double time;
        std::uint32_t i, j, obstacle;
        bool operator<(const Found& o) const {
            return std::tie(time, i, j, obstacle) < std::tie(o.time, o.i, o.j, o.obstacle);
        }
    };

    double step_end(std::uint64_t k) const { return static_cast<double>(k) * settings_.dt; }

    void step(double t1) {
        const double t0 = stepped_to_;
        const double from = std::max(t0, floor_); // no collision goes before the phase began
        // every flight over the step as it stands; collisions correct their part after tc
        for (std::uint32_t s = 0; s < kinetic_time_.size(); ++s)
            kinetic_time_[s] += open_kinetic_integral(s, from, t1);
        for (std::uint32_t i = 0; i < particles_.size(); ++i) {
            motion_.advance(particles_.state[i], t1);
            wrap(i);
            since_[i] = from;
        }
        stepped_to_ = t1;
        now_ = std::max(now_, t1);
        ++steps_;
        ++stepping_.steps;
        processed_ += std::max<std::uint64_t>(particles_.size(), 1);

        scan_.clear();
        for (std::uint32_t i = 0; i < particles_.size(); ++i) scan_.push_back(i);
        for (std::uint32_t pass = 0; pass < settings_.passes && !scan_.empty(); ++pass) {
            find(pass == 0, t1);
            if (found_.empty()) return;
            ++stepping_.passes;
            resolve(t1);
        }
        // the passes ran out: what a further pass would have found stays unresolved
        if (!scan_.empty()) {
            find(false, t1);
            stepping_.unresolved += found_.size();
        }
    }

    // Every contact overlapping and approaching at t1 that involves a particle of scan_
    // (all of them on the first pass: also the worst overlap of the step).
    void find(bool first, double t1) {
        found_.clear();
        ++generation_;
        for (const std::uint32_t i : scan_) mark_[i] = generation_;
        grid_.build(particles_);
        auto pair = [&](std::uint32_t i, std::uint32_t j, const Vec<D>& r) {
            const double s2 = sigma2(i, j), r2 = norm2(r);
            if (!(r2 < s2)) return;
            if (first) {
                const double sigma = std::sqrt(s2);
                note_overlap((sigma - std::sqrt(r2)) / sigma);
            }
            if (dot(r, particles_.state[i].v - particles_.state[j].v) < 0.0)
                found_.push_back({pair_contact(i, j, t1), std::min(i, j), std::max(i, j), 0});
        };
        if (first)
            grid_.each_pair(pair);
        else
            for (const std::uint32_t i : scan_)
                grid_.each_neighbour(i, particles_.state[i].x,
                                     [&](std::uint32_t j, const Vec<D>& r) {
                                         // both in scan_: from the lower index only
                                         if (mark_[j] != generation_ || i < j) pair(i, j, r);
                                     });
        for (const std::uint32_t i : scan_) {
            const auto& p = particles_.state[i];
            const double a = particles_.radius(i);
            for (std::uint32_t w = 0; w < box_.walls.size(); ++w) {
                const auto& wall = box_.walls[w];
                const double h = wall.distance(p.x);
                if (!(h < a)) continue;
                if (first) note_overlap((a - h) / a);
                if (dot(p.v, wall.normal) < 0.0)
                    found_.push_back({wall_contact(i, wall, t1), i, no_partner, w});
            }
            for (std::uint32_t k = 0; k < box_.segments.size(); ++k) {
                const auto& seg = box_.segments[k];
                const double h = seg.distance(p.x);
                if (!(h < a)) continue;
                if (first) note_overlap((a - h) / a);
                const int part = seg.nearest_part(p.x);
                if (dot(p.v, seg.contact_plane(part, p.x).normal) < 0.0)
                    found_.push_back({segment_contact(i, seg, t1), i, no_partner,
                                      Obstacles<D>::template first<SegmentObstacles<D>>(box_) +
                                          SegmentObstacles<D>::number(k, Segment<D>::face)});
            }
        }
        std::sort(found_.begin(), found_.end());
    }

    // The found contacts in order of time, each particle at most once; scan_ becomes the
    // particles that collided (only they can have made new contacts).
    void resolve(double t1) {
        ++generation_;
        scan_.clear();
        for (const Found& f : found_) {
            if (mark_[f.i] == generation_) continue;
            if (f.j != no_partner && mark_[f.j] == generation_) continue;
            if (f.j != no_partner) {
                collide_pair(f.i, f.j, f.time, t1);
                mark_[f.j] = generation_;
                scan_.push_back(f.j);
            } else {
                collide_obstacle(f.i, f.obstacle, f.time, t1);
            }
            mark_[f.i] = generation_;
            scan_.push_back(f.i);
        }
    }

    // Contact time of a pair overlapping and approaching at t1 (see the top of the file).
    double pair_contact(std::uint32_t i, std::uint32_t j, double t1) const {
        const double w = std::max(since_[i], since_[j]);
        const auto& a = particles_.state[i];
        const auto& b = particles_.state[j];
        const Vec<D> r = nearest_image(motion_.position(a, w) - motion_.position(b, w));
        const Vec<D> v = motion_.velocity(a, w) - motion_.velocity(b, w);
        const double s2 = sigma2(i, j);
        if (norm2(r) <= s2) return w;
        const double tau = motion_.pair_time(r, v, s2, t1 - w);
        return tau <= t1 - w ? w + tau : t1; // (never only by round-off: the pair met by t1)
    }

    double wall_contact(std::uint32_t i, const Wall<D>& wall, double t1) const {
        const double w = since_[i];
        const auto& p = particles_.state[i];
        const double gap = wall.distance(motion_.position(p, w)) - particles_.radius(i);
        if (gap <= 0.0) return w;
        const double tau = motion_.first_contact(gap, dot(motion_.velocity(p, w), wall.normal),
                                                 motion_.along(wall.normal));
        return tau <= t1 - w ? w + tau : t1;
    }

    double segment_contact(std::uint32_t i, const Segment<D>& seg, double t1) const {
        const double w = since_[i];
        const double a = particles_.radius(i);
        ParticleState<D> q = particles_.state[i];
        motion_.advance(q, w);
        if (seg.distance(q.x) <= a) return w;
        q.t = 0.0; // the segment times count from the state's own stamp
        double tau = face_time(motion_, seg, q, a);
        for (const int part : {Segment<D>::from_end, Segment<D>::to_end})
            tau = std::min(tau, end_time(motion_, seg.end(part), q, a, t1 - w));
        return tau <= t1 - w ? w + tau : t1;
    }

    void collide_pair(std::uint32_t i, std::uint32_t j, double tc, double t1) {
        auto& a = particles_.state[i];
        auto& b = particles_.state[j];
        motion_.advance(a, tc);
        motion_.advance(b, tc);
        const Vec<D> vi = a.v, vj = b.v;
        const double mi = particles_.mass(i), mj = particles_.mass(j);
        const auto impulse = binary_collision(nearest_image(a.x - b.x), a.v, b.v, mi, mj,
                                              pair_restitution(i, j, tc));
        tally_.virial += impulse.virial;
        tally_.pair_collision(a.species, b.species);
        changed_flight(i, vi, tc, t1);
        changed_flight(j, vj, tc, t1);
        finish_flight(i, tc, t1);
        finish_flight(j, tc, t1);
    }

    void collide_obstacle(std::uint32_t i, std::uint32_t obstacle, double tc, double t1) {
        auto& p = particles_.state[i];
        motion_.advance(p, tc);
        const Vec<D> v = p.v;
        Wall<D> plane;
        if (obstacle < box_.walls.size()) {
            plane = box_.walls[obstacle];
        } else { // the part of the segment nearest at the contact
            const auto& seg =
                box_.segments[(obstacle - Obstacles<D>::template first<SegmentObstacles<D>>(box_)) /
                              3];
            plane = seg.contact_plane(seg.nearest_part(p.x), p.x);
        }
        if (clocks_.elastic_at(i, tc)) plane.restitution = 1.0;
        wall_collision(plane, p.v, particles_.mass(i));
        ++tally_.wall_collisions;
        changed_flight(i, v, tc, t1);
        finish_flight(i, tc, t1);
    }

    // i's velocity at tc changed from `before` to its state's: the kinetic energy's jump
    // and its integral over the rest of the step, [tc, t1], move with it.
    void changed_flight(std::uint32_t i, const Vec<D>& before, double tc, double t1) {
        const auto& p = particles_.state[i];
        const double m = particles_.mass(i);
        const double dk = kinetic_energy(m, p.v) - kinetic_energy(m, before);
        tally_.collision_energy += dk;
        collision_energy_since_check_ += dk;
        kinetic_time_[p.species] +=
            0.5 * m * (speed2_integral(p.v, t1 - tc) - speed2_integral(before, t1 - tc));
        clocks_.collided(i, tc);
    }

    void finish_flight(std::uint32_t i, double tc, double t1) {
        motion_.advance(particles_.state[i], t1);
        since_[i] = tc;
        wrap(i);
    }

    double pair_restitution(std::uint32_t i, std::uint32_t j, double tc) const {
        if (clocks_.elastic_at(i, tc) || clocks_.elastic_at(j, tc)) return 1.0;
        return clocks_.table(particles_.state[i].species, particles_.state[j].species);
    }

    // Every particle at rest with no field to move it: nothing will happen again.
    bool at_rest_for_ever() const {
        if constexpr (M::has_field) return false;
        for (const auto& p : particles_.state)
            if (p.v != Vec<D>{}) return false;
        return true;
    }

    // ∫|v|² over τ from a flight's start at velocity v.
    double speed2_integral(const Vec<D>& v, double tau) const {
        if constexpr (M::has_field)
            return motion_.speed2_integral(v, 0.0, tau);
        else
            return norm2(v) * tau;
    }
    // ∫ KE of species s over [t_from, t_to] along the flights from the last step's end.
    double open_kinetic_integral(std::uint32_t s, double t_from, double t_to) const {
        if (!(t_to > t_from)) return 0.0;
        double k = 0.0;
        for (std::uint32_t i = 0; i < particles_.size(); ++i) {
            const auto& p = particles_.state[i];
            if (p.species != s) continue;
            const Vec<D> v = motion_.velocity(p, t_from);
            k += 0.5 * particles_.mass(i) * speed2_integral(v, t_to - t_from);
        }
        return k;
    }

    std::vector<double> kinetic_per_species() const {
        return choc::kinetic_per_species(particles_, motion_, now_);
    }

    Ledger<D> ledger() const {
        Ledger<D> l = measure_ledger(particles_, motion_, now_, wrapped_potential_,
                                     [this] { return kinetic_integral(); });
        l.collision_energy = collision_energy_since_check_;
        return l;
    }

    // Back into [0, L) on periodic axes; under gravity the potential -m g.x jumps with
    // the position, and the ledger takes the jump back.
    void wrap(std::uint32_t i) {
        auto& x = particles_.state[i].x;
        for (int a = 0; a < D; ++a) {
            if (!box_.periodic[a]) continue;
            const double shift = -box_.length[a] * std::floor(x[a] / box_.length[a]);
            if (shift == 0.0) continue;
            x[a] += shift;
            if (x[a] >= box_.length[a]) x[a] = std::nextafter(box_.length[a], 0.0);
            if constexpr (M::has_field)
                wrapped_potential_ += particles_.mass(i) * motion_.gravity()[a] * shift;
        }
    }

    // The nearest image of a separation of any size (a flight taken back may leave the box).
    Vec<D> nearest_image(Vec<D> r) const {
        for (int a = 0; a < D; ++a)
            if (box_.periodic[a]) r[a] -= box_.length[a] * std::nearbyint(r[a] / box_.length[a]);
        return r;
    }
    Vec<D> separation(std::uint32_t i, std::uint32_t j, const Vec<D>& shift) const {
        return particles_.state[i].x - particles_.state[j].x - shift;
    }
    double sigma2(std::uint32_t i, std::uint32_t j) const {
        return particles_.table.pair_sigma2(particles_.state[i].species,
                                            particles_.state[j].species);
    }
    void note_overlap(double relative) { tally_.overlap(relative); }

    Box<D> box_;
    Particles<D> particles_; // all stamped at stepped_to_
    Settings settings_;
    M motion_;
    TcClocks<D, M> clocks_; // restitution and TC clocks, as the event-driven engine's
    StepGrid<D> grid_;
    std::vector<double> since_;        // when i's present flight began in this step
    std::vector<std::uint64_t> mark_;  // == generation_: in this scan or resolved this pass
    std::uint64_t generation_ = 0;     //
    std::vector<std::uint32_t> scan_;  // particles the next pass looks around
    std::vector<Found> found_;         //
    std::uint64_t steps_ = 0;          // steps since the start (the grid)
    double now_ = 0.0;                 // the clock (>= stepped_to_)
    double stepped_to_ = 0.0;          // the last step's end
    double floor_ = 0.0;               // the measured phase's start
    std::vector<double> kinetic_time_; // ∫KE dt per species, floor_ .. stepped_to_
    Tally tally_;
    SteppingTally stepping_;
    Ledger<D> ledger_;
    double energy_at_reset_ = 0.0, energy_scale_at_reset_ = 0.0;
    double wrapped_potential_ = 0.0;
    double collision_energy_since_check_ = 0.0;
    std::uint64_t processed_ = 0;
    bool momentum_conserved_ = false;
};

// --- The entry points, defined outside the class ----------------------------------------
//
// Not inline, so that a program using one of the engines compiled in the library (below)
// does not compile the stepping again: everything else is reached only through these.

template <int D, Motion<D> M>
StepEngine<D, M>::StepEngine(Box<D> box, Particles<D> particles, Settings settings, M motion)
    : StepEngine(std::move(box), std::move(particles), settings, motion, Restored{}) {
    // all particles at one time stamp: the start's
    for (auto& p : particles_.state) motion_.advance(p, 0.0);
    tally_.reset(0.0, kinetic_per_species());
    ledger_ = ledger();
    energy_at_reset_ = ledger_.energy;
    energy_scale_at_reset_ = ledger_.energy_scale;
}

template <int D, Motion<D> M>
auto StepEngine<D, M>::run(double until, std::uint64_t collision_limit, std::uint64_t budget)
    -> Stop {
    std::uint64_t used = 0;
    // without a time limit, a state that can never change again would step for ever
    if (until == never && at_rest_for_ever()) return Stop::no_events;
    while (true) {
        if (tally_.collisions >= collision_limit) return Stop::collisions;
        const double next = step_end(steps_ + 1);
        if (next > until) {
            now_ = std::max(now_, until);
            return Stop::time;
        }
        if (used >= budget) return Stop::budget;
        step(next);
        used += std::max<std::uint64_t>(particles_.size(), 1);
    }
}

template <int D, Motion<D> M>
void StepEngine<D, M>::reset_tally() {
    floor_ = now_;
    // the integrals run from now: take off the open flights' part up to now
    for (std::uint32_t s = 0; s < kinetic_time_.size(); ++s)
        kinetic_time_[s] = -open_kinetic_integral(s, stepped_to_, now_);
    tally_.reset(now_, kinetic_per_species());
    stepping_ = {};
    ledger_ = ledger();
    energy_at_reset_ = ledger_.energy;
    energy_scale_at_reset_ = ledger_.energy_scale;
    collision_energy_since_check_ = 0.0;
}

template <int D, Motion<D> M>
std::uint64_t StepEngine<D, M>::overlapping_pairs() const {
    StepGrid<D> grid(box_, particles_.table.largest_diameter(), particles_.size());
    grid.build(particles_);
    std::uint64_t count = 0;
    grid.each_pair([&](std::uint32_t i, std::uint32_t j, const Vec<D>& r) {
        if (norm2(r) < sigma2(i, j)) ++count;
    });
    return count;
}

template <int D, Motion<D> M>
void StepEngine<D, M>::save(ArchiveWriter& out) const {
    out.tag(archive_tag);
    save_configuration(out, box_, particles_);
    out.tag(archive_tag + 1);
    const_cast<StepEngine&>(*this).fields(out); // (the writer only reads)
}

template <int D, Motion<D> M>
auto StepEngine<D, M>::restore(ArchiveReader& in, Settings settings, M motion) -> StepEngine {
    in.expect(archive_tag, "start");
    auto [box, particles] = restore_configuration<D>(in);
    in.expect(archive_tag + 1, "particles");
    StepEngine e(std::move(box), std::move(particles), settings, motion, Restored{});
    e.fields(in);
    if (e.clocks_.clocks() != (settings.tc > 0.0 ? e.particles_.size() : 0))
        throw ArchiveError("the state's TC clocks do not match the settings");
    const std::size_t species = e.particles_.table.size();
    check_restored_tally(e.tally_, species);
    if (e.kinetic_time_.size() != species)
        throw ArchiveError("the state's tally does not match its species");
    return e;
}

template <int D, Motion<D> M>
StepEngine<D, M>::StepEngine(Box<D> box, Particles<D> particles, Settings settings, M motion,
                             Restored)
    : box_(std::move(box)), particles_(std::move(particles)), settings_(settings), motion_(motion),
      grid_(box_, particles_.table.largest_diameter(), particles_.size()),
      since_(particles_.size(), 0.0), mark_(particles_.size(), 0) {
    if (!(settings_.dt > 0.0) || settings_.passes == 0)
        throw std::invalid_argument("StepEngine: dt > 0 and passes >= 1 are needed");
    const std::size_t species = particles_.table.size();
    clocks_.set_up(settings_, particles_.size(), species, false, "StepEngine");
    for (const auto& w : box_.walls)
        if (w.thermal())
            throw std::invalid_argument("StepEngine: thermal walls are event-driven only");
    if (!box_.triangles.empty())
        throw std::invalid_argument("StepEngine: triangles are event-driven only");
    momentum_conserved_ =
        !M::has_field && box_.walls.empty() && box_.segments.empty() &&
        std::all_of(box_.periodic.begin(), box_.periodic.end(), [](bool p) { return p; });
    kinetic_time_.assign(species, 0.0);
}

// The stepped engines `choc run` uses (2D or 3D, straight flights or a field) are compiled
// once, in the library (lib/choc/kernel/step_engines.cpp), and linked wherever they are used.
static_assert(RunEngine<StepEngine<3>>); // what the run asks of an engine (engine_concept.hpp)
extern template class StepEngine<2>;
extern template class StepEngine<3>;
extern template class StepEngine<2, Field<2>>;
extern template class StepEngine<3, Field<3>>;

} // namespace choc
