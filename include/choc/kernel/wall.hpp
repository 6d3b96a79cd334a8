// A plane wall, the obstacle every other one is reduced to at its contact.
#pragma once

#include "choc/kernel/vec.hpp"

namespace choc {

// A plane wall: particles live on the side the unit normal points to.
// A particle of radius a touches it when dot(x, normal) - offset == a.
template <int D>
struct Wall {
    Vec<D> normal;       // unit, pointing into the allowed region
    double offset = 0.0; // dot(point on the plane, normal)
    double restitution = 1.0;

    double distance(const Vec<D>& x) const { return dot(x, normal) - offset; }
};

} // namespace choc
