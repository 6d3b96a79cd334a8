// The engine's cell events (docs/ARCHITECTURE.md, "The event loop" and "The engine's
// parts"): when a particle next leaves its cell, and what its crossing does: the move
// between cells (engine/grids.hpp), a wrap through a periodic face, the new layer scanned,
// the obstacles looked at again. Members of Engine, defined apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::cross(std::uint32_t i) {
    if (!grids_.one()) [[unlikely]]
        return cross_levels(i);
    Schedule& s = schedule_[i];
    Cells<D>& cells = grids_.cells();
    bool wrapped = false;
    const std::uint32_t to = cells.step(cells.cell_of(i), s.axis, s.dir, wrapped);
    if (wrapped && sliding_.on() && s.axis == LeesEdwards<D>::gradient) [[unlikely]]
        return sliding_.reenter(kernel(), i, s.dir);
    if (wrapped) wrap(i, s.axis, s.dir);
    cells.move(i, to);
    ++accounts_.tally().crossings;

    // the layer depends on the crossing just made, so take it before the next one
    cells.layer(to, s.axis, s.dir, grids_.near());
    set_next_crossing(i);
    // segment and triangle predictions look no further than the cell's edge: look again
    predict_finite_walls(i);
    scan_pairs(i, cells, grids_.near());
    // in a row along the sliding face, the window across it moved or is new
    if (sliding_.on()) [[unlikely]]
        sliding_.scan(kernel(), i);
    rest_.rescan_resting(kernel(), i);
    reschedule(i);
}

// Leaving through the top of a periodic axis re-enters at the bottom: the whole
// straight trajectory moves by -L (its time stamp need not change).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::wrap(std::uint32_t i, int axis, int dir) {
    particles_.state[i].x[axis] -= dir * box_.length[axis];
    // the potential -m g.x jumps by m g_a dir L: the ledger takes it back
    if constexpr (Motion::has_field)
        accounts_.wrapped_potential() -=
            particles_.mass(i) * motion_.gravity()[axis] * dir * box_.length[axis];
}

// A crossing of one of i's grids with more than one level (Grids::cross). Its own: the
// new layer of its level, and the coarser particles around it (their nearness is
// counted in this grid). A finer grid's: the cells the step brought near there. A
// periodic face is a face of every grid: i looks at everything again.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::cross_levels(std::uint32_t i) {
    Schedule& s = schedule_[i];
    const std::size_t a = level_of(i), g = s.grid; // (set_next_crossing changes s)
    const auto step = grids_.cross(i, a, g, s.axis, s.dir);
    ++accounts_.tally().crossings;
    if (step == Grids<D>::Step::wrapped) wrap(i, s.axis, s.dir);
    set_next_crossing(i);
    predict_finite_walls(i);
    if (step == Grids<D>::Step::wrapped) {
        scan_levels(i);
    } else if (step == Grids<D>::Step::own) {
        scan_pairs(i, grids_.grid(a), grids_.near());
        scan_coarser(i, a);
    } else {
        scan_pairs(i, grids_.grid(g), grids_.wide());
    }
    rest_.rescan_resting(kernel(), i);
    reschedule(i);
}

// When particle p, in `cell` of `cells`, next leaves it. In a field a particle can turn
// round and leave through the face behind it, so both faces of every axis are tried.
template <int D, Calendar Cal, Motion<D> Motion>
inline auto Engine<D, Cal, Motion>::next_crossing(const Cells<D>& cells, std::uint32_t cell,
                                                  const ParticleState<D>& p) const ->
    typename Cells<D>::Crossing {
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
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::set_next_crossing(std::uint32_t i) {
    Schedule& s = schedule_[i];
    const auto& p = particles_.state[i];
    const auto [best, g] =
        grids_.next_crossing(i, level_of(i), [&](const Cells<D>& cells, std::uint32_t cell) {
            return next_crossing(cells, cell, p);
        });
    s.crossing_time = best.time;
    s.axis = static_cast<std::int8_t>(best.axis);
    s.dir = static_cast<std::int8_t>(best.dir);
    s.grid = static_cast<std::uint8_t>(g);
}

} // namespace choc
