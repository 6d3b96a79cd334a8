// Triangles (3D finite walls, triangle.hpp; meshes from STL files) as a kind of obstacle
// (engine/obstacles.hpp): the triangles near each cell (triangle_cells.hpp), and a
// particle's first contact with one (triangle_time.hpp).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacle_flight.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/triangle_cells.hpp"
#include "choc/kernel/triangle_time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace choc {

template <int D>
class TriangleObstacles {
  public:
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

    // The triangles near each cell of `cells` (the grid of level 0), for particles of
    // `table`: a centre in a cell meets the triangles within its radius of the cell.
    void set_up(const Box<D>& box, const Cells<D>& cells, const SpeciesTable& table) {
        if (box.triangles.empty()) return;
        const double a = 0.5 * table.largest_diameter();
        double width = 0.0, smallest = a;
        for (int k = 0; k < D; ++k) width = std::max(width, cells.width()[k]);
        for (const auto& sp : table.species) smallest = std::min(smallest, sp.radius);
        cells_ = TriangleCells<D>(cells, box.triangles, a + cell_bounds_round_off * (a + width),
                                  typename TriangleCells<D>::PatchRadii{a, smallest});
    }
    // The lists (none: empty), for the parts that look at the triangles near a particle.
    const TriangleCells<D>& cells() const { return cells_; }
    // The run is over (Engine::retire): the lists are freed.
    void release() { cells_ = TriangleCells<D>(); }

    // Improves c with the triangles listed for the particle's cell. Only a contact before
    // the present candidate and before the cell crossing matters: the crossing looks again
    // (Engine::cross), with the next cell's triangles, at the contacts beyond it.
    //   - The cell's flat patches first: coplanar triangles covering all of their plane the
    //     centre can come within a radius of while in the cell are met when the plane is
    //     (first_contact on the height, from the side the centre is on), by the triangle
    //     holding the contact; kept only before the crossing, where the cell's cover holds.
    //   - Then the loose triangles: one is skipped when the centre cannot reach it before
    //     then (the sphere round its vertices is farther than the flight can go), or cannot
    //     come within its radius of the triangle's plane (triangle_plane_bound); curved
    //     flights are searched no further. The faces go first: a sphere coming down on a mesh
    //     meets the face of one triangle, and that contact, the same time as every coplanar
    //     neighbour's plane bound, rules out their rims in the second pass.
    template <class M>
    void predict(const Box<D>& box, const Cells<D>&, const ObstacleFlight<D, M>& f,
                 ObstacleCandidate c) const {
        if (cells_.empty()) return;
        const ParticleState<D>& q = f.q;
        const M& fm = f.motion;
        const double a = f.a;
        const std::uint32_t cell = f.cell;
        // the triangle i glides on, if it does: passed by (its edges: glide_end_time)
        const std::uint32_t first =
            Obstacle::encode_triangle(box.walls.size(), box.segments.size(), 0);
        const auto triangle_of = [&](std::uint32_t w) {
            return w != none && w >= first ? w - first : none;
        };
        const std::uint32_t skip = triangle_of(f.support[0]), skip2 = triangle_of(f.support[1]);
        // Every triangle in the plane of a triangle i glides on is passed by too: the glide
        // keeps the centre a radius above that plane and over its face, so such a triangle
        // can only touch it at a rim it shares with the face, along which it never
        // enters (glide_end_time ends the glide at the face's edge first). Met there, a
        // sphere gliding along a valley's line, where each of its two faces borders a
        // coplanar neighbour, was met by the neighbour's rim at once for ever (scan case
        // 11607331221862812016, t = 6.09).
        const auto in_support_plane = [&](const Vec<D>& n, double offset) {
            for (const std::uint32_t t : {skip, skip2}) {
                if (t == none) continue;
                const Vec<D>& v = box.triangles[t].vertex[0];
                if (std::abs(dot(box.triangles[t].normal, n)) > 1.0 - same_plane_tolerance &&
                    std::abs(dot(v, n) - offset) <= shared_point_tolerance * (norm(v) + a))
                    return true;
            }
            return false;
        };
        for (const auto* p = cells_.patches_begin(cell); p != cells_.patches_end(cell); ++p) {
            if (skip != none && in_support_plane(p->normal, p->offset)) [[unlikely]]
                continue;
            const double h = dot(q.x, p->normal) - p->offset, side = h >= 0.0 ? 1.0 : -1.0;
            const double dt = fm.first_contact(side * h - a, side * dot(q.v, p->normal),
                                               side * fm.along(p->normal));
            if (f.now + dt < c.time && f.now + dt <= f.crossing) {
                const std::uint32_t k = cells_.holder(*p, fm.position(q, dt), box.triangles);
                if (k == skip || k == skip2) [[unlikely]]
                    continue;
                c.time = f.now + dt;
                c.number = Obstacle::encode_triangle(box.walls.size(), box.segments.size(), k);
            }
        }
        // how far the centre can go in time w: |v| w (+ |g| w²/2 with gravity; drag only
        // slows it)
        const double speed = norm(q.v), pull = norm(fm.acceleration(Vec<D>{}));
        for (const bool faces : {true, false})
            for (const auto* e = cells_.begin(cell); e != cells_.loose_end(cell); ++e) {
                // a one-sided triangle: its whole search in the first pass (the flag is read
                // from the entry: the triangle itself is another cache line)
                if (e->one_sided && !faces) continue;
                if (e->index == skip || e->index == skip2) [[unlikely]]
                    continue;
                if (skip != none && in_support_plane(e->normal, e->offset)) [[unlikely]]
                    continue;
                const double window = std::min(f.crossing, c.time) - f.now;
                const double travel =
                    window < never ? (speed + 0.5 * pull * window) * window : never;
                if (norm(q.x - e->centre) - e->radius - a > travel) continue; // out of reach
                if (!(triangle_plane_bound(fm, e->normal, e->offset, q, a) < window)) continue;
                const Triangle<D>& tri = box.triangles[e->index];
                const double dt = e->one_sided
                                      ? one_sided_triangle_time(fm, tri, q, a, window,
                                                                passing_elsewhere(box, cell, e, a))
                                  : faces ? triangle_face_time(fm, tri, q, a)
                                          : triangle_rim_time(fm, tri, q, a, window);
                c.offer(f.now + dt,
                        Obstacle::encode_triangle(box.walls.size(), box.segments.size(), e->index));
            }
    }

    // For one_sided_triangle_time: whether a centre at x is passing through a one-sided
    // triangle of the cell's list other than e that holds the point q (a mesh's shared edge
    // or corner). Every triangle the centre can be inside is listed: the centre is in the
    // cell, within a of it.
    auto passing_elsewhere(const Box<D>& box, std::uint32_t cell,
                           const typename TriangleCells<D>::Entry* e, double a) const {
        return [this, &box, cell, e, a](const Vec<D>& x, const Vec<D>& q) {
            const double shared = shared_point_tolerance * (norm(q) + a);
            // (one-sided triangles are loose: never in a patch)
            for (const auto* o = cells_.begin(cell); o != cells_.loose_end(cell); ++o) {
                if (o == e || !o->one_sided) continue;
                const Triangle<D>& other = box.triangles[o->index];
                if (other.distance(q) <= shared && passing_through(other, x, a)) return true;
            }
            return false;
        };
    }

  private:
    TriangleCells<D> cells_; // the triangles near each cell of the grid (none: empty)
};

} // namespace choc
