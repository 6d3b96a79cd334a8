// Triangles (3D finite walls, triangle.hpp; meshes from STL files) as a kind of obstacle
// (engine/obstacles.hpp): every operation the engine needs that depends on what a
// triangle is. The triangles near each cell (triangle_cells.hpp), a particle's first
// contact with one (triangle_time.hpp), the ones it touches at an instant, and what glides
// need of their faces and rims. Triangle k takes one obstacle number, local number k
// after the kind's first (`first`, given by Obstacles): the part nearest to a centre has
// the same tangent plane where two parts meet, so its number needs no part.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacle_flight.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/triangle_cells.hpp"
#include "choc/kernel/triangle_time.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace choc {

template <int D>
class TriangleObstacles {
  public:
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

    // --- The numbers and the contact --------------------------------------------------

    static std::uint32_t numbers(const Box<D>& box) {
        return static_cast<std::uint32_t>(box.triangles.size());
    }
    static Wall<D> contact_plane(const Box<D>& box, std::uint32_t local, const Vec<D>& x) {
        return box.triangles[local].contact_plane(x);
    }
    static double restitution(const Box<D>& box, std::uint32_t local) {
        return box.triangles[local].restitution;
    }
    // Whether two numbers name one triangle (one number each: only if they are equal).
    static bool same_obstacle(std::uint32_t local, std::uint32_t other) { return local == other; }

    // --- Set-up and prediction --------------------------------------------------------

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
    // The lists (none: empty).
    const TriangleCells<D>& cells() const { return cells_; }
    // The run is over (Engine::retire): the lists are freed.
    void release() { cells_ = TriangleCells<D>(); }
    // Whether a particle's prediction looks at triangles at all.
    bool any(const Box<D>&) const { return !cells_.empty(); }

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
                 ObstacleCandidate c, std::uint32_t first) const {
        if (cells_.empty()) return;
        const ParticleState<D>& q = f.q;
        const M& fm = f.motion;
        const double a = f.a;
        const std::uint32_t cell = f.cell;
        // the triangle i glides on, if it does: passed by (its edges: glide_end_time)
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
                c.number = first + k;
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
                c.offer(f.now + dt, first + e->index);
            }
    }

    // --- Contacts at an instant -------------------------------------------------------

    // The rest model's supports (RestModel::for_each_support): f(n) for each triangle near
    // `cell` within `reach` of contact with a centre at x of radius a (from its front if
    // one-sided), n its contact's normal.
    template <class F>
    void for_each_support(const Box<D>& box, std::uint32_t cell, const Vec<D>& x, double a,
                          double reach, F&& f) const {
        if (cells_.empty()) return;
        for (const auto* t = cells_.begin(cell); t != cells_.end(cell); ++t) {
            const Triangle<D>& tri = box.triangles[t->index];
            if (tri.distance(x) - a > reach) continue;
            if (tri.one_sided && tri.height(x) <= 0.0) continue; // from the front only
            f(tri.contact_plane(x).normal);
        }
    }

    // The group step's touching contacts (GroupStep::add_touching): f(w, plane, once) for
    // the triangles near `cell` within `reach` (a contact distance with its gap) of a
    // centre at x of radius a, each seen as its tangent plane at the nearest point q, once
    // = true: where triangles meet (a mesh's shared edge or vertex) the touching set holds
    // the same surface twice, and a gap of g contact distances lets a centre a distance δ
    // beside a shared edge count as touching it with δ up to a √(2g) (2e-5 a at the
    // default gap), its normal tilted by δ/a: a row that would push a sphere sideways off
    // a flat floor. A triangle's contact is dropped when its q lies in another touching
    // triangle that is nearer (or as near and listed first): the nearer one's constraint
    // is the surface there. What remains and has the tangent plane of a contact already
    // taken (the event's own, or a plane wall under a face) is one constraint, kept once
    // (the caller's: once), so that the group's system does not repeat a row.
    template <class F>
    void for_each_touching(const Box<D>& box, std::uint32_t cell, const Vec<D>& x, double a,
                           double reach, std::uint32_t first, F&& f) const {
        if (cells_.empty()) return;
        touching_.clear();
        for (const auto* k = cells_.begin(cell); k != cells_.end(cell); ++k) {
            const Triangle<D>& tri = box.triangles[k->index];
            const auto near = tri.nearest(x);
            const double d = norm(x - near.point);
            if (d > reach) continue;
            // a one-sided triangle touches from the front only, and not a sphere passing
            // through it or, at a shared edge or corner, through its neighbour
            // (one_sided_triangle_time's rule)
            if (k->one_sided && (tri.height(x) <= 0.0 || passing_through(tri, x, a) ||
                                 passing_elsewhere(box, cell, k, a)(x, near.point)))
                continue;
            touching_.push_back({k->index, d, near.point});
        }
        for (const Touching& t : touching_) {
            const double shared = shared_point_tolerance * (norm(t.point) + a);
            // (a centre over t's face but for round-off touches the face, Triangle::over_face:
            // in a crease, at the bisector, each face's q lies on the shared edge and so in
            // the other, and neither may be dropped)
            const bool covered =
                !box.triangles[t.index].over_face(x) &&
                std::any_of(touching_.begin(), touching_.end(), [&](const auto& o) {
                    return o.index != t.index &&
                           (o.distance < t.distance ||
                            (o.distance == t.distance && o.index < t.index)) &&
                           box.triangles[o.index].distance(t.point) <= shared;
                });
            if (covered) continue;
            f(first + t.index, box.triangles[t.index].contact_plane(x), true);
        }
    }

    // --- The overlap check (overlap.hpp) ------------------------------------------------

    // f(lo, hi, distance) for each two-sided triangle: its bounding box and a centre's
    // distance to its nearest point (its rim included). A centre within its radius of a
    // one-sided triangle is passing through it (from behind), or touching its front to
    // round-off: neither is an overlap.
    template <class F>
    static void for_each_solid(const Box<D>& box, F&& f) {
        for (const auto& tri : box.triangles) {
            if (tri.one_sided) continue;
            Vec<D> lo = tri.vertex[0], hi = lo;
            for (const auto& v : tri.vertex)
                for (int a = 0; a < D; ++a)
                    lo[a] = std::min(lo[a], v[a]), hi[a] = std::max(hi[a], v[a]);
            f(lo, hi, [&](const Vec<D>& x) { return tri.distance(x); });
        }
    }

    // --- What glides need of the faces (engine/glides.hpp) ----------------------------

    // The normal of the triangle's face (a number names the whole triangle).
    static Vec<D> face_normal(const Box<D>& box, std::uint32_t local) {
        return box.triangles[local].normal;
    }
    // Whether a contact of a centre at x with the triangle is its face's, not a rim's (a
    // rim holds no glide).
    static bool met_on_face(const Box<D>& box, std::uint32_t local, const Vec<D>& x) {
        return box.triangles[local].over_face(x);
    }
    // Whether y projects onto the triangle (a glider's centre still over its face).
    static bool over(const Box<D>& box, std::uint32_t local, const Vec<D>& y) {
        return box.triangles[local].over(y);
    }
    // f(e, n) for each of the face's three edges, through its point e with the unit
    // normal n in the face's plane towards its inside.
    template <class F>
    static void for_each_edge(const Box<D>& box, std::uint32_t local, F&& f) {
        const auto& tri = box.triangles[local];
        for (int k = 0; k < 3; ++k) f(tri.vertex[k], tri.inward[k]);
    }
    // f(w, n) for each triangle near `cell` whose face a centre at x (radius a) is over,
    // within `reach` of contact (from the front if one-sided): w its number, n the face's
    // unit normal towards x.
    template <class F>
    void for_each_face_near(const Box<D>& box, std::uint32_t cell, const Vec<D>& x, double a,
                            double reach, std::uint32_t first, F&& f) const {
        if (cells_.empty()) return;
        for (const auto* e = cells_.begin(cell); e != cells_.end(cell); ++e) {
            const Triangle<D>& tri = box.triangles[e->index];
            if (!tri.over_face(x) || std::abs(tri.height(x)) - a > reach) continue;
            if (tri.one_sided && tri.height(x) <= 0.0) continue;
            f(first + e->index, tri.contact_plane(x).normal);
        }
    }

    // The face that holds a centre at x (radius a, in `cell`) where triangle `local` met
    // it: the triangle itself, or, where it met x at a rim that lies in the plane of a
    // face x is over and touches (a coplanar neighbour of a mesh, sharing that edge),
    // that face: its number. A sphere lying on the plane at their shared edge touches
    // both: the neighbour's edge is in the plane, at distance a from the centre to
    // round-off, and with the field pressing the sphere onto the plane the edge's search
    // (convex_time.hpp) meets it at once, its F'' = 2 (r.g + |v_t|²) < 0: one constraint,
    // the plane's (GroupStep::on_surface_met keeps it once). Met as a rim, it glided on
    // nothing (Glides::glide_slot_on refuses rims), was reflected by round-off and met
    // again an ulp of the clock later, for ever, its flights too short to move it, so that
    // a neighbour ran into it. Seen (scan case 13963152623220796937, a ramp of two
    // coplanar triangles): sphere 286 left by a glide's end 16 ulps over triangle 0
    // (leave_glide's clearance), put to rest there, woken at t = 2.2716 by sphere 647 and
    // sliding off at 1.05, 0.09 across the shared edge away from it: triangle 1's rim met
    // it 4.9 million times while the clock crept by ulps, and 647 came 1e-9 into it. As
    // the face's own contact it glides, and the glide passes by the triangles in its plane
    // (predict). The face is the plane's to round-off: parallel to the rim's triangle
    // (same_plane_tolerance) and touching within `tolerance` (the contact tolerance) of a;
    // the faces looked at are for_each_face_near's within `reach` (the rest reach).
    std::uint32_t face_beside_rim(const Box<D>& box, std::uint32_t cell, std::uint32_t local,
                                  const Vec<D>& x, double a, double reach, double tolerance,
                                  std::uint32_t first) const {
        const Triangle<D>& rim = box.triangles[local];
        const std::uint32_t w = first + local;
        if (rim.over_face(x)) return w;
        std::uint32_t face = w;
        for_each_face_near(box, cell, x, a, reach, first, [&](std::uint32_t f_w, const Vec<D>&) {
            if (face != w) return;
            const Triangle<D>& tri = box.triangles[f_w - first];
            if (std::abs(dot(tri.normal, rim.normal)) > 1.0 - same_plane_tolerance &&
                std::abs(std::abs(tri.height(x)) - a) <= tolerance * a)
                face = f_w;
        });
        return face;
    }

  private:
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

    struct Touching {
        std::uint32_t index;
        double distance;
        Vec<D> point; // the triangle's point nearest to the centre
    };

    TriangleCells<D> cells_; // the triangles near each cell of the grid (none: empty)
    // for_each_touching's workspace (scratch, kept to spare its allocations; the group
    // step, its one caller, asks of a const Obstacles)
    mutable std::vector<Touching> touching_;
};

} // namespace choc
