// A particle's flight and its candidate events (docs/ARCHITECTURE.md, "The engine's
// parts"): every candidate event anew after its velocity changed (the plane walls, a
// glide's end, the cell crossing, the other obstacles, the pairs), its flight restarted
// now and brought to now, and a flight too short to move it. Members of Engine, defined
// apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

// After a velocity change: every candidate event of i anew.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::predict_all(std::uint32_t i) {
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
    const auto support = glides_.glide_support(p, i);
    s.wall_time = never;
    if constexpr (Motion::has_field)
        if (support[0] != none) [[unlikely]]
            s.wall_time = now_ + glides_.glide_end_time(kernel(), i, flight_from_now(i)),
            s.wall = glide_end;
    for (std::uint32_t w = 0; w < box_.walls.size(); ++w) {
        if (w == support[0] || w == support[1]) [[unlikely]]
            continue;
        const auto& wall = box_.walls[w];
        const double t =
            now_ + m.first_contact(wall.distance(x) - a, dot(v, wall.normal), m.along(wall.normal));
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
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::predict_finite_walls(std::uint32_t i) {
    if (!obstacles_.any(box_)) return;
    Schedule& s = schedule_[i];
    const ParticleState<D> q = flight_from_now(i);
    const ObstacleFlight<D, Motion> f{
        q,    flight_motion(q), particles_.radius(i),       grids_.cells().cell_of(i),
        now_, s.crossing_time,  glides_.glide_support(q, i)};
    obstacles_.predict(box_, grids_.cells(), f, {s.wall_time, s.wall});
}

// Particle i's flight restarted now: its position and velocity now, time stamp 0 (the
// form segment_time.hpp and triangle_time.hpp take).
template <int D, Calendar Cal, Motion<D> Motion>
inline ParticleState<D> Engine<D, Cal, Motion>::flight_from_now(std::uint32_t i) const {
    ParticleState<D> q = particles_.state[i];
    q.x = motion_.position(particles_.state[i], now_);
    q.v = motion_.velocity(particles_.state[i], now_);
    q.t = 0.0;
    return q;
}

// Brings particle i to now along its flight. Under a field its kinetic energy changed
// along the way: the flight's share of the measured phase goes to the time integral.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::advance(std::uint32_t i) {
    auto& p = particles_.state[i];
    if constexpr (Motion::has_field) {
        accounts_.tally().kinetic_time[p.species] +=
            accounts_.open_flight_kinetic(particles_, i, flight_motion(p), now_);
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
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::too_short(const ParticleState<D>& p) const {
    if (p.resting()) return false;
    double x = 0.0, v = 0.0;
    for (int a = 0; a < D; ++a)
        x = std::max(x, std::abs(p.x[a])), v = std::max(v, std::abs(p.v[a]));
    return v * (now_ - p.t) < 0.5 * std::numeric_limits<double>::epsilon() * x;
}

} // namespace choc
