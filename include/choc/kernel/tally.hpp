// Running sums the engine keeps over the measured phase: event counts, the collision
// virial, and the kinetic energy per species integrated over time (kinetic energy only
// changes at collisions, so it is piecewise constant between events and its time
// integral is exact). Everything here is O(1) per event.
#pragma once

#include "choc/kernel/archive.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace choc {

struct Tally {
    std::uint64_t collisions = 0; // pair collisions
    std::uint64_t wall_collisions = 0;
    std::uint64_t crossings = 0;        // cell crossings
    std::uint64_t stale = 0;            // calendar entries found out of date and re-predicted
    std::uint64_t rescans = 0;          // ... of them needing a new scan (no valid runner-up)
    std::uint64_t groups = 0;           // simultaneous groups of two or more contacts
    std::uint64_t singular_groups = 0;  // ... with a rank-deficient system
    std::uint64_t fallback_groups = 0;  // ... resolved by the sequential plastic fallback
    std::uint64_t pair_predictions = 0; // candidate pairs whose collision time was computed
    std::uint64_t rests = 0;            // particles put to rest (resting.hpp)
    std::uint64_t wakes = 0;            // ... and woken
    std::uint64_t rest_impacts = 0;     // slow impacts met by a particle at rest as fixed
    std::uint64_t glides = 0;           // glides begun along a floor
    std::uint64_t leans = 0;            // particles put to rest leaning on one at rest
    std::uint64_t rescues = 0;          // stalls stopped (Engine::rescue_stall)
    double virial = 0.0;                // sum over pair collisions of r_ij . dp_i
    double collision_energy = 0.0;      // kinetic energy gained in collisions (<= 0: lost)
    double max_overlap = 0.0;           // worst (sigma - r) / sigma seen at a contact
    double start = 0.0;                 // time the measured phase began
    double rest_energy = 0.0;           // kinetic energy taken by putting particles to rest

    std::vector<double> kinetic;      // current kinetic energy per species
    std::vector<double> kinetic_time; // its integral over time since `start`
    std::vector<double> since;        // when each species' integral was last brought up to date
    // pair collisions per pair of species, [a * species + b] with a <= b
    std::vector<std::uint64_t> pair_collisions;
    // Energy and momentum each plane wall gave the gas (box walls, then [[walls]] planes;
    // the engine sizes them), booked at its one-at-a-time wall collisions: every collision
    // with a thermal wall (they need epsilon = 0), not a wall contact inside a group.
    std::vector<double> wall_heat;
    std::vector<double> wall_momentum; // three entries per wall (x, y, z; z is 0 in 2D)

    std::uint64_t events() const { return collisions + wall_collisions + crossings; }

    void reset(double now, std::vector<double> kinetic_now) {
        *this = Tally{};
        start = now;
        kinetic = std::move(kinetic_now);
        kinetic_time.assign(kinetic.size(), 0.0);
        since.assign(kinetic.size(), now);
        pair_collisions.assign(kinetic.size() * kinetic.size(), 0);
    }

    // A pair collision of species a and b.
    void pair_collision(std::uint32_t a, std::uint32_t b) {
        ++collisions;
        ++pair_collisions[std::min(a, b) * kinetic.size() + std::max(a, b)];
    }

    // Species s changes kinetic energy by dk at time `now`.
    void kinetic_change(std::uint32_t s, double now, double dk) {
        kinetic_time[s] += kinetic[s] * (now - since[s]);
        since[s] = now;
        kinetic[s] += dk;
    }

    // Time integral of species s's kinetic energy from `start` to `now`.
    double kinetic_integral(std::uint32_t s, double now) const {
        return kinetic_time[s] + kinetic[s] * (now - since[s]);
    }

    // The same summed over species.
    double kinetic_integral(double now) const {
        double k = 0.0;
        for (std::uint32_t s = 0; s < kinetic.size(); ++s) k += kinetic_integral(s, now);
        return k;
    }

    void overlap(double value) { max_overlap = std::max(max_overlap, value); }

    // Its checkpoint (archive.hpp); check_restored_tally checks what a reader got.
    template <class Archive>
    void fields(Archive& ar) {
        ar(collisions, wall_collisions, crossings, stale, rescans, groups, singular_groups,
           fallback_groups, pair_predictions, rests, wakes, rest_impacts, glides, leans, rescues,
           virial, collision_energy, max_overlap, start, rest_energy, kinetic, kinetic_time, since,
           pair_collisions, wall_heat, wall_momentum);
    }
};

// What a checkpoint gave the tally (Tally::fields) against the state's species.
inline void check_restored_tally(const Tally& t, std::size_t species) {
    if (t.kinetic.size() != species || t.kinetic_time.size() != species ||
        t.since.size() != species || t.pair_collisions.size() != species * species)
        throw ArchiveError("the state's tally does not match its species");
}

} // namespace choc
