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
    // > 0: a thermal wall at this temperature (thermal_wall.hpp), which re-emits what hits
    // it and ignores `restitution`; 0: a wall that reflects with `restitution`.
    double temperature = 0.0;
    // A thermal wall's own velocity, in its plane: it re-emits in its own frame, so a
    // moving wall drags the gas along (Couette flow between two of them).
    Vec<D> velocity{};

    bool thermal() const { return temperature > 0.0; }

    double distance(const Vec<D>& x) const { return dot(x, normal) - offset; }
};

} // namespace choc
