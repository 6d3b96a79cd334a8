// Random sequential addition: particles are dropped one at a time at uniform random
// positions and a position is kept only when it overlaps nothing placed before and keeps
// clear of every wall. Larger particles go first, since they are the hardest to fit.
// Works up to moderate densities: for equal particles about 0.34 in 3D and 0.52 in 2D
// within its budget of 300 attempts per particle (the process jams at 0.3841 and 0.5472;
// requests above those fail at once). Beyond that it gives up, never hangs.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"

#include <random>
#include <vector>

namespace choc {

// Where centres may go (init.region): the part of the box within [low, high].
template <int D>
struct Region {
    Vec<D> low, high;
};

// Positions for particles with the given radii (result index = input index), inside the
// box (and `region`, if given) and clear of box.walls, box.segments and box.triangles.
// Throws InputError
// naming init.lattice when it cannot place them all within its attempt budget.
template <int D>
std::vector<Vec<D>> random_packing(const Box<D>& box, const std::vector<double>& radius,
                                   std::mt19937_64& rng, const Region<D>* region = nullptr);

extern template std::vector<Vec<2>> random_packing<2>(const Box<2>&, const std::vector<double>&,
                                                      std::mt19937_64&, const Region<2>*);
extern template std::vector<Vec<3>> random_packing<3>(const Box<3>&, const std::vector<double>&,
                                                      std::mt19937_64&, const Region<3>*);

} // namespace choc
