// The obstacle numbers as the seed scan's checks and the oracle's reference simulator
// read them: their own reading of the numbering documented in
// include/choc/kernel/obstacle.hpp (the plane walls, then three per segment: face,
// `from` end, `to` end, then one per triangle), written apart from the engine's (which
// derives it from the kinds it registers, engine/obstacles.hpp), so that a change of the
// engine's numbering shows as a failed check rather than passing unseen.
#pragma once

#include <choc/kernel/segment.hpp>

#include <cstddef>
#include <cstdint>

namespace soak {

struct Obstacle {
    enum class Kind : std::uint8_t { wall, segment_face, segment_end, triangle };

    bool wall = true;        // a plane wall, else a segment's part or a triangle
    std::uint32_t index = 0; // the wall's index, the segment's or the triangle's
    int part = 0;            // Segment::Part of a segment (face, from_end, to_end); 0 otherwise
    bool triangle = false;

    Kind kind() const {
        return wall                             ? Kind::wall
               : triangle                       ? Kind::triangle
               : part == choc::Segment<2>::face ? Kind::segment_face
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

} // namespace soak
