// Lattice sites filling a box: fcc and sc (3D), hex and square (2D).
//
// The lattice is built from a rectangular unit cell (cubic for fcc/sc/square, 1 x sqrt(3)
// for hex, holding two rows) repeated n_a times along each axis, with the n_a chosen so
// that there are at least N sites and the cells are as close to their ideal shape as
// the box allows. On a periodic axis the sites are spaced L/n_a per cell, so the lattice
// continues through the boundary; on a walled axis the outermost sites sit one largest
// radius (plus a small margin) from the walls and the rest are spread evenly between.
// With more sites than particles a random subset is kept, so vacancies are scattered.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"

#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace choc {

// True for the lattice names valid in D dimensions ("fcc", "sc" in 3D; "hex", "square" in 2D).
template <int D>
bool is_lattice(const std::string& name);

// n sites of `lattice` in `box` (lengths and periodic axes are used, walls are not), in
// lattice order. `max_radius` is the largest particle radius; `volume_sum` the summed
// particle volumes (for the packing fraction quoted in messages); `key` is the config key
// that fixed the box ("box.packing_fraction" or "box.size"). Throws InputError naming
// `key` when neighbouring sites are closer than one largest diameter, with the largest
// packing fraction this lattice allows for these particles.
template <int D>
std::vector<Vec<D>> lattice_sites(const std::string& lattice, const Box<D>& box, std::size_t n,
                                  double max_radius, double volume_sum, const std::string& key,
                                  std::mt19937_64& rng);

extern template bool is_lattice<2>(const std::string&);
extern template bool is_lattice<3>(const std::string&);
extern template std::vector<Vec<2>> lattice_sites<2>(const std::string&, const Box<2>&, std::size_t,
                                                     double, double, const std::string&,
                                                     std::mt19937_64&);
extern template std::vector<Vec<3>> lattice_sites<3>(const std::string&, const Box<3>&, std::size_t,
                                                     double, double, const std::string&,
                                                     std::mt19937_64&);

} // namespace choc
