// Segments (2D finite walls, segment.hpp) as a kind of obstacle (engine/obstacles.hpp):
// every operation the engine needs that depends on what a segment is. Segment k takes
// three obstacle numbers (its faces, its `from` end, its `to` end: Segment::Part), so
// that a contact's number says which part was met; Obstacles gives the kind its first
// number (`first`), and the numbers here are relative to it (`local`).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacle_flight.hpp"
#include "choc/kernel/segment.hpp"
#include "choc/kernel/segment_time.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace choc {

template <int D>
class SegmentObstacles {
  public:
    // --- The numbers and the contact --------------------------------------------------

    // Three per segment: a part of it (Segment::Part) is local number 3k + part.
    static std::uint32_t numbers(const Box<D>& box) {
        return static_cast<std::uint32_t>(3 * box.segments.size());
    }
    static std::uint32_t number(std::uint32_t k, int part) {
        return 3 * k + static_cast<std::uint32_t>(part);
    }
    static Wall<D> contact_plane(const Box<D>& box, std::uint32_t local, const Vec<D>& x) {
        return box.segments[local / 3].contact_plane(static_cast<int>(local % 3), x);
    }
    static double restitution(const Box<D>& box, std::uint32_t local) {
        return box.segments[local / 3].restitution;
    }
    // Whether two numbers name parts of one segment: one constraint in a group.
    static bool same_obstacle(std::uint32_t local, std::uint32_t other) {
        return local / 3 == other / 3;
    }

    // --- Set-up and prediction --------------------------------------------------------

    // Nothing to set up: every particle looks at every segment (a few in a box).
    void set_up(const Box<D>&, const Cells<D>&, const SpeciesTable&) {}
    void release() {}
    bool any(const Box<D>& box) const { return !box.segments.empty(); }

    // Improves c with the segments. The centre stays in its cell until its crossing, so a
    // segment out of reach of that cell is skipped, and curved flights are searched no
    // further than the crossing; the crossing asks again.
    template <class M>
    void predict(const Box<D>& box, const Cells<D>& cells, const ObstacleFlight<D, M>& f,
                 ObstacleCandidate c, std::uint32_t first) const {
        if (box.segments.empty()) return;
        const ParticleState<D>& q = f.q;
        const double a = f.a;
        Vec<D> lo, hi;
        for (int k = 0; k < D; ++k)
            lo[k] = cells.bound(f.cell, k, -1), hi[k] = cells.bound(f.cell, k, 1);
        const double reach = a + cell_bounds_round_off * (a + (hi[0] - lo[0]));
        for (std::uint32_t k = 0; k < box.segments.size(); ++k) {
            const auto& seg = box.segments[k];
            if (!seg.may_reach(lo, hi, reach)) continue;
            if (const std::uint32_t w = first + number(k, Segment<D>::face);
                w == f.support[0] || w == f.support[1]) [[unlikely]]
                continue; // the glide's (its end: the rest model's glide_end_time)
            auto consider = [&](double dt, int part) {
                c.offer(f.now + dt, first + number(k, part));
            };
            consider(face_time(f.motion, seg, q, a), Segment<D>::face);
            const double window = std::min(f.crossing, c.time) - f.now;
            for (const int end : {Segment<D>::from_end, Segment<D>::to_end})
                consider(end_time(f.motion, seg.end(end), q, a, window), end);
        }
    }

    // --- Contacts at an instant -------------------------------------------------------

    // The rest model's supports (RestModel::for_each_support): f(n) for the part nearest
    // to a centre at x of radius a within `reach` of contact, n its contact's normal.
    template <class F>
    void for_each_support(const Box<D>& box, std::uint32_t, const Vec<D>& x, double a, double reach,
                          F&& f) const {
        for (const auto& seg : box.segments)
            if (seg.distance(x) - a <= reach) f(seg.contact_plane(seg.nearest_part(x), x).normal);
    }

    // The group step's touching contacts (GroupStep::add_touching): f(w, plane, once) for
    // the part nearest to the centre x within `reach` (a contact distance with its gap),
    // seen as its tangent plane. once = false: a segment's contact is kept even where
    // another contact of the step has its plane (segments do not share edges as a mesh's
    // triangles do).
    template <class F>
    void for_each_touching(const Box<D>& box, std::uint32_t, const Vec<D>& x, double, double reach,
                           std::uint32_t first, F&& f) const {
        for (std::uint32_t k = 0; k < box.segments.size(); ++k) {
            const auto& seg = box.segments[k];
            if (seg.distance(x) > reach) continue;
            const int part = seg.nearest_part(x);
            f(first + number(k, part), seg.contact_plane(part, x), false);
        }
    }

    // --- The overlap check (overlap.hpp) ------------------------------------------------

    // f(lo, hi, distance) for each segment: its bounding box and a centre's distance to
    // its nearest point (its ends included).
    template <class F>
    static void for_each_solid(const Box<D>& box, F&& f) {
        for (const auto& seg : box.segments) {
            Vec<D> lo = seg.from, hi = seg.from;
            for (int a = 0; a < D; ++a)
                lo[a] = std::min(lo[a], seg.to[a]), hi[a] = std::max(hi[a], seg.to[a]);
            f(lo, hi, [&](const Vec<D>& x) { return seg.distance(x); });
        }
    }

    // --- What glides need of the faces (engine/glides.hpp) ----------------------------

    // The normal of the face a number names (zero: an end, no face to glide on).
    static Vec<D> face_normal(const Box<D>& box, std::uint32_t local) {
        return local % 3 == Segment<D>::face ? box.segments[local / 3].normal : Vec<D>{};
    }
    // Whether a contact of a centre at x with the part `local` is its face's (a face's
    // number names its face: an end has a number of its own).
    static bool met_on_face(const Box<D>&, std::uint32_t, const Vec<D>&) { return true; }
    // Whether y projects onto the segment (a glider's centre still over its face).
    static bool over(const Box<D>& box, std::uint32_t local, const Vec<D>& y) {
        const auto& seg = box.segments[local / 3];
        const double along = seg.along(y);
        return along >= 0.0 && along <= seg.length;
    }
    // f(e, n) for each edge of the face: its two ends, each through its point e with the
    // unit normal n along the segment towards its inside.
    template <class F>
    static void for_each_edge(const Box<D>& box, std::uint32_t local, F&& f) {
        const auto& seg = box.segments[local / 3];
        f(seg.from, seg.tangent);
        f(seg.to, seg.tangent * -1.0);
    }
    // f(w, n) for each face a centre at x (radius a) is over and within `reach` of
    // contact: w its number, n its unit normal towards x.
    template <class F>
    void for_each_face_near(const Box<D>& box, std::uint32_t, const Vec<D>& x, double a,
                            double reach, std::uint32_t first, F&& f) const {
        for (std::uint32_t n = 0; n < box.segments.size(); ++n) {
            const auto& seg = box.segments[n];
            const double along = seg.along(x);
            if (along < 0.0 || along > seg.length || std::abs(seg.height(x)) - a > reach) continue;
            f(first + number(n, Segment<D>::face), seg.contact_plane(Segment<D>::face, x).normal);
        }
    }
    // The face beside a rim (Glides::face_beside_rim): a segment's ends are numbers of
    // their own, met as the ends they are.
    std::uint32_t face_beside_rim(const Box<D>&, std::uint32_t, std::uint32_t local, const Vec<D>&,
                                  double, double, double, std::uint32_t first) const {
        return first + local;
    }
};

} // namespace choc
