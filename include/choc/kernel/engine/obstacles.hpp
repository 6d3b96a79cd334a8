// The kinds of obstacle a particle can meet besides the box's plane walls, as one part of
// the engine (docs/ARCHITECTURE.md, "The engine's parts"): each kind is a class in its own
// file (engine/segment_obstacles.hpp, engine/triangle_obstacles.hpp) that improves a
// particle's obstacle candidate from its flight (engine/obstacle_flight.hpp), and is listed
// once, in Kinds below. A new kind is one new file and one entry there (plus its number in
// obstacle.hpp, which names every obstacle for the collision rules).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacle_flight.hpp"
#include "choc/kernel/engine/segment_obstacles.hpp"
#include "choc/kernel/engine/triangle_obstacles.hpp"

#include <tuple>

namespace choc {

template <int D>
class Obstacles {
  public:
    void set_up(const Box<D>& box, const Cells<D>& cells, const SpeciesTable& table) {
        triangles().set_up(box, cells, table);
    }

    // Whether the box has any (without, a particle's prediction skips them at once).
    bool any(const Box<D>& box) const {
        return !box.segments.empty() || !triangles().cells().empty();
    }

    // Improves c with every kind's first contact on flight f, kind by kind in the order
    // listed (among equal times the first found is kept).
    template <class M>
    void predict(const Box<D>& box, const Cells<D>& cells, const ObstacleFlight<D, M>& f,
                 ObstacleCandidate c) const {
        std::apply([&](const auto&... kind) { (kind.predict(box, cells, f, c), ...); }, kinds_);
    }

    TriangleObstacles<D>& triangles() { return std::get<TriangleObstacles<D>>(kinds_); }
    const TriangleObstacles<D>& triangles() const { return std::get<TriangleObstacles<D>>(kinds_); }

  private:
    // The kinds, each once.
    using Kinds = std::tuple<SegmentObstacles<D>, TriangleObstacles<D>>;
    Kinds kinds_;
};

} // namespace choc
