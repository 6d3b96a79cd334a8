// The engine's accounts (docs/ARCHITECTURE.md, "The engine's parts"; tally.hpp,
// flux_tally.hpp): the kinetic energy and its time integral per species, the collisions'
// energy, the momentum and energy flux integrals, and their reset at the start of the
// measured phase. Members of Engine, defined apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

// Time integral of species s's kinetic energy over the measured phase, up to now.
// Without a field the tally keeps it in O(1); with one, the flights not yet ended are
// added up here, O(N).
template <int D, Calendar Cal, Motion<D> Motion>
inline double Engine<D, Cal, Motion>::kinetic_integral(std::uint32_t s) const {
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
template <int D, Calendar Cal, Motion<D> Motion>
inline double Engine<D, Cal, Motion>::kinetic(std::uint32_t s) const {
    if constexpr (!Motion::has_field) {
        return tally_.kinetic[s];
    } else {
        return species_kinetic(particles_, motion_, now_, s);
    }
}

template <int D, Calendar Cal, Motion<D> Motion>
inline double Engine<D, Cal, Motion>::kinetic_integral() const {
    double k = 0.0;
    for (std::uint32_t s = 0; s < particles_.table.size(); ++s) k += kinetic_integral(s);
    return k;
}

// ∫ KE dt of particle i's flight from its stamp (or the start of the measured phase,
// if later) to now. (Straight flights keep it in the tally instead.)
template <int D, Calendar Cal, Motion<D> Motion>
inline double
Engine<D, Cal, Motion>::open_flight_kinetic(std::uint32_t i) const requires Motion::has_field {
    const auto& p = particles_.state[i];
    const double from = std::max(tally_.start - p.t, 0.0), to = now_ - p.t;
    return to > from ? 0.5 * particles_.mass(i) * flight_motion(p).speed2_integral(p.v, from, to)
                     : 0.0;
}

// Particle i's velocity is about to change at now: the flux integrals up to now, and
// its share of the streaming sums out (the caller puts the new one in).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::flux_leave(std::uint32_t i) {
    flux_.advance(now_);
    flux_.add(particles_.mass(i), particles_.state[i].v, -1.0);
}

// The tally from zero at `now`, with a heat and a momentum account per plane wall.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::reset_counts(double now) {
    tally_.reset(now, kinetic_per_species());
    tally_.wall_heat.assign(box_.walls.size(), 0.0);
    tally_.wall_momentum.assign(3 * box_.walls.size(), 0.0);
}

// The flux integrals from zero at now, the streaming sums from the particles.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::reset_fluxes() {
    flux_.reset(now_);
    if (!fluxes_) return;
    for (std::uint32_t i = 0; i < particles_.size(); ++i)
        flux_.add(particles_.mass(i), particles_.state[i].v, 1.0);
    if (sliding_.on()) sliding_.reset_accounts(particles_, now_);
}

// A collision at now changed species s's kinetic energy by dk. Without a field kinetic
// energy is constant between collisions and the tally integrates it per species; with
// one, `advance` integrates each flight instead.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::kinetic_change(std::uint32_t s, double dk) {
    tally_.collision_energy += dk;
    collision_energy_since_check_ += dk;
    if constexpr (!Motion::has_field) tally_.kinetic_change(s, now_, dk);
}

// The tallies, the flux integrals and the ledger from zero now: the measured phase starts.
template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::reset_tally() {
    sliding_.restart_thermostat(); // (the collision count restarts)
    reset_counts(now_);
    reset_fluxes();
    ledger_ = ledger(); // the drag integral starts again from zero
    collision_energy_since_check_ = 0.0;
}

} // namespace choc
