// The kinds of obstacle a particle can meet besides the box's plane walls, as one part of
// the engine (docs/ARCHITECTURE.md, "The engine's parts"). Each kind is a class in its own
// file (engine/segment_obstacles.hpp, engine/triangle_obstacles.hpp) that holds every
// operation that depends on what it is, and is listed once, in Kinds below: a new kind
// is one new file and one entry there. Obstacles dispatches over the list (fold
// expressions and a chain of comparisons, inlined: no virtual call in the event loop)
// and gives the rest of the engine one interface, through the engine's Kernel.
//
// The obstacle numbers (obstacle.hpp): the plane walls are 0 .. walls.size() - 1, then
// each kind in the order listed takes numbers(box) of its own, from an offset, its
// `first`: its local number `local` is the obstacle's number less that offset. The order
// is the checkpoints' (the numbers are in them): a new kind goes last.
//
// What a kind provides (K, relative to its first number; `cell` is a particle's cell in
// the grid of level 0, f a callback):
//   static numbers(box)                        how many obstacle numbers it takes
//   static for_each_solid(box, f(lo, hi, d))   its parts for the overlap check (overlap.hpp):
//                                              bounding box, a centre's distance
//   static contact_plane(box, local, x)        the plane met at a contact of a centre at x
//   static restitution(box, local)
//   static same_obstacle(local, other)         one obstacle: one constraint in a group
//   set_up(box, cells, table), release()       its own state (lists by cell) at the
//                                              engine's start and end
//   any(box)                                   whether a prediction looks at it at all
//   predict(box, cells, flight, candidate, first)   the first contact of a flight
//                                              (obstacle_flight.hpp)
//   for_each_support(box, cell, x, a, reach, f(n))  the rest model's supports
//   for_each_touching(box, cell, x, a, reach, first, f(w, plane, once))   the group
//                                              step's touching contacts
//   static face_normal(box, local)             what glides need (engine/glides.hpp): the
//   static met_on_face(box, local, x)          normal of the face a number names (zero:
//   static over(box, local, y)                 none), whether a contact is the face's,
//   static for_each_edge(box, local, f(e, n))  whether a centre is over the face, the
//   for_each_face_near(box, cell, x, a, reach, first, f(w, n))   face's edges, the faces
//   face_beside_rim(box, cell, local, x, a, reach, tolerance, first)   near a centre,
//                                              and the face that holds a centre met at a
//                                              rim (itself where the kind has no rims)
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacle_flight.hpp"
#include "choc/kernel/engine/segment_obstacles.hpp"
#include "choc/kernel/engine/triangle_obstacles.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace choc {

template <int D>
class Obstacles {
    // The kinds, each once, in the order of their numbers.
    using Kinds = std::tuple<SegmentObstacles<D>, TriangleObstacles<D>>;
    static constexpr std::size_t kinds = std::tuple_size_v<Kinds>;
    template <std::size_t K>
    using Kind = std::tuple_element_t<K, Kinds>;

  public:
    // --- The numbers (obstacle.hpp) ---------------------------------------------------

    // Every obstacle number of `box`: its plane walls' and each kind's.
    static std::uint32_t count(const Box<D>& box) {
        return walls(box) + numbers_before<kinds>(box);
    }
    // The first number of kind T (listed in Kinds): where a caller that knows one kind,
    // the stepped engine's segments, numbers its obstacles from.
    template <class T>
    static std::uint32_t first(const Box<D>& box) {
        return walls(box) + numbers_before<index_of<T>()>(box);
    }
    // The plane met at a contact of obstacle w with a centre at x, and its restitution.
    static Wall<D> plane(const Box<D>& box, std::uint32_t w, const Vec<D>& x) {
        if (w < walls(box)) return box.walls[w];
        return of<Wall<D>>(box, w, [&]<class K>(K, std::uint32_t local) {
            return Kind<K::value>::contact_plane(box, local, x);
        });
    }
    static double restitution(const Box<D>& box, std::uint32_t w) {
        if (w < walls(box)) return box.walls[w].restitution;
        return of<double>(box, w, [&]<class K>(K, std::uint32_t local) {
            return Kind<K::value>::restitution(box, local);
        });
    }
    // Whether numbers w and v name one obstacle (a segment's face and end, say): one
    // constraint in a group (GroupStep::on_surface_met).
    static bool same_obstacle(const Box<D>& box, std::uint32_t w, std::uint32_t v) {
        if (w == v) return true;
        if (w < walls(box) || v < walls(box)) return false;
        return of<bool>(box, w, [&]<class K>(K, std::uint32_t local) {
            const std::uint32_t first = w - local;
            return v >= first && v - first < Kind<K::value>::numbers(box) &&
                   Kind<K::value>::same_obstacle(local, v - first);
        });
    }

    // --- The engine's start and end ---------------------------------------------------

    void set_up(const Box<D>& box, const Cells<D>& cells, const SpeciesTable& table) {
        std::apply([&](auto&... kind) { (kind.set_up(box, cells, table), ...); }, kinds_);
    }
    void release() {
        std::apply([](auto&... kind) { (kind.release(), ...); }, kinds_);
    }

    // --- Prediction (inlined in the event loop) ---------------------------------------

    // Whether the box has any (without, a particle's prediction skips them at once).
    bool any(const Box<D>& box) const {
        return std::apply([&](const auto&... kind) { return (kind.any(box) || ...); }, kinds_);
    }

    // Improves c with every kind's first contact on flight f, kind by kind in the order
    // listed (among equal times the first found is kept). A kind the box has none of is
    // passed by before its first number is counted: the count is a few instructions per
    // prediction, a kind absent (the triangles of a 2D run) would pay them for nothing
    // (0.06 % of the 2D hourglass's instructions, when counted first).
    template <class M>
    void predict(const Box<D>& box, const Cells<D>& cells, const ObstacleFlight<D, M>& f,
                 ObstacleCandidate c) const {
        const auto each = [&]<std::size_t... k>(std::index_sequence<k...>) {
            ((std::get<k>(kinds_).any(box)
                  ? std::get<k>(kinds_).predict(box, cells, f, c,
                                                walls(box) + numbers_before<k>(box))
                  : void()),
             ...);
        };
        each(std::make_index_sequence<kinds>{});
    }

    // --- Contacts at an instant (the rest model, the group step) ----------------------

    // f(n) for each support of a centre at x (radius a, in `cell`) within `reach` of
    // contact among the kinds' obstacles (their parts nearest to x), n its unit normal
    // towards x; the plane walls are the caller's.
    template <class F>
    void for_each_support(const Box<D>& box, std::uint32_t cell, const Vec<D>& x, double a,
                          double reach, F&& f) const {
        std::apply(
            [&](const auto&... kind) { (kind.for_each_support(box, cell, x, a, reach, f), ...); },
            kinds_);
    }
    // f(w, plane, once) for each obstacle number w touching a centre at x (radius a, in
    // `cell`) within `reach`, seen as its tangent plane; once: a contact to keep only if
    // no other of the step has that plane (the kind's surfaces meet as one, a mesh's).
    template <class F>
    void for_each_touching(const Box<D>& box, std::uint32_t cell, const Vec<D>& x, double a,
                           double reach, F&& f) const {
        for_each_kind(box, [&](const auto& kind, std::uint32_t first) {
            kind.for_each_touching(box, cell, x, a, reach, first, f);
        });
    }

    // --- The overlap check (overlap.hpp) ------------------------------------------------

    // f(lo, hi, distance) for every part of every kind that a centre may not come within
    // its radius of: its bounding box and a centre's distance to it.
    template <class F>
    static void for_each_solid(const Box<D>& box, F&& f) {
        const auto each = [&]<std::size_t... k>(std::index_sequence<k...>) {
            (Kind<k>::for_each_solid(box, f), ...);
        };
        each(std::make_index_sequence<kinds>{});
    }

    // --- What glides need of the faces (engine/glides.hpp) ----------------------------

    // The unit normal of the face obstacle w names (zero: it names no face, an end or a
    // thermal wall, which re-emits and holds nothing).
    static Vec<D> face_normal(const Box<D>& box, std::uint32_t w) {
        if (w < walls(box)) return box.walls[w].thermal() ? Vec<D>{} : box.walls[w].normal;
        return of<Vec<D>>(box, w, [&]<class K>(K, std::uint32_t local) {
            return Kind<K::value>::face_normal(box, local);
        });
    }
    // Whether obstacle w's contact with a centre at x is its face's (not a rim's).
    static bool met_on_face(const Box<D>& box, std::uint32_t w, const Vec<D>& x) {
        if (w < walls(box)) return true;
        return of<bool>(box, w, [&]<class K>(K, std::uint32_t local) {
            return Kind<K::value>::met_on_face(box, local, x);
        });
    }
    // Whether y projects onto obstacle w's face (a plane wall: everywhere).
    static bool over(const Box<D>& box, std::uint32_t w, const Vec<D>& y) {
        if (w < walls(box)) return true;
        return of<bool>(box, w, [&]<class K>(K, std::uint32_t local) {
            return Kind<K::value>::over(box, local, y);
        });
    }
    // f(e, n) for each edge of obstacle w's face, through point e with unit normal n in
    // the face's plane towards its inside (a plane wall has none).
    template <class F>
    static void for_each_edge(const Box<D>& box, std::uint32_t w, F&& f) {
        if (w < walls(box)) return;
        of<void>(box, w, [&]<class K>(K, std::uint32_t local) {
            Kind<K::value>::for_each_edge(box, local, f);
        });
    }
    // f(w, n) for each face of the kinds a centre at x (radius a, in `cell`) is over and
    // within `reach` of contact: its number, its unit normal towards x (the plane walls
    // are the caller's).
    template <class F>
    void for_each_face_near(const Box<D>& box, std::uint32_t cell, const Vec<D>& x, double a,
                            double reach, F&& f) const {
        for_each_kind(box, [&](const auto& kind, std::uint32_t first) {
            kind.for_each_face_near(box, cell, x, a, reach, first, f);
        });
    }
    // The face that holds a centre at x (radius a, in `cell`) where obstacle w met it: w,
    // or where w is a rim in the plane of a neighbour's face the centre touches, within
    // `tolerance` of a (the kind's face_beside_rim says why), that face.
    std::uint32_t face_beside_rim(const Box<D>& box, std::uint32_t cell, std::uint32_t w,
                                  const Vec<D>& x, double a, double reach, double tolerance) const {
        if (w < walls(box)) return w;
        return of<std::uint32_t>(box, w, [&]<class K>(K, std::uint32_t local) {
            return std::get<K::value>(kinds_).face_beside_rim(box, cell, local, x, a, reach,
                                                              tolerance, w - local);
        });
    }

  private:
    static std::uint32_t walls(const Box<D>& box) {
        return static_cast<std::uint32_t>(box.walls.size());
    }
    template <class T>
    static constexpr std::size_t index_of() {
        const auto find = []<std::size_t... k>(std::index_sequence<k...>) {
            const bool same[] = {std::is_same_v<T, Kind<k>>...};
            std::size_t index = 0;
            while (!same[index]) ++index; // (T not listed: no constant, a compile error)
            return index;
        };
        return find(std::make_index_sequence<kinds>{});
    }
    // The numbers the kinds before the K-th take.
    template <std::size_t K>
    static std::uint32_t numbers_before(const Box<D>& box) {
        const auto sum = [&]<std::size_t... k>(std::index_sequence<k...>) {
            return (std::uint32_t{0} + ... + Kind<k>::numbers(box));
        };
        return sum(std::make_index_sequence<K>{});
    }
    // f(kind, local) for the kind that numbers w (w past the plane walls): kind its
    // index as a std::integral_constant, local w less the kind's first number.
    template <class R, class F>
    static R of(const Box<D>& box, std::uint32_t w, F&& f) {
        return of_kinds<R, 0>(box, w - walls(box), f);
    }
    // The same from the K-th kind on, local counted from its first number. The last kind
    // takes every number past the others' (as the numbers are only ever the box's).
    template <class R, std::size_t K, class F>
    static R of_kinds(const Box<D>& box, std::uint32_t local, F& f) {
        if constexpr (K + 1 == kinds) {
            return f(std::integral_constant<std::size_t, K>{}, local);
        } else {
            const std::uint32_t n = Kind<K>::numbers(box);
            if (local < n) return f(std::integral_constant<std::size_t, K>{}, local);
            return of_kinds<R, K + 1>(box, local - n, f);
        }
    }
    // f(kind, first) for each kind in the order listed, with its first number.
    template <class F>
    void for_each_kind(const Box<D>& box, F&& f) const {
        std::uint32_t first = walls(box);
        std::apply(
            [&](const auto&... kind) { ((f(kind, first), first += kind.numbers(box)), ...); },
            kinds_);
    }

    Kinds kinds_;
};

} // namespace choc
