// The engine's maintenance (docs/ARCHITECTURE.md, "The engine's parts"), every
// maintain_every_ events: the invariants checked (the ledger's conservation:
// check_conservation), the clock's origin moved to now (rebase) and the particles
// renumbered in cell order (renumber). Members of Engine, defined apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::maintain() {
    since_maintenance_ = 0;
    end_instant(); // (the rest model's wakes waiting for it hold indices: renumber moves them)
    check_conservation();
#ifndef NDEBUG
    // debug builds: every pair, O(N) with a cell grid
    Particles<D> at_now = particles_; // max_overlap extrapolates straight lines
    for (auto& p : at_now.state) p.x = motion_.position(p, now_), p.t = now_;
    const double worst = max_overlap(box_, at_now, now_);
    if (worst > invariants_.contact_tolerance())
        invariant_violated("overlap", origin_ + now_,
                           fmt::format("a pair or wall overlaps by {:.3g}", worst));
#endif
    rebase();
    renumber();
}

// Renumbers the particles in cell order (cells in memory order, i.e. x fastest).
// Every per-particle array and every stored index moves with them, and every calendar
// entry is set anew. O(N log N), done every `maintain_every_` events: a small fraction.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::renumber() {
    const auto n = static_cast<std::uint32_t>(particles_.size());
    const std::vector<std::uint32_t> order = grids_.cell_order(n); // old index of new k
    std::vector<std::uint32_t> renamed(n);                         // old index -> new index
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
    clocks_.renumbered(permute);
    glides_.renumbered(permute);
    permute(id_);
    for (auto& s : schedule_)
        for (PairCandidate* c : {&s.pair, &s.runner_up})
            if (c->partner != none) c->partner = renamed[c->partner];
    for (auto& p : last_partner_)
        if (p != none) p = renamed[p];

    // (renamed is no longer needed: its memory is reused)
    grids_.renumbered(order, renamed, [&](std::uint32_t k) { return level_of(k); });

    // Re-set every entry in place rather than assign a new calendar: Boost 1.74's
    // pairing_heap move assignment drops the old nodes without freeing them.
    for (std::uint32_t k = 0; k < n; ++k) reschedule(k);
}

// Moves the time origin to now so that time stamps stay small and `double` keeps
// its resolution on long runs. Every stored time shifts by the same amount.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::rebase() {
    const double shift = now_;
    if (shift == 0.0) return;
    for (auto& p : particles_.state) p.t -= shift;
    for (auto& s : schedule_) {
        s.pair.time -= shift;
        s.runner_up.time -= shift;
        s.wall_time -= shift;
        s.crossing_time -= shift;
    }
    accounts_.rebase(shift);
    clocks_.rebase(shift);
    group_.resting().shift(shift);
    rest_.rebase(shift);
    calendar_.shift(shift);
    if (sliding_.on()) sliding_.rebase(shift, grids_.cells().counts()[LeesEdwards<D>::flow]);
    origin_ += shift;
    now_ = 0.0;
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
    accounts_.check(ledger(), invariants_.momentum_conserved(), origin_ + now_);
}

} // namespace choc
