// Segments (2D finite walls, segment.hpp) as a kind of obstacle (engine/obstacles.hpp):
// a particle's first contact with a segment's face or either end (segment_time.hpp).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacle_flight.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/segment_time.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <cstdint>

namespace choc {

template <int D>
class SegmentObstacles {
  public:
    // Improves c with the segments. The centre stays in its cell until its crossing, so a
    // segment out of reach of that cell is skipped, and curved flights are searched no
    // further than the crossing; the crossing asks again.
    template <class M>
    void predict(const Box<D>& box, const Cells<D>& cells, const ObstacleFlight<D, M>& f,
                 ObstacleCandidate c) const {
        if (box.segments.empty()) return;
        const ParticleState<D>& q = f.q;
        const double a = f.a;
        Vec<D> lo, hi;
        for (int k = 0; k < D; ++k)
            lo[k] = cells.bound(f.cell, k, -1), hi[k] = cells.bound(f.cell, k, 1);
        const double reach = a + cell_bounds_round_off * (a + (hi[0] - lo[0]));
        const auto walls = static_cast<std::uint32_t>(box.walls.size());
        for (std::uint32_t k = 0; k < box.segments.size(); ++k) {
            const auto& seg = box.segments[k];
            if (!seg.may_reach(lo, hi, reach)) continue;
            if (const std::uint32_t w = Obstacle::encode_segment(walls, k, Segment<D>::face);
                w == f.support[0] || w == f.support[1]) [[unlikely]]
                continue; // the glide's (its end: the rest model's glide_end_time)
            auto consider = [&](double dt, int part) {
                c.offer(f.now + dt, Obstacle::encode_segment(walls, k, part));
            };
            consider(face_time(f.motion, seg, q, a), Segment<D>::face);
            const double window = std::min(f.crossing, c.time) - f.now;
            for (const int end : {Segment<D>::from_end, Segment<D>::to_end})
                consider(end_time(f.motion, seg.end(end), q, a, window), end);
        }
    }
};

} // namespace choc
