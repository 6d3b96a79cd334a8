// The simulation box: edge lengths, which axes are periodic, and the plane walls.
// Hard box walls (boundary = "wall") are stored as plane walls like any `[[walls]]` entry;
// `[[walls]]` segments (2D) are kept apart, in `segments` (segment.hpp), and triangles (3D)
// in `triangles` (triangle.hpp).
#pragma once

#include "choc/kernel/segment.hpp"
#include "choc/kernel/triangle.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <array>
#include <vector>

namespace choc {

template <int D>
struct Box {
    Vec<D> length;
    std::array<bool, D> periodic{};
    std::vector<Wall<D>> walls;
    std::vector<Segment<D>> segments;
    std::vector<Triangle<D>> triangles;
    // Lees-Edwards sliding boundaries (lees_edwards.hpp): with a rate, the images across the
    // y axis slide along x at shear_rate * L_y. 0: a plain periodic box.
    double shear_rate = 0.0;

    bool sheared() const { return shear_rate != 0.0; }
    // Anything a particle can hit besides another particle: plane walls (the box's own
    // included), segments or triangles.
    bool has_obstacles() const { return !walls.empty() || !segments.empty() || !triangles.empty(); }

    double volume() const {
        double v = 1.0;
        for (int a = 0; a < D; ++a) v *= length[a];
        return v;
    }

    // Nearest periodic image of a separation whose components lie within one box
    // length of zero (true for any two positions inside the box). Compares instead of
    // std::remainder: this runs once per collision, not in the prediction loop.
    Vec<D> minimum_image(Vec<D> r) const {
        for (int a = 0; a < D; ++a) {
            if (!periodic[a]) continue;
            if (r[a] > 0.5 * length[a])
                r[a] -= length[a];
            else if (r[a] < -0.5 * length[a])
                r[a] += length[a];
        }
        return r;
    }

    // Position folded back into [0, L) on periodic axes (for output and set-up).
    Vec<D> wrap(Vec<D> x) const {
        for (int a = 0; a < D; ++a) {
            if (!periodic[a]) continue;
            while (x[a] >= length[a]) x[a] -= length[a];
            while (x[a] < 0.0) x[a] += length[a];
        }
        return x;
    }
};

// Hard walls at 0 and L on every non-periodic axis, as inward-facing planes.
template <int D>
void add_box_walls(Box<D>& box, double restitution) {
    for (int a = 0; a < D; ++a) {
        if (box.periodic[a]) continue;
        Wall<D> low, high;
        low.normal[a] = 1.0;
        low.offset = 0.0;
        high.normal[a] = -1.0;
        high.offset = -box.length[a];
        low.restitution = high.restitution = restitution;
        box.walls.push_back(low);
        box.walls.push_back(high);
    }
}

} // namespace choc
