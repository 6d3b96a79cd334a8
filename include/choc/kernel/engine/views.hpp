// What a caller reads of the engine (docs/ARCHITECTURE.md, "The engine's parts"): the
// particles at a time, as a copy or visited one by one (snapshot, visit, visit_in_order,
// state_at), the sliding boundaries' shear moment and drift, and the memory the engine
// holds. Members of Engine, defined apart from the class; they change nothing.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

template <int D, Calendar Cal, Motion<D> Motion>
inline Particles<D> Engine<D, Cal, Motion>::snapshot(double t) const {
    Particles<D> out;
    out.table = particles_.table;
    out.state.resize(particles_.size());
    visit(t, [&](std::uint32_t id, const ParticleState<D>& p) { out.state[id] = p; });
    return out;
}

template <int D, Calendar Cal, Motion<D> Motion>
template <class F>
inline void Engine<D, Cal, Motion>::visit(double t, F&& f) const {
    for (std::uint32_t i = 0; i < particles_.size(); ++i) f(id_[i], state_at(i, t));
}

template <int D, Calendar Cal, Motion<D> Motion>
template <class F>
inline void Engine<D, Cal, Motion>::visit_in_order(double t, F&& f) const {
    std::vector<std::uint32_t> where(particles_.size());
    for (std::uint32_t i = 0; i < particles_.size(); ++i) where[id_[i]] = i;
    for (std::uint32_t k = 0; k < where.size(); ++k) f(k, state_at(where[k], t));
}

template <int D, Calendar Cal, Motion<D> Motion>
inline ParticleState<D> Engine<D, Cal, Motion>::state_at(std::uint32_t i, double t) const {
    ParticleState<D> p = particles_.state[i];
    p.x = motion_.position(p, local(t));
    p.v = motion_.velocity(p, local(t));
    p.t = t;
    return p;
}

template <int D, Calendar Cal, Motion<D> Motion>
inline std::optional<double> Engine<D, Cal, Motion>::shear_moment() const {
    if (!sliding_.on() || !fluxes()) return std::nullopt;
    constexpr int xy = D; // FluxTally's xy component (after the D diagonal ones)
    return sliding_.shear_moment(flux_moments()->momentum[xy], particles_, now_);
}

template <int D, Calendar Cal, Motion<D> Motion>
inline std::optional<double> Engine<D, Cal, Motion>::drift_integral() const {
    if (!sliding_.on()) return std::nullopt;
    return sliding_.drift_integral(now_);
}

template <int D, Calendar Cal, Motion<D> Motion>
inline std::size_t Engine<D, Cal, Motion>::memory_bytes() const {
    if (retired_) return retired_bytes_;
    std::size_t b = held_bytes(particles_.state) + held_bytes(schedule_) + grids_.bytes() +
                    held_bytes(last_partner_) + held_bytes(id_) + clocks_.bytes() + glides_.bytes();
    if constexpr (requires(const Cal& c) { c.bytes(); }) b += calendar_.bytes();
    return b;
}

} // namespace choc
