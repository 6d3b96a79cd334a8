// Starting velocities with zero total momentum and each species exactly at its requested
// temperature, kT_s = 2 KE_s / (D N_s) (so kT = m <v_a^2> per component).
//
//   maxwell      Gaussian components of variance kT_s / m_s; each species' mean velocity
//                is subtracted and the rest rescaled so KE_s = D N_s kT_s / 2 exactly.
//   fixed_speed  every particle of a species moves at sqrt(D kT_s / m_s) in a random
//                direction: particles go in pairs with opposite velocities and an odd
//                count adds one triple at 120 degrees in a random plane, so each
//                species' momentum is zero by construction.
//
// A species with a single particle cannot have both zero momentum and a nonzero
// temperature: that particle starts at rest (temperature 0, not the requested one) and a
// warning is logged. kT_s = 0 puts the whole species at rest.
#pragma once

#include "choc/kernel/particles.hpp"

#include <random>
#include <string>
#include <vector>

namespace choc {

// Sets particles.state[i].v for every particle. `kind` is init.velocities ("maxwell" or
// "fixed_speed"; anything else is an InputError naming init.velocities), `temperature`
// holds kT per species (indexed like particles.table).
template <int D>
void assign_velocities(Particles<D>& particles, const std::string& kind,
                       const std::vector<double>& temperature, std::mt19937_64& rng);

extern template void assign_velocities<2>(Particles<2>&, const std::string&,
                                          const std::vector<double>&, std::mt19937_64&);
extern template void assign_velocities<3>(Particles<3>&, const std::string&,
                                          const std::vector<double>&, std::mt19937_64&);

} // namespace choc
