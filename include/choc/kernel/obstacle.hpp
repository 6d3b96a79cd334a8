// Obstacle numbers: one number names anything a particle can meet that is not a
// particle. The plane walls are 0 .. walls.size() - 1, then each kind of obstacle
// registered in engine/obstacles.hpp (Obstacles<D>::Kinds) takes the numbers it says it
// takes, from an offset, in the order listed: three per segment (its faces, its `from`
// end, its `to` end: segment k's part is walls.size() + 3k + part), then one per triangle
// (triangle k is walls.size() + 3 segments.size() + k). The numbers are in checkpoints
// (the schedule's wall events, the glide table's slots): a new kind goes last.
// Every contact with one is met as a plane: a plane wall as it is, a segment's face or end
// point, or a triangle's face, edge or vertex, as its tangent plane at the contact of a
// particle centred at x. Reflection, overlap and the group rule then need nothing else.
// (A triangle needs no part in its number: the part nearest to x has the same tangent
// plane where two parts meet.)
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <cstdint>

namespace choc {

// The plane of obstacle `number` at the contact of a particle centred at x.
template <int D>
Wall<D> obstacle_plane(const Box<D>& box, std::uint32_t number, const Vec<D>& x) {
    return Obstacles<D>::plane(box, number, x);
}

template <int D>
double obstacle_restitution(const Box<D>& box, std::uint32_t number) {
    return Obstacles<D>::restitution(box, number);
}

// Whether a particle of velocity v touching `plane` (a wall, or an obstacle's tangent
// plane) is separating from it: moving away faster than round-off of its speed
// (separating_tolerance), or at rest against it with the field pulling it away.
template <int D, class Motion>
bool separating_from(const Wall<D>& plane, const Vec<D>& v, const Motion& motion) {
    const double u = dot(v, plane.normal); // < 0: moving into the plane
    return u > separating_tolerance * norm(v) || (u == 0.0 && motion.along(plane.normal) > 0.0);
}

} // namespace choc
