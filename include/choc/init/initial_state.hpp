// Builds the starting box and particles from a Config: lattice or random placement (or a
// snapshot from init.from), species mixed at random over the sites, velocities with zero
// total momentum and the exact requested temperature per species.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/run/config.hpp"

namespace choc {

template <int D>
struct InitialState {
    Box<D> box; // lengths, periodic axes, box walls and [[walls]]
    Particles<D> particles;
    double time = 0.0; // the clock of the start: init.from's Time, else 0
};

// Throws InputError (naming the key) for an impossible start: packing fraction above what
// the lattice allows, a particle larger than the box, an overlapping configuration, a
// snapshot that does not match the config.
template <int D>
InitialState<D> make_initial_state(const Config& config);

extern template InitialState<2> make_initial_state<2>(const Config&);
extern template InitialState<3> make_initial_state<3>(const Config&);

} // namespace choc
