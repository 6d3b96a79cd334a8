// The rest model's glides (docs/ARCHITECTURE.md, "The engine's parts"; resting.hpp;
// REFERENCE, "Particles at rest"): a particle that leaves a floor slowly slides along it
// (or along a crease of two faces) under the pull along its supports, on a flight of its
// glide slot, until it leaves their edge or meets something. Members of Engine, defined
// apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

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
//
// Returns the glide's slot (glides_) if i, just reflected by obstacle w at now, glides
// on it, else 0.
template <int D, Calendar Cal, Motion<D> Motion>
inline std::uint32_t Engine<D, Cal, Motion>::glide_slot_on(std::uint32_t i, std::uint32_t w) {
    if constexpr (Motion::has_field) {
        if (!rest_.on()) return 0;
        const std::uint32_t slot = glide_slot(w);
        if (slot == 0) return 0;
        const auto& p = particles_.state[i];
        const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
        if (o.triangle && !box_.triangles[o.index].over_face(p.x)) return 0; // a rim
        const Wall<D> plane = obstacle_plane(box_, w, p.x);
        const double pull = motion_.along(plane.normal), u = dot(p.v, plane.normal);
        if (!(pull < 0.0)) return 0; // the field does not press it on
        if (std::abs(u) < rest_.speed) return slot;
    }
    return 0;
}

// The face that holds i where obstacle w met it: w, or, where w is a triangle met at a
// rim that lies in the plane of a face i's centre is over and touches (a coplanar
// neighbour of a mesh, sharing that edge), that face. A sphere lying on the plane at
// their shared edge touches both: the neighbour's edge is in the plane, at distance a
// from the centre to round-off, and with the field pressing the sphere onto the plane
// the edge's search (convex_time.hpp) meets it at once, its F'' = 2 (r.g + |v_t|²) < 0:
// one constraint, the plane's (GroupStep::on_surface_met keeps it once). Met as a rim,
// it glided on nothing (glide_slot_on refuses rims), was reflected by round-off and
// met again an ulp of the clock later, for ever, its flights too short to move it, so
// that a neighbour ran into it. Seen (scan case 13963152623220796937, a ramp of two
// coplanar triangles): sphere 286 left by a glide's end 16 ulps over triangle 0
// (leave_glide's clearance), put to rest there, woken at t = 2.2716 by sphere 647 and
// sliding off at 1.05, 0.09 across the shared edge away from it: triangle 1's rim met
// it 4.9 million times while the clock crept by ulps, and 647 came 1e-9 into it. As
// the face's own contact it glides, and the glide passes by the triangles in its
// plane (predict_triangles). The face is the plane's to round-off: parallel to w
// (same_plane_tolerance) and touching within the contact tolerance.
template <int D, Calendar Cal, Motion<D> Motion>
inline std::uint32_t
Engine<D, Cal, Motion>::face_beside_rim(std::uint32_t i,
                                        std::uint32_t w) requires Motion::has_field {
    const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
    if (!o.triangle) return w;
    const Vec<D>& x = particles_.state[i].x;
    const Triangle<D>& rim = box_.triangles[o.index];
    if (rim.over_face(x)) return w;
    const double a = particles_.radius(i);
    std::uint32_t face = w;
    for_each_face_near(i, [&](std::uint32_t k, const Vec<D>&) {
        const Obstacle f = Obstacle::decode(k, box_.walls.size(), box_.segments.size());
        if (face != w || !f.triangle) return;
        const Triangle<D>& tri = box_.triangles[f.index];
        if (std::abs(dot(tri.normal, rim.normal)) > 1.0 - same_plane_tolerance &&
            std::abs(std::abs(tri.height(x)) - a) <= contact_tolerance_ * a)
            face = k;
    });
    return face;
}

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::start_glide(std::uint32_t i, std::uint32_t w,
                                                std::uint32_t slot) requires Motion::has_field {
    auto& p = particles_.state[i];
    const Vec<D> n = obstacle_plane(box_, w, p.x).normal;
    const double k = kinetic_energy(particles_.mass(i), p.v);
    p.v = along_face(p.v, n); // the velocity across the support taken
    const Crease crease = crease_of(i, w, n, slot);
    if (crease.w != none) [[unlikely]]
        p.v = crease.v, slot = crease.slot;
    const double lost = k - kinetic_energy(particles_.mass(i), p.v);
    kinetic_change(p.species, -lost);
    tally_.rest_energy += lost;
    if (crease.w != none && D == 2) [[unlikely]] { // a corner: nowhere to glide (v = 0)
        ++tally_.leans;
        return put_to_rest(i);
    }
    if (rest_.on() && loaded(i, motion_.glide_acceleration(slot))) [[unlikely]] {
        ++tally_.leans;
        return put_to_rest(i);
    }
    ++tally_.glides;
    ++gliding_;
    p.set_glide(slot);
    glide_on_[i] = {w, crease.w};
    p.bump();
    predict_all(i);
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
template <int D, Calendar Cal, Motion<D> Motion>
inline auto Engine<D, Cal, Motion>::crease_of(std::uint32_t i, std::uint32_t w, const Vec<D>& n1,
                                              std::uint32_t slot)
    -> Crease requires Motion::has_field {
    const auto& p = particles_.state[i];
    const Vec<D>& g = motion_.gravity();
    const Vec<D> a1 = motion_.glide_acceleration(slot);
    Crease crease;
    for_each_face_near(i, [&](std::uint32_t w2, const Vec<D>& n2) {
        if (crease.w != none || w2 == w) return;
        if (!(dot(a1, n2) < 0.0) || !(std::abs(dot(p.v, n2)) < rest_.speed)) return;
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
            const std::uint32_t k = glide_slot_for(a);
            if (k == 0) return; // the table is full: it glides on w as before glides in creases
            crease.w = w2, crease.slot = k, crease.v = v;
        }
    });
    return crease;
}

// Calls f(w, n) for each face particle i (at now) touches within rest reach: obstacle
// number w, its unit normal n towards i. The faces that reflect (a thermal wall re-emits)
// of plane walls, segments (where i is over the segment) and triangles (over the face,
// not a rim; a one-sided triangle from the front).
template <int D, Calendar Cal, Motion<D> Motion>
template <class F>
inline void Engine<D, Cal, Motion>::for_each_face_near(std::uint32_t i,
                                                       F&& f) requires Motion::has_field {
    const Vec<D>& x = particles_.state[i].x;
    const double a = particles_.radius(i), reach = rest_.reach;
    for (std::uint32_t k = 0; k < box_.walls.size(); ++k) {
        const auto& wall = box_.walls[k];
        if (!wall.thermal() && wall.distance(x) - a <= reach) f(k, wall.normal);
    }
    for (std::uint32_t k = 0; k < box_.segments.size(); ++k) {
        const auto& seg = box_.segments[k];
        const double along = seg.along(x);
        if (along < 0.0 || along > seg.length || std::abs(seg.height(x)) - a > reach) continue;
        const std::uint32_t w = Obstacle::encode_segment(box_.walls.size(), k, Segment<D>::face);
        f(w, obstacle_plane(box_, w, x).normal);
    }
    const TriangleCells<D>& triangles = obstacles_.triangles().cells();
    if (triangles.empty()) return;
    const std::uint32_t cell = grids_.cells().cell_of(i);
    for (const auto* e = triangles.begin(cell); e != triangles.end(cell); ++e) {
        const Triangle<D>& tri = box_.triangles[e->index];
        if (!tri.over_face(x) || std::abs(tri.height(x)) - a > reach) continue;
        if (tri.one_sided && tri.height(x) <= 0.0) continue;
        const std::uint32_t w =
            Obstacle::encode_triangle(box_.walls.size(), box_.segments.size(), e->index);
        f(w, obstacle_plane(box_, w, x).normal);
    }
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
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::loaded(std::uint32_t i,
                                           const Vec<D>& a) requires Motion::has_field {
    const auto& p = particles_.state[i];
    bool found = false;
    for_each_near(i, [&](std::uint32_t k, const Vec<D>& shift) {
        const auto& pk = particles_.state[k];
        if (found || k == i || pk.resting()) return;
        const ParticleState<D> q = flight_from_now(k);
        const Vec<D> r = q.x + shift - p.x; // from i to k's image beside it
        const double sigma = particles_.table.pair_sigma(p.species, pk.species);
        if (norm(r) - sigma > contact_tolerance_ * sigma) return; // not touching
        // k's motion relative to i's glide: velocity v, the pull a_k − a (a_k: g, or
        // k's own glide's pull: a glider sliding down onto one gliding slower, in a
        // crease, pushes it along as one lying on it does; seen: two spheres on a slope,
        // the lower one in its crease with a box wall, met at one instant for ever,
        // scan case 11682011839193705786)
        const Vec<D> v = q.v - p.v, n = r * (1.0 / norm(r));
        const Vec<D> a_k =
            pk.gliding() ? motion_.glide_acceleration(pk.glide_slot()) : motion_.gravity();
        // slow across the contact either way (an approach as slow lands as lightly; one
        // by round-off, seen, met the glider again and again at one instant)
        const double u = dot(v, n);
        const double pull = dot(a_k - a, n) + norm2(v - n * u) / norm(r);
        found = std::abs(u) < rest_.speed && pull < 0.0;
    });
    return found;
}

// i (advanced to now) has an event: its glide, if it glided, ends here.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::end_glide(std::uint32_t i) {
    if constexpr (Motion::has_field)
        if (particles_.state[i].gliding()) [[unlikely]] {
            particles_.state[i].set_glide(0);
            --gliding_;
        }
}

// Glider i's contact leaves the face it glided on: it flies on from there. Its centre
// is put just past the edge it reached, where the face no longer holds it: the time the
// edge was reached is rounded, and a centre left a rounding short of the edge, pressed
// onto the face with no speed across it, met the face at once, glided on it and left it
// at once, for ever (seen: a disc leaving a segment's end). The step is of the order of
// the rounding of the coordinates: the glide's end to round-off.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::leave_glide(std::uint32_t i) {
    advance(i);
    if constexpr (Motion::has_field) {
        auto& x = particles_.state[i].x;
        // the edge it reached (inward normal n through e, of face o): the one it is
        // nearest inside, of either face of a crease; stepped past until that face's own
        // test (face_time's) no longer has it over it
        Vec<D> e{}, n{};
        Obstacle o{};
        double inside = never;
        for (const std::uint32_t w : glide_on_[i]) {
            if (w == none) continue;
            const Obstacle face = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
            for_each_edge(face, [&](const Vec<D>& through, const Vec<D>& normal) {
                if (const double h = dot(x - through, normal); h < inside)
                    inside = h, e = through, n = normal, o = face;
            });
        }
        auto over = [&](const Vec<D>& y) {
            if (o.triangle) return box_.triangles[o.index].over(y);
            const auto& seg = box_.segments[o.index];
            const double along = seg.along(y);
            return along >= 0.0 && along <= seg.length;
        };
        if (inside < never) {
            double size = 0.0;
            for (int a = 0; a < D; ++a) size = std::max(size, std::abs(x[a]));
            double step = std::numeric_limits<double>::epsilon() * size;
            for (int k = 0; k < 16 && over(x); ++k, step *= 2.0)
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
        for (const std::uint32_t w : glide_on_[i])
            if (w != none) back_to_contact(i, w);
    }
    end_glide(i);
    particles_.state[i].bump();
    predict_all(i);
}

// When the contact of glider i, whose flight from now is q, leaves a face it glides
// on: its centre's projection along the face reaches an end of the segment or an edge of
// the triangle, each a one-dimensional gap closing as first_contact solves it (the
// glide's pull along the face, a, its acceleration there); never on a plane wall. In a
// crease, the first of its two faces' (the edge the two share, along the glide, stays
// at its gap).
template <int D, Calendar Cal, Motion<D> Motion>
inline double
Engine<D, Cal, Motion>::glide_end_time(std::uint32_t i,
                                       const ParticleState<D>& q) const requires Motion::has_field {
    const Motion& m = flight_motion(q);
    double t = never;
    for (const std::uint32_t w : glide_on_[i]) {
        if (w == none) continue;
        const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
        // the gap inside the edge of inward normal n through point e
        for_each_edge(o, [&](const Vec<D>& e, const Vec<D>& n) {
            t = std::min(t,
                         m.first_contact(std::max(dot(q.x - e, n), 0.0), dot(q.v, n), m.along(n)));
        });
    }
    return t;
}

// Calls f(e, n) for each edge of obstacle o's face, through point e with unit normal n
// in the face's plane towards its inside: a segment's two ends, a triangle's three
// edges, nothing for a plane wall.
template <int D, Calendar Cal, Motion<D> Motion>
template <class F>
inline void Engine<D, Cal, Motion>::for_each_edge(const Obstacle& o, F&& f) const {
    if (o.triangle) {
        const auto& tri = box_.triangles[o.index];
        for (int k = 0; k < 3; ++k) f(tri.vertex[k], tri.inward[k]);
    } else if (!o.wall) {
        const auto& seg = box_.segments[o.index];
        f(seg.from, seg.tangent);
        f(seg.to, seg.tangent * -1.0);
    }
}

// The obstacles i glides on (none if it does not; the second none but in a crease): its
// predictions pass them by, its flight being along them to round-off.
template <int D, Calendar Cal, Motion<D> Motion>
inline auto Engine<D, Cal, Motion>::glide_support(const ParticleState<D>& p, std::uint32_t i) const
    -> GlideFaces {
    if constexpr (Motion::has_field)
        if (p.gliding()) [[unlikely]]
            return glide_on_[i];
    return {none, none};
}

// A restored glider's faces: a face's own slot, or a crease's slot in the table.
template <int D, Calendar Cal, Motion<D> Motion>
inline bool Engine<D, Cal, Motion>::glide_faces_valid(std::uint32_t i) const {
    if (glide_on_.empty()) return false;
    const auto [w, w2] = glide_on_[i];
    const std::uint32_t slot = particles_.state[i].glide_slot();
    if (w >= glide_slot_of_.size()) return false;
    if (w2 == none) return glide_slot_of_[w] == slot;
    return w2 < glide_slot_of_.size() && w2 != w && slot < glide_table_->size();
}

// Time until i, whose flight from now is q (x seen beside j), first meets particle j,
// whose flight from now is (x_j, v_j) on glide slot j_slot, when their flights differ
// in kind (one glides, or they glide on different supports): their relative motion is
// then curved. Both flights are linear in their velocities and their pulls with the
// same drag (motions.hpp), so the relative flight is the field's form with the relative
// velocity and the pull a_i − a_j, met by the fixed point: the search of a particle at
// rest, and with it its window and rescans. (When i glides and j falls, j's flight is
// taken relative to i's, so that a glide along a floor, a = 0, is searched as before.)
template <int D, Calendar Cal, Motion<D> Motion>
inline double
Engine<D, Cal, Motion>::time_to_glider(std::uint32_t i, ParticleState<D> q, const Vec<D>& x_j,
                                       const Vec<D>& v_j, std::uint32_t j_slot,
                                       double sigma) const requires Motion::has_field {
    const Vec<D>& g = motion_.gravity();
    const Schedule& s = schedule_[i];
    const double window = std::min(pair_horizon(s), s.crossing_time - now_);
    if (q.gliding() && j_slot == 0) { // i glides, j falls: j's flight relative to i's
        const Vec<D> x_i = q.x;
        const Motion relative(g - motion_.glide_acceleration(q.glide_slot()), motion_.drag());
        q.x = x_j, q.v = v_j - q.v;
        q.set_glide(0);
        return end_time(relative, x_i, q, sigma, window);
    }
    const Vec<D> a_i = q.gliding() ? motion_.glide_acceleration(q.glide_slot()) : g;
    const Vec<D> a_j = j_slot > 0 ? motion_.glide_acceleration(j_slot) : g;
    const Motion relative(a_i - a_j, motion_.drag());
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
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::set_up_glides() {
    if constexpr (Motion::has_field) {
        glide_table_ = std::make_shared<std::vector<Vec<D>>>(1); // slot 0: no glide
        glide_table_->reserve(glide_slots); // (Field reads it through the pointer)
        glide_slot_of_.assign(box_.walls.size() + 3 * box_.segments.size() + box_.triangles.size(),
                              unslotted);
        set_up_glide_motions();
        glide_on_.assign(particles_.size(), GlideFaces{none, none});
        gliding_ = static_cast<std::uint32_t>(
            std::count_if(particles_.state.begin(), particles_.state.end(),
                          [](const ParticleState<D>& p) { return p.gliding(); }));
    }
}

// The flight of each slot of the table (reserved whole: flight_motion's references
// stay valid as slots are added).
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::set_up_glide_motions() requires Motion::has_field {
    motion_.set_glides(glide_table_);
    glide_motions_.clear();
    glide_motions_.reserve(glide_slots);
    for (const Vec<D>& a : *glide_table_) add_glide_motion(a);
}

template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::add_glide_motion(const Vec<D>& a) requires Motion::has_field {
    glide_motions_.emplace_back(a, motion_.drag());
    glide_motions_.back().set_glides(glide_table_);
}

// The slot of obstacle w's face (0: none), given now if it has none yet.
template <int D, Calendar Cal, Motion<D> Motion>
inline std::uint32_t
Engine<D, Cal, Motion>::glide_slot(std::uint32_t w) requires Motion::has_field {
    if (w >= glide_slot_of_.size()) return 0;
    if (glide_slot_of_[w] != unslotted) return glide_slot_of_[w];
    glide_slot_of_[w] = 0;
    const Obstacle o = Obstacle::decode(w, box_.walls.size(), box_.segments.size());
    Vec<D> n{};
    if (o.wall && !box_.walls[o.index].thermal())
        n = box_.walls[o.index].normal;
    else if (o.triangle)
        n = box_.triangles[o.index].normal;
    else if (!o.wall && o.part == Segment<D>::face)
        n = box_.segments[o.index].normal;
    const Vec<D>& g = motion_.gravity();
    if (dot(g, n) == 0.0) return 0; // not a face, or the field never presses onto it
    return glide_slot_of_[w] = static_cast<std::uint8_t>(glide_slot_for(along_face(g, n)));
}

// The slot of pull a (0: the table is full), given now if no slot has it yet.
template <int D, Calendar Cal, Motion<D> Motion>
inline std::uint32_t
Engine<D, Cal, Motion>::glide_slot_for(const Vec<D>& a) requires Motion::has_field {
    auto& table = *glide_table_;
    std::size_t k = 1;
    while (k < table.size() && !(table[k] == a)) ++k;
    if (k == table.size()) {
        if (table.size() == glide_slots) return 0; // full: it bounces as before
        table.push_back(a);
        add_glide_motion(a);
    }
    return static_cast<std::uint32_t>(k);
}

} // namespace choc
