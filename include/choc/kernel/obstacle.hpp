// Obstacle numbers: one number names anything a particle can meet that is not a
// particle. The plane walls are 0 .. walls.size() - 1, then three per segment (its faces,
// its `from` end, its `to` end; segment.hpp): segment k's part is walls.size() + 3k + part.
// Every contact with one is met as a plane: a plane wall as it is, a segment's face or end
// point as its tangent plane at the contact of a particle centred at x. Reflection, overlap
// and the group rule then need nothing else.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/segment.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <cstddef>
#include <cstdint>

namespace choc {

struct Obstacle {
    enum class Kind : std::uint8_t { wall, segment_face, segment_end };

    bool wall = true;        // a plane wall, else a segment's part
    std::uint32_t index = 0; // the wall's index, or the segment's
    int part = 0;            // Segment::Part of a segment (face, from_end, to_end); 0 for a wall

    Kind kind() const {
        return wall                       ? Kind::wall
               : part == Segment<2>::face ? Kind::segment_face
                                          : Kind::segment_end;
    }

    static std::uint32_t encode_wall(std::uint32_t w) { return w; }
    static std::uint32_t encode_segment(std::size_t walls, std::uint32_t k, int part) {
        return static_cast<std::uint32_t>(walls + 3 * k + part);
    }
    std::uint32_t encode(std::size_t walls) const {
        return wall ? encode_wall(index) : encode_segment(walls, index, part);
    }
    static Obstacle decode(std::uint32_t number, std::size_t walls) {
        if (number < walls) return {true, number, 0};
        const std::uint32_t k = number - static_cast<std::uint32_t>(walls);
        return {false, k / 3, static_cast<int>(k % 3)};
    }
};

// The plane of obstacle `number` at the contact of a particle centred at x.
template <int D>
Wall<D> obstacle_plane(const Box<D>& box, std::uint32_t number, const Vec<D>& x) {
    const Obstacle o = Obstacle::decode(number, box.walls.size());
    if (o.wall) return box.walls[o.index];
    return box.segments[o.index].contact_plane(o.part, x);
}

template <int D>
double obstacle_restitution(const Box<D>& box, std::uint32_t number) {
    const Obstacle o = Obstacle::decode(number, box.walls.size());
    return o.wall ? box.walls[o.index].restitution : box.segments[o.index].restitution;
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
