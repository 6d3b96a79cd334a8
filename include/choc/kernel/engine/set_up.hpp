// How an engine is built and retired (docs/ARCHITECTURE.md, "The engine's parts"): its
// tables and limits from the box, the particles and the settings, its particles placed
// in their cells and predicted, and what a finished run frees. Members of Engine, defined
// apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

// The constructors and retire() are entry points: not inline, as run() (engine.hpp).

// The public constructor: the engine of the settings (the private one, below), every
// particle in its cells, renumbered, predicted, and the accounts from zero.
template <int D, Calendar Cal, Motion<D> Motion>
Engine<D, Cal, Motion>::Engine(Box<D> box, Particles<D> particles, Settings settings, Motion motion)
    : Engine(std::move(box), std::move(particles), settings, motion, Unscheduled{}) {
    const auto n = static_cast<std::uint32_t>(particles_.size());
    for (std::uint32_t i = 0; i < n; ++i) id_[i] = i;
    for (std::uint32_t i = 0; i < n; ++i) grids_.place(i, particles_.state[i].x, level_of(i));
    renumber();
    for (std::uint32_t i = 0; i < n; ++i) predict_all(i);
    reset_accounts();
    accounts_.restart_ledger(ledger());
}

// What follows from the box, the particles and the settings alone (Unscheduled).
template <int D, Calendar Cal, Motion<D> Motion>
Engine<D, Cal, Motion>::Engine(Box<D> box, Particles<D> particles, Settings settings, Motion motion,
                               Unscheduled)
    : box_(std::move(box)), particles_(std::move(particles)), settings_(settings),
      // sliding boundaries look across the face from one grid (scan_sliding)
      motion_(motion), grids_(box_, particles_, box_.sheared() ? 0.0 : settings_.level_ratio),
      calendar_(particles_.size()), schedule_(particles_.size()),
      last_partner_(particles_.size(), none), id_(particles_.size()) {
    obstacles_.set_up(box_, grids_.cells(), particles_.table);
    invariants_.set_up(box_, particles_);
    emission_ = ThermalEmission<D>(settings_.thermal_seed);
    // a group's linear system knows restitution, not re-emission
    if (settings_.epsilon > 0.0 && std::any_of(box_.walls.begin(), box_.walls.end(),
                                               [](const Wall<D>& w) { return w.thermal(); }))
        throw std::invalid_argument("Engine: thermal walls need epsilon = 0");
    // (the rest model's rescue of a stall reads the TC clock too)
    clocks_.set_up(settings_, particles_.size(), particles_.table.size(),
                   Motion::has_field && settings_.rest_speed > 0.0);
    // (the streaming sums need straight flights)
    accounts_.keep_fluxes(invariants_.momentum_conserved());
    if (box_.sheared()) {
        sliding_.set_up(box_, grids_.cells(), grids_.size(), !Motion::has_field, settings_, now_);
        // the sliding boundary pushes the fluid along x
        invariants_.momentum_not_conserved();
        accounts_.keep_fluxes(true); // for shear_moment (straight flights, no walls)
    }
    glides_.set_up(box_, motion_, particles_);
    if (settings_.rest_speed > 0.0) rest_.set_up(kernel());
    maintain_every_ =
        settings_.maintain_every > 0
            ? settings_.maintain_every
            : std::max(maintenance_events_per_particle * std::uint64_t{particles_.size()},
                       maintenance_events_min);
}

// The tallies, the flux integrals and the ledger from zero now: the measured phase starts.
template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::reset_tally() {
    sliding_.restart_thermostat(); // (the collision count restarts)
    reset_accounts();
    accounts_.restart_ledger(ledger()); // the drag integral starts again from zero
}

// The tally from zero now, with a heat and a momentum account per plane wall, and the
// flux integrals, their streaming sums from the particles (the sliding boundaries' too).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::reset_accounts() {
    accounts_.reset_counts(now_, kinetic_per_species(particles_, motion_, now_), box_.walls.size());
    accounts_.reset_fluxes(particles_, now_);
    if (accounts_.fluxes_kept() && sliding_.on()) sliding_.reset_accounts(particles_, now_);
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::retire() {
    if (retired_) return;
    retired_bytes_ = memory_bytes();
    retired_ = true;
    calendar_ = Cal(0);
    schedule_ = FastVector<Schedule>();
    grids_.release();
    obstacles_.release();
    last_partner_ = std::vector<std::uint32_t>();
}

} // namespace choc
