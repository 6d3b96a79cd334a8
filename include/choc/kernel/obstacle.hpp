// Obstacle numbers: one number names anything a particle can meet that is not a
// particle. The plane walls are 0 .. walls.size() - 1, then three per segment (its faces,
// its `from` end, its `to` end; segment.hpp): segment k's part is walls.size() + 3k + part;
// then one per triangle (triangle.hpp): triangle k is walls.size() + 3 segments.size() + k.
// Every contact with one is met as a plane: a plane wall as it is, a segment's face or end
// point, or a triangle's face, edge or vertex, as its tangent plane at the contact of a
// particle centred at x. Reflection, overlap and the group rule then need nothing else.
// (A triangle needs no part in its number: the part nearest to x has the same tangent
// plane where two parts meet.)
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
    enum class Kind : std::uint8_t { wall, segment_face, segment_end, triangle };

    bool wall = true;        // a plane wall, else a segment's part or a triangle
    std::uint32_t index = 0; // the wall's index, the segment's or the triangle's
    int part = 0;            // Segment::Part of a segment (face, from_end, to_end); 0 otherwise
    bool triangle = false;

    Kind kind() const {
        return wall                       ? Kind::wall
               : triangle                 ? Kind::triangle
               : part == Segment<2>::face ? Kind::segment_face
                                          : Kind::segment_end;
    }

    static std::uint32_t encode_wall(std::uint32_t w) { return w; }
    static std::uint32_t encode_segment(std::size_t walls, std::uint32_t k, int part) {
        return static_cast<std::uint32_t>(walls + 3 * k + part);
    }
    static std::uint32_t encode_triangle(std::size_t walls, std::size_t segments, std::uint32_t k) {
        return static_cast<std::uint32_t>(walls + 3 * segments + k);
    }
    std::uint32_t encode(std::size_t walls, std::size_t segments) const {
        return wall       ? encode_wall(index)
               : triangle ? encode_triangle(walls, segments, index)
                          : encode_segment(walls, index, part);
    }
    static Obstacle decode(std::uint32_t number, std::size_t walls, std::size_t segments) {
        if (number < walls) return {true, number, 0, false};
        const std::uint32_t k = number - static_cast<std::uint32_t>(walls);
        if (k < 3 * segments) return {false, k / 3, static_cast<int>(k % 3), false};
        return {false, k - static_cast<std::uint32_t>(3 * segments), 0, true};
    }
};

// The plane of obstacle `number` at the contact of a particle centred at x.
template <int D>
Wall<D> obstacle_plane(const Box<D>& box, std::uint32_t number, const Vec<D>& x) {
    const Obstacle o = Obstacle::decode(number, box.walls.size(), box.segments.size());
    if (o.wall) return box.walls[o.index];
    if (o.triangle) return box.triangles[o.index].contact_plane(x);
    return box.segments[o.index].contact_plane(o.part, x);
}

template <int D>
double obstacle_restitution(const Box<D>& box, std::uint32_t number) {
    const Obstacle o = Obstacle::decode(number, box.walls.size(), box.segments.size());
    return o.wall       ? box.walls[o.index].restitution
           : o.triangle ? box.triangles[o.index].restitution
                        : box.segments[o.index].restitution;
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
