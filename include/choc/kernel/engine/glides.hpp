// The rest model's glides, a part of the engine (docs/ARCHITECTURE.md, "The engine's
// parts"; resting.hpp; REFERENCE, "Particles at rest"): a particle that leaves a floor
// slowly slides along it (or along a crease of two faces) under the pull along its
// supports, on a flight of its glide slot, until it leaves their edge or meets something.
// It keeps its own state (the glide table, the flight of each slot, the faces each glider
// is on) and reaches the rest of the engine through the engine's Kernel
// (engine/kernel.hpp); the rest model (engine/rest_model.hpp) starts the glides.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/huge_pages.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/segment_time.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace choc {

// Gliding. A particle that leaves a support slower than rest speed but moves along it
// faster would bounce on it for ever in ever smaller hops (an inelastic collapse; with
// TC, elastic micro-bounces too short for the clock), while a smooth particle slides.
// It glides instead: its speed across the support (at most the rest speed) is taken and
// booked as the rest model's loss, and it moves along the support, pulled by the
// field's part along it, a = g − (g.n) n (the support takes the rest), with drag if
// there is drag: on a floor square to the field a = 0, down a slope a = |g| sin θ along
// it. Its next event of any kind ends the glide (end_glide): it is predicted again as
// every particle is, and at the support it glides again. So does its contact leaving
// the face it glides on (an end of a segment, an edge of a triangle: leave_glide). A
// support here is the face of a plane wall, a segment or a triangle that reflects
// (a thermal wall re-emits) with the field pressing onto it.
//
// Without the rest model nothing glides: bounces below round-off there end as they did
// (tried, Session 30: glides of bounces below round-off on slopes, without the rest
// model, left a disc bouncing on a glider at one instant for ever, elastic under TC:
// the loaded glider the rest model puts to rest; scan cases 12532767243672626640,
// 9564059025244880716). Before glides followed slopes, spheres woken from rest on a
// tilted plane with v = 0, under the rest model, met it at one instant for ever
// (invariant `progress`, scan cases 14466090374848110308 and 11682011839193705786).
template <int D, Motion<D> M>
class Glides {
  public:
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    using Faces = std::array<std::uint32_t, 2>; // a face (and none), or a crease's two

    // The glide table for `box` (empty but for slot 0), `motion` reading it, and no
    // particle of `particles` on a face yet (set_up).
    void set_up(const Box<D>& box, M& motion, const Particles<D>& particles);

    // --- What the event loop reads (inlined in its hot paths) -----------------------------

    // Particles gliding now.
    std::uint32_t gliding() const { return gliding_; }
    // The flight of glide slot `slot`; the flight p follows: a glide's, or the field's.
    const M& motion(std::uint32_t slot) const { return motions_[slot]; }
    const M& flight_motion(const ParticleState<D>& p, const M& field) const {
        if constexpr (M::has_field)
            if (p.gliding()) [[unlikely]]
                return motions_[p.glide_slot()];
        return field;
    }
    // The obstacles i glides on (none if it does not; the second none but in a crease):
    // its predictions pass them by, its flight being along them to round-off.
    Faces glide_support(const ParticleState<D>& p, std::uint32_t i) const {
        if constexpr (M::has_field)
            if (p.gliding()) [[unlikely]]
                return on_[i];
        return {none, none};
    }

    // --- A glide's start and end -------------------------------------------------------

    // The glide slot i takes on obstacle w after a reflection (0: none); a triangle's rim
    // met beside a coplanar face i lies on: that face (else w).
    template <class Kernel>
    std::uint32_t glide_slot_on(Kernel k, std::uint32_t i, std::uint32_t w);
    template <class Kernel>
    std::uint32_t face_beside_rim(Kernel k, std::uint32_t i, std::uint32_t w) requires M::has_field;
    // Starts i's glide on w (slot), or a crease's it glides into; false: i is in a corner
    // or loaded, to be put to rest there instead (the caller's, the rest model's).
    template <class Kernel>
    bool start_glide(Kernel k, std::uint32_t i, std::uint32_t w,
                     std::uint32_t slot) requires M::has_field;
    // A glide's end: at an event of i, at the edge of its faces (glide_end), and when.
    template <class Kernel>
    void end_glide(Kernel k, std::uint32_t i) {
        if constexpr (M::has_field)
            if (k.particles().state[i].gliding()) [[unlikely]] {
                k.particles().state[i].set_glide(0);
                --gliding_;
            }
    }
    template <class Kernel>
    void leave_glide(Kernel k, std::uint32_t i);
    template <class Kernel>
    double glide_end_time(Kernel k, std::uint32_t i,
                          const ParticleState<D>& q) const requires M::has_field;

    // When i, flying as q, meets glider j (a curved relative flight) under `field`, no
    // later than `window` (Engine::meeting_window).
    static double time_to_glider(const M& field, ParticleState<D> q, const Vec<D>& x_j,
                                 const Vec<D>& v_j, std::uint32_t j_slot, double sigma,
                                 double window) requires M::has_field;

    // --- The checkpoint and maintenance ------------------------------------------------

    // The faces of the gliders, then (under a field) the table and each obstacle's slot:
    // they depend on the run's history.
    template <class Archive>
    void fields(Archive& ar) {
        ar(on_);
        if constexpr (M::has_field) ar(*table_, slot_of_);
    }
    // The sizes a restored state must keep: per particle, and per obstacle number.
    std::size_t particles() const { return on_.size(); }
    std::size_t obstacles() const { return slot_of_.size(); }
    // The restored table whole (else ArchiveError), its flights set up for `motion`; a
    // restored glider's faces: a face's own slot, or a crease's slot in the table.
    void check_restored(std::size_t obstacles, M& motion);
    bool glide_faces_valid(const Particles<D>& particles, std::uint32_t i) const;
    // The particles renumbered: `permute` moves each glider's faces with it.
    template <class P>
    void renumbered(P&& permute) {
        if (!on_.empty()) permute(on_);
    }
    std::size_t bytes() const { return held_bytes(on_); }

  private:
    struct Crease {
        std::uint32_t w = none, slot = 0; // the second face; the crease's slot
        Vec<D> v{};                       // the velocity along the crease
    };
    template <class Kernel>
    Crease crease_of(Kernel k, std::uint32_t i, std::uint32_t w, const Vec<D>& n1,
                     std::uint32_t slot) requires M::has_field;
    static bool along_axis(const Vec<D>& n) {
        for (int a = 0; a < D; ++a)
            if (std::abs(n[a]) == 1.0) return true;
        return false;
    }
    // The faces i touches, and whether one falling onto i loads it off its glide.
    template <class Kernel, class F>
    void for_each_face_near(Kernel k, std::uint32_t i, F&& f) requires M::has_field;
    template <class Kernel>
    bool loaded(Kernel k, std::uint32_t i, const Vec<D>& a) requires M::has_field;
    // The glide table: its slots' pulls and flights, and the slot of each obstacle.
    void set_up_glide_motions(M& motion) requires M::has_field;
    void add_glide_motion(const M& field, const Vec<D>& a) requires M::has_field;
    static constexpr std::uint8_t unslotted = 0xff; // (slot_of_: not looked at yet)
    // v without its part along the unit normal n: on an axis exactly, that coordinate set to
    // zero (a glide along a floor stays at its height to the bit, and its pull is 0).
    static Vec<D> along_face(Vec<D> v, const Vec<D>& n) {
        for (int a = 0; a < D; ++a)
            if (std::abs(n[a]) == 1.0) {
                v[a] = 0.0;
                return v;
            }
        return v - n * dot(v, n);
    }
    template <class Kernel>
    std::uint32_t glide_slot(Kernel k, std::uint32_t w) requires M::has_field;
    template <class Kernel>
    std::uint32_t glide_slot_for(Kernel k, const Vec<D>& a) requires M::has_field;

    // The flight of each glide slot (the pull along its supports, the same drag), the
    // table of their pulls, the slot of each obstacle number (0: none glides on it;
    // unslotted: not looked at yet), and the obstacles each gliding particle glides on:
    // one face (the second none), or the two of a crease.
    std::vector<M> motions_;
    std::shared_ptr<std::vector<Vec<D>>> table_; // the slots' pulls (Field reads it)
    std::vector<std::uint8_t> slot_of_;
    std::vector<Faces> on_;
    std::uint32_t gliding_ = 0; // particles gliding along a floor now
};

// Returns the glide's slot (the table's) if i, just reflected by obstacle w at now, glides
// on it, else 0.
template <int D, Motion<D> M>
template <class Kernel>
inline std::uint32_t Glides<D, M>::glide_slot_on(Kernel k, std::uint32_t i, std::uint32_t w) {
    if constexpr (M::has_field) {
        if (!k.rest().on()) return 0;
        const std::uint32_t slot = glide_slot(k, w);
        if (slot == 0) return 0;
        const auto& p = k.particles().state[i];
        const Box<D>& box = k.box();
        if (!Obstacles<D>::met_on_face(box, w, p.x)) return 0; // a rim
        const Wall<D> plane = obstacle_plane(box, w, p.x);
        const double pull = k.motion().along(plane.normal), u = dot(p.v, plane.normal);
        if (!(pull < 0.0)) return 0; // the field does not press it on
        if (std::abs(u) < k.rest().speed) return slot;
    }
    return 0;
}

// The face that holds i where obstacle w met it: w, or, where w is a rim that lies in the
// plane of a face i's centre is over and touches (a mesh's coplanar neighbour sharing
// that edge), that face, so that i glides on it (the kind says why:
// TriangleObstacles::face_beside_rim). The faces looked at are for_each_face_near's.
template <int D, Motion<D> M>
template <class Kernel>
inline std::uint32_t Glides<D, M>::face_beside_rim(Kernel k, std::uint32_t i,
                                                   std::uint32_t w) requires M::has_field {
    return k.obstacles().face_beside_rim(k.box(), k.cells().cell_of(i), w, k.particles().state[i].x,
                                         k.particles().radius(i), k.rest().reach,
                                         k.contact_tolerance());
}

template <int D, Motion<D> M>
template <class Kernel>
inline bool Glides<D, M>::start_glide(Kernel k, std::uint32_t i, std::uint32_t w,
                                      std::uint32_t slot) requires M::has_field {
    auto& p = k.particles().state[i];
    const Vec<D> n = obstacle_plane(k.box(), w, p.x).normal;
    const double e = kinetic_energy(k.particles().mass(i), p.v);
    p.v = along_face(p.v, n); // the velocity across the support taken
    const Crease crease = crease_of(k, i, w, n, slot);
    if (crease.w != none) [[unlikely]]
        p.v = crease.v, slot = crease.slot;
    const double lost = e - kinetic_energy(k.particles().mass(i), p.v);
    k.kinetic_change(p.species, -lost);
    k.tally().rest_energy += lost;
    if (crease.w != none && D == 2) [[unlikely]] // a corner: nowhere to glide (v = 0)
        return false;
    if (k.rest().on() && loaded(k, i, k.motion().glide_acceleration(slot))) [[unlikely]]
        return false;
    ++k.tally().glides;
    ++gliding_;
    p.set_glide(slot);
    on_[i] = {w, crease.w};
    p.bump();
    k.predict_all(i);
    return true;
}

// A crease: a glide on one face pressed onto a second face it touches, slower across it
// than rest speed. Gliding on the first alone it would hop onto the second at once, and
// gliding on that one be pressed back onto the first, for ever at one instant (seen: a
// sphere sliding at 0.34 along the edge of two box walls under a tilted field, scan
// case 18193087561354815542, t = 3.787; a sphere in a valley of a mesh alike). Both
// faces press while the forces f1, f2 that keep it on them are positive: with unit
// normals n1, n2 (c = n1.n2) and a = g + f1 n1 + f2 n2 across neither,
//   f1 = (c g.n2 − g.n1) / (1 − c²),   f2 = (c g.n1 − g.n2) / (1 − c²),
// and f2 > 0 is the first glide's pull onto the second face, a1.n2 = −f2 (1 − c²) < 0.
// It then glides along the crease's line t = n1 × n2 / |n1 × n2| at a = (g.t) t, its
// velocity (v.t) t (the part across the second face is the rest model's, as the
// first's); in 2D the crease is a corner, a = 0, and it rests there. Two box walls (axis
// normals): the two coordinates set to zero exactly, as along_face does. With f1 <= 0
// the first face lets go: the glide on it hops onto the second, which glides alone.
template <int D, Motion<D> M>
template <class Kernel>
inline auto Glides<D, M>::crease_of(Kernel k, std::uint32_t i, std::uint32_t w, const Vec<D>& n1,
                                    std::uint32_t slot) -> Crease requires M::has_field {
    const auto& p = k.particles().state[i];
    const Vec<D>& g = k.motion().gravity();
    const Vec<D> a1 = k.motion().glide_acceleration(slot);
    Crease crease;
    for_each_face_near(k, i, [&](std::uint32_t w2, const Vec<D>& n2) {
        if (crease.w != none || w2 == w) return;
        if (!(dot(a1, n2) < 0.0) || !(std::abs(dot(p.v, n2)) < k.rest().speed)) return;
        const double c = dot(n1, n2), det = 1.0 - c * c;
        if (!(det > crease_parallel)) return;             // (one plane: the glide is along both)
        if (!(c * dot(g, n2) - dot(g, n1) > 0.0)) return; // f1 <= 0
        if constexpr (D == 2) {
            crease.w = w2; // a corner: v = 0
        } else {
            Vec<D> a, v;
            if (along_axis(n1) && along_axis(n2)) {
                a = along_face(along_face(g, n1), n2);
                v = along_face(along_face(p.v, n1), n2);
            } else {
                const Vec<D> t = choc::cross(n1, n2) * (1.0 / std::sqrt(det)); // |n1 x n2|² = det
                a = t * dot(g, t);
                v = t * dot(p.v, t);
            }
            const std::uint32_t s = glide_slot_for(k, a);
            if (s == 0) return; // the table is full: it glides on w as before glides in creases
            crease.w = w2, crease.slot = s, crease.v = v;
        }
    });
    return crease;
}

// Calls f(w, n) for each face particle i (at now) touches within rest reach: obstacle
// number w, its unit normal n towards i. The faces that reflect (a thermal wall re-emits)
// of plane walls, segments (where i is over the segment) and triangles (over the face,
// not a rim; a one-sided triangle from the front).
template <int D, Motion<D> M>
template <class Kernel, class F>
inline void Glides<D, M>::for_each_face_near(Kernel k, std::uint32_t i,
                                             F&& f) requires M::has_field {
    const Box<D>& box = k.box();
    const Vec<D>& x = k.particles().state[i].x;
    const double a = k.particles().radius(i), reach = k.rest().reach;
    for (std::uint32_t n = 0; n < box.walls.size(); ++n) {
        const auto& wall = box.walls[n];
        if (!wall.thermal() && wall.distance(x) - a <= reach) f(n, wall.normal);
    }
    k.obstacles().for_each_face_near(box, k.cells().cell_of(i), x, a, reach, f);
}

// Whether a falling particle touching i (about to glide at acceleration a, its velocity
// along the support) meets it or bounces on it slower than rest speed, pulled back onto
// it: one lying on i. A glider feels no pull across its support, so the one on it comes
// back again and again, in ever shorter hops as each landing pushes i into the support,
// which takes the push (seen: a disc riding on a gliding one, the 60-disc box, the 2D
// hourglass: millions of events, or at last the same contact at the same instant for
// ever). The smooth pair would push each other along in a lasting contact, which no
// event describes. A loaded particle is therefore put to rest on its support instead,
// as by friction, and the one on it comes to rest on it or leans on it
// (docs/PHYSICS.md, "Particles at rest").
template <int D, Motion<D> M>
template <class Kernel>
inline bool Glides<D, M>::loaded(Kernel k, std::uint32_t i, const Vec<D>& a) requires M::has_field {
    const auto& p = k.particles().state[i];
    bool found = false;
    k.for_each_near(i, [&](std::uint32_t n, const Vec<D>& shift) {
        const auto& pk = k.particles().state[n];
        if (found || n == i || pk.resting()) return;
        const ParticleState<D> q = k.flight_from_now(n);
        const Vec<D> r = q.x + shift - p.x; // from i to n's image beside it
        const double sigma = k.particles().table.pair_sigma(p.species, pk.species);
        if (norm(r) - sigma > k.contact_tolerance() * sigma) return; // not touching
        // n's motion relative to i's glide: velocity v, the pull a_k − a (a_k: g, or
        // n's own glide's pull: a glider sliding down onto one gliding slower, in a
        // crease, pushes it along as one lying on it does; seen: two spheres on a slope,
        // the lower one in its crease with a box wall, met at one instant for ever,
        // scan case 11682011839193705786)
        const Vec<D> v = q.v - p.v, nn = r * (1.0 / norm(r));
        const Vec<D> a_k =
            pk.gliding() ? k.motion().glide_acceleration(pk.glide_slot()) : k.motion().gravity();
        // slow across the contact either way (an approach as slow lands as lightly; one
        // by round-off, seen, met the glider again and again at one instant)
        const double u = dot(v, nn);
        const double pull = dot(a_k - a, nn) + norm2(v - nn * u) / norm(r);
        found = std::abs(u) < k.rest().speed && pull < 0.0;
    });
    return found;
}

// Glider i's contact leaves the face it glided on: it flies on from there. Its centre
// is put just past the edge it reached, where the face no longer holds it: the time the
// edge was reached is rounded, and a centre left a rounding short of the edge, pressed
// onto the face with no speed across it, met the face at once, glided on it and left it
// at once, for ever (seen: a disc leaving a segment's end). The step is of the order of
// the rounding of the coordinates: the glide's end to round-off.
template <int D, Motion<D> M>
template <class Kernel>
inline void Glides<D, M>::leave_glide(Kernel k, std::uint32_t i) {
    k.advance(i);
    if constexpr (M::has_field) {
        const Box<D>& box = k.box();
        auto& x = k.particles().state[i].x;
        // the edge it reached (inward normal n through e, of face o): the one it is
        // nearest inside, of either face of a crease; stepped past until that face's own
        // test (face_time's) no longer has it over it
        Vec<D> e{}, n{};
        std::uint32_t o = none;
        double inside = never;
        for (const std::uint32_t w : on_[i]) {
            if (w == none) continue;
            Obstacles<D>::for_each_edge(box, w, [&](const Vec<D>& through, const Vec<D>& normal) {
                if (const double h = dot(x - through, normal); h < inside)
                    inside = h, e = through, n = normal, o = w;
            });
        }
        auto over = [&](const Vec<D>& y) { return Obstacles<D>::over(box, o, y); };
        if (inside < never) {
            double size = 0.0;
            for (int a = 0; a < D; ++a) size = std::max(size, std::abs(x[a]));
            double step = std::numeric_limits<double>::epsilon() * size;
            for (int s = 0; s < 16 && over(x); ++s, step *= 2.0)
                x -= n * (std::max(dot(x - e, n), 0.0) + step);
            // ... and clear of the edge by a few roundings of that test, so that a
            // coplanar neighbour sharing the edge (a mesh's, a toothed floor's) has the
            // centre over it: a centre just past the edge can be over neither, by
            // round-off, and was then met by no face (nor by a rim: it rests on the
            // face's height) and sank through the neighbour under the field (scan case
            // 11607331221862812016, a sphere on a corrugated strip, 1.8e-5 of its
            // radius deep at t = 6.94)
            const double clear =
                leave_edge_clearance_ulps * std::numeric_limits<double>::epsilon() * size;
            if (const double h = dot(x - e, n); h > -clear) x -= n * (h + clear);
        }
        // A centre a rounding below the face it glided on, its speed from the face one
        // too small to rise out of that, would fall through the face's coplanar
        // neighbour unmet (first_contact takes a gap below zero, rising, for a centre
        // beside the obstacle): put back on the contact, as after a bounce
        // (back_to_contact; the same case, 1.6e-3 of the radius deep at t = 4.07, its
        // gap -4.4e-16 and its speed from the face 2.4e-15 when it left the face)
        for (const std::uint32_t w : on_[i])
            if (w != none) k.back_to_contact(i, w);
    }
    end_glide(k, i);
    k.particles().state[i].bump();
    k.predict_all(i);
}

// When the contact of glider i, whose flight from now is q, leaves a face it glides
// on: its centre's projection along the face reaches an end of the segment or an edge of
// the triangle, each a one-dimensional gap closing as first_contact solves it (the
// glide's pull along the face, a, its acceleration there); never on a plane wall. In a
// crease, the first of its two faces' (the edge the two share, along the glide, stays
// at its gap).
template <int D, Motion<D> M>
template <class Kernel>
inline double Glides<D, M>::glide_end_time(Kernel k, std::uint32_t i,
                                           const ParticleState<D>& q) const requires M::has_field {
    const M& m = flight_motion(q, k.motion());
    const Box<D>& box = k.box();
    double t = never;
    for (const std::uint32_t w : on_[i]) {
        if (w == none) continue;
        // the gap inside the edge of inward normal n through point e
        Obstacles<D>::for_each_edge(box, w, [&](const Vec<D>& e, const Vec<D>& n) {
            t = std::min(t,
                         m.first_contact(std::max(dot(q.x - e, n), 0.0), dot(q.v, n), m.along(n)));
        });
    }
    return t;
}

// A restored glider's faces: a face's own slot, or a crease's slot in the table.
template <int D, Motion<D> M>
inline bool Glides<D, M>::glide_faces_valid(const Particles<D>& particles, std::uint32_t i) const {
    if (on_.empty()) return false;
    const auto [w, w2] = on_[i];
    const std::uint32_t slot = particles.state[i].glide_slot();
    if (w >= slot_of_.size()) return false;
    if (w2 == none) return slot_of_[w] == slot;
    return w2 < slot_of_.size() && w2 != w && slot < table_->size();
}

// Time until i, whose flight from now is q (x seen beside j), first meets particle j,
// whose flight from now is (x_j, v_j) on glide slot j_slot, when their flights differ
// in kind (one glides, or they glide on different supports): their relative motion is
// then curved. Both flights are linear in their velocities and their pulls with the
// same drag (motions.hpp), so the relative flight is the field's form with the relative
// velocity and the pull a_i − a_j, met by the fixed point: the search of a particle at
// rest, and with it its window and rescans. (When i glides and j falls, j's flight is
// taken relative to i's, so that a glide along a floor, a = 0, is searched as before.)
template <int D, Motion<D> M>
inline double Glides<D, M>::time_to_glider(const M& field, ParticleState<D> q, const Vec<D>& x_j,
                                           const Vec<D>& v_j, std::uint32_t j_slot, double sigma,
                                           double window) requires M::has_field {
    const Vec<D>& g = field.gravity();
    if (q.gliding() && j_slot == 0) { // i glides, j falls: j's flight relative to i's
        const Vec<D> x_i = q.x;
        const M relative(g - field.glide_acceleration(q.glide_slot()), field.drag());
        q.x = x_j, q.v = v_j - q.v;
        q.set_glide(0);
        return end_time(relative, x_i, q, sigma, window);
    }
    const Vec<D> a_i = q.gliding() ? field.glide_acceleration(q.glide_slot()) : g;
    const Vec<D> a_j = j_slot > 0 ? field.glide_acceleration(j_slot) : g;
    const M relative(a_i - a_j, field.drag());
    q.v -= v_j;
    q.set_glide(0);
    return end_time(relative, x_j, q, sigma, window);
}

// The glide table: the pull along each support face a particle glides on, a = g −
// (g.n) n, one slot per distinct a, given to a face when a particle first glides on it
// (glide_slot: a mesh has many faces, most of which nothing glides on: the 3D
// hourglass's upper cone has 48, its lower cone, an overhang, 48 more), at most
// glide_slots − 1 of them: a face beyond them has none, and its particles bounce as
// they did before glides. The table depends on the run's history, so it is saved with
// the engine. On an axis normal a is g with that coordinate zero, exactly (a floor
// square to the field: a = 0). Thermal walls re-emit and hold nothing; segment ends and
// triangle rims are not faces.
template <int D, Motion<D> M>
inline void Glides<D, M>::set_up(const Box<D>& box, M& motion, const Particles<D>& particles) {
    if constexpr (M::has_field) {
        table_ = std::make_shared<std::vector<Vec<D>>>(1); // slot 0: no glide
        table_->reserve(glide_slots);                      // (Field reads it through the pointer)
        slot_of_.assign(Obstacles<D>::count(box), unslotted);
        set_up_glide_motions(motion);
        on_.assign(particles.size(), Faces{none, none});
        gliding_ = static_cast<std::uint32_t>(
            std::count_if(particles.state.begin(), particles.state.end(),
                          [](const ParticleState<D>& p) { return p.gliding(); }));
    }
}

// A restored table: whole and consistent with the obstacles, or ArchiveError; then the
// flights of its slots.
template <int D, Motion<D> M>
inline void Glides<D, M>::check_restored(std::size_t obstacles, M& motion) {
    if constexpr (M::has_field) {
        if (table_->empty() || table_->size() > glide_slots || slot_of_.size() != obstacles ||
            std::any_of(slot_of_.begin(), slot_of_.end(),
                        [&](std::uint8_t k) { return k != unslotted && k >= table_->size(); }))
            throw ArchiveError("the state's glide table is damaged");
        set_up_glide_motions(motion);
    }
}

// The flight of each slot of the table (reserved whole: flight_motion's references
// stay valid as slots are added).
template <int D, Motion<D> M>
inline void Glides<D, M>::set_up_glide_motions(M& motion) requires M::has_field {
    motion.set_glides(table_);
    motions_.clear();
    motions_.reserve(glide_slots);
    for (const Vec<D>& a : *table_) add_glide_motion(motion, a);
}

template <int D, Motion<D> M>
inline void Glides<D, M>::add_glide_motion(const M& field, const Vec<D>& a) requires M::has_field {
    motions_.emplace_back(a, field.drag());
    motions_.back().set_glides(table_);
}

// The slot of obstacle w's face (0: none), given now if it has none yet.
template <int D, Motion<D> M>
template <class Kernel>
inline std::uint32_t Glides<D, M>::glide_slot(Kernel k, std::uint32_t w) requires M::has_field {
    if (w >= slot_of_.size()) return 0;
    if (slot_of_[w] != unslotted) return slot_of_[w];
    slot_of_[w] = 0;
    const Vec<D> n = Obstacles<D>::face_normal(k.box(), w);
    const Vec<D>& g = k.motion().gravity();
    if (dot(g, n) == 0.0) return 0; // not a face, or the field never presses onto it
    return slot_of_[w] = static_cast<std::uint8_t>(glide_slot_for(k, along_face(g, n)));
}

// The slot of pull a (0: every slot has a glider on it), given now if no slot has it yet.
// A full table gives a slot no particle glides in now to the new pull, and the
// obstacles that had that slot look theirs up again when next met. Slots are given as
// faces are first met and there are glide_slots - 1 of them (the particle's counter keeps
// its slot in 6 bits): a mesh of many slopes fills them. Seen: the 3D hourglass's cones
// (480 triangles) took every slot before any sphere met the floor's fan; a sphere
// sliding at 0.16 across the floor then bounced on it under TC, elastic at a normal
// speed of 5e-10, 12 million times in 0.003 time units (seed 8, t = 19.26; 47 s to
// t = 22 against 2 s).
template <int D, Motion<D> M>
template <class Kernel>
inline std::uint32_t Glides<D, M>::glide_slot_for(Kernel k, const Vec<D>& a) requires M::has_field {
    auto& table = *table_;
    std::size_t s = 1;
    while (s < table.size() && !(table[s] == a)) ++s;
    if (s < table.size()) return static_cast<std::uint32_t>(s);
    if (table.size() < glide_slots) {
        table.push_back(a);
        add_glide_motion(k.motion(), a);
        return static_cast<std::uint32_t>(s);
    }
    std::array<bool, glide_slots> used{};
    for (const auto& p : k.particles().state) used[p.glide_slot()] = true;
    s = 1;
    while (s < glide_slots && used[s]) ++s;
    if (s == glide_slots) return 0; // every slot in use: it bounces as before glides
    table[s] = a;
    motions_[s] = M(a, k.motion().drag());
    motions_[s].set_glides(table_);
    for (std::uint8_t& slot : slot_of_)
        if (slot == s) slot = unslotted;
    return static_cast<std::uint32_t>(s);
}

} // namespace choc
