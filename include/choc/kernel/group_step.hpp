// The simultaneous step of the event loop (epsilon > 0; docs/ARCHITECTURE.md,
// "Simultaneous collisions"): the engine hands over the event at the top of its calendar,
// and this takes out every event of the window, adds the touching contacts, splits the
// contact graph into components and resolves each one. The engine keeps draining the
// calendar; this file holds what happens within one step.
//
// The event at the top (time t) and every valid pair or wall event up to t + epsilon
// are taken out of the calendar; with contact_gap > 0, touching pairs and walls that
// are not separating join them, transitively. Everything is advanced to t, the contact
// graph is split into its connected components (contact_graph.hpp), and each component is
// resolved at t: one contact by the binary rule, more by the group rule
// (group_rule.hpp). Resolving at the earliest time means the later pairs of the
// window still have a gap of at most |u| epsilon, never an overlap. Cell crossings met
// in the window change no velocity, but a pair or wall event behind one belongs to the
// window too: the crossing is made at its own time to find it, then undone, and happens
// again after the step (look_past, below).
//
// GroupStep works on the engine's state (calendar, schedules, cells, particles, tally)
// through the engine's Kernel it is given (engine/kernel.hpp: the operations it may call,
// by name); it keeps only its scratch, reused from step to step.
#pragma once

#include "choc/kernel/collide.hpp"
#include "choc/kernel/contact_graph.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/group_rule.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/obstacle.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/resting_contacts.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/kernel/wall.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace choc {

template <int D>
class GroupStep {
  public:
    // Resolves the step whose first event is `first`'s (at the engine's now).
    template <class Kernel>
    void resolve(Kernel e, std::uint32_t first) {
        using Kind = typename Kernel::Kind;
        if (member_.size() != e.particles().size()) member_.assign(e.particles().size(), 0);
        const double until = e.now() + e.settings().epsilon;
        std::vector<Crossed<Kernel>> crossed; // (allocates only when a crossing comes up)
        take_event(e, first);
        while (e.calendar().top_time() <= until) {
            const std::uint32_t k = e.calendar().top();
            const Kind kind = e.schedule(k).kind;
            if (kind == Kind::pair && e.stale(k)) {
                e.renew(k); // predicted from now: its new event may still fall in the window
            } else if ((kind == Kind::pair || kind == Kind::wall) && e.outside_groups(k)) {
                deferred_.push_back(k); // the binary rules', after the step
                e.calendar().set(k, never);
            } else if (kind == Kind::pair || kind == Kind::wall) {
                take_event(e, k);
            } else {
                look_past(e, k, crossed);
            }
        }
        undo(e, crossed);
        for (const std::uint32_t b : bodies_) bring_to_now(e, b);
        for (std::size_t n = 0; n < bodies_.size(); ++n) add_touching(e, bodies_[n]);

        // One contact (the usual step in a fluid: nothing else within epsilon, nothing
        // touching) needs no graph.
        if (contacts_.size() == 1)
            resolve_component(e, {{0}, {}});
        else
            for (const ContactComponent& c : contact_components(contacts_)) resolve_component(e, c);

        // a deferred event whose particle the step did not take is as it was: put back
        for (const std::uint32_t k : deferred_)
            if (!member_[k]) e.reschedule(k);
        deferred_.clear();
        for (const std::uint32_t b : bodies_) {
            e.particles().state[b].bump();
            member_[b] = 0;
        }
        if (e.rest().on()) {
            settle_and_predict(e);
        } else {
            for (const auto& [a, b] : rested_)
                resting_.record(e.now(), e.id(a), e.id(b), e.particles().state[a].count,
                                e.particles().state[b].count);
            for (const std::uint32_t b : bodies_) e.predict_all(b);
        }
        rested_.clear();
        for (const auto& c : crossed) e.reschedule(c.particle); // its crossing, put back
        bodies_.clear();
        contacts_.clear();
    }

    // The pair contacts the group rule left at rest at this instant (resting_contacts.hpp).
    RestingContacts& resting() { return resting_; }
    const RestingContacts& resting() const { return resting_; }

    // Whether a scan may see i and j overlap: while look_past makes a crossing later than
    // the step's time, a particle of the step is still on the flight it had before its
    // event, which the step ends at t; that flight may run into another after the event,
    // by at most |u| epsilon. Two particles outside the step may not overlap then either:
    // their flights hold, and a contact of theirs before the crossing would have been an
    // event of the window, which the step takes with both.
    bool overlap_expected(std::uint32_t i, std::uint32_t j) const {
        return looking_past_ && (member_[i] || member_[j]);
    }

  private:
    // A crossing look_past made and what it changed, as it was before: the particle's
    // state (a periodic wrap moves it), its candidate events, its cell in grids 0 .. its
    // level (from `cells` on in cells_) and its place in its own grid's list.
    template <class Kernel>
    struct Crossed {
        std::uint32_t particle;
        ParticleState<D> state;
        typename Kernel::Schedule schedule;
        std::size_t cells;
        std::uint32_t slot;
    };

    // A crossing of k at t_c inside the window (t <= t_c <= t + epsilon). Behind it k may
    // have a pair or wall event of the window that its candidates cannot show: the cells
    // it enters hold partners it has not looked at, and a segment's or triangle's contact
    // is searched for only up to the crossing. Put back for after the step (as before
    // issue 40), such an event was resolved alone right after the group instead of in it
    // (the oracle's aligned lattices, whose collisions fall on cell faces).
    //
    // Moving k into its new cell at t instead is not exact: with cells one diameter wide,
    // a particle listed in a cell it is still |v| epsilon short of can miss a contact by
    // about that much. So the crossing is made as the event loop makes it, at t_c: k
    // enters its cell, looks at the layer that brings near and at the walls from there,
    // and is rescheduled. No velocity changes before the step is resolved, so every
    // flight is still the one it was: what k finds is what a run with epsilon = 0 finds at
    // t_c, exact, and an event up to t + epsilon comes up in this loop, in time order, to
    // be taken. Crossings come up in time order too: the lists a later crossing of the
    // window scans are those of its time. A stale pair renewed meanwhile (from t, as
    // ever) is renewed at its own event, no earlier than the crossings made: the lists
    // hold every partner it can meet from then on, and whatever it finds is exact.
    //
    // Before the particles are advanced to t, where each is still in its old cell, every
    // crossing made is undone, the last first (undo): lists (their order too), state,
    // candidates and the tally's count are as they were, and the crossing is put back, to
    // be made again after the step. A step whose crossings reveal nothing thus goes on
    // exactly as before; k, if its event joined the step, is predicted from its old cell
    // at t like every particle of the step.
    template <class Kernel>
    void look_past(Kernel e, std::uint32_t k, std::vector<Crossed<Kernel>>& crossed) {
        const std::size_t own = e.level_of(k);
        if (crossed.empty()) wrapped_potential_ = e.wrapped_potential();
        crossed.push_back(
            {k, e.particles().state[k], e.schedule(k), cells_.size(), e.grid(own).slot_of(k)});
        for (std::size_t l = 0; l <= own; ++l) cells_.push_back(e.grid(l).cell_of(k));
        const double t = e.now();
        e.set_now(e.schedule(k).crossing_time);
        looking_past_ = true;
        e.cross(k);
        looking_past_ = false;
        e.set_now(t);
    }

    template <class Kernel>
    void undo(Kernel e, std::vector<Crossed<Kernel>>& crossed) {
        if (crossed.empty()) return;
        for (auto c = crossed.rbegin(); c != crossed.rend(); ++c) {
            const std::uint32_t k = c->particle;
            const std::size_t own = e.level_of(k);
            for (std::size_t l = 0; l <= own; ++l) {
                auto& grid = e.grid(l);
                const std::uint32_t cell = cells_[c->cells + l];
                if (grid.cell_of(k) == cell) continue;
                if (l == own)
                    grid.unmove(k, cell, c->slot);
                else
                    grid.place(k, cell); // (a finer grid: k's cell there, not in its lists)
            }
            e.particles().state[k] = c->state;
            e.schedule(k) = c->schedule;
            e.calendar().set(k, never); // until resolve puts its crossing back
        }
        e.wrapped_potential() = wrapped_potential_;
        e.tally().crossings -= crossed.size();
        cells_.clear();
    }

    // With the rest model, after a step: each particle of it is put to rest if slow and
    // held, or glides along the obstacle it met, or is predicted again, as after a binary
    // collision (Engine::predict_or_rest). A glide's start takes the particle's speed
    // across the support and counts as a change of its velocity, so a pair contact that
    // the group rule left at rest is recorded (resting_contacts.hpp) with the counts its
    // particles have after that, if their velocities are still those the rule left (a
    // glide along a face the particle already moves along changes none), or if it is
    // still at rest or separating by the rule's standard; its particles are predicted
    // again (they were predicted before it was recorded). Recorded before, with the counts
    // before the glide, a disc gliding on a tilted plane and grazing a neighbour in a group
    // with the plane met the neighbour again at once, 4096 groups at t = 13.45 without the
    // clock moving (scan case 7316897371785972483, epsilon = 1e-6); judged again by the
    // pair's own speeds instead of the group's largest, at t = 22.13.
    template <class Kernel>
    void settle_and_predict(Kernel e) {
        solved_.clear();
        for (const auto& [a, b] : rested_)
            solved_.emplace_back(e.particles().state[a].v, e.particles().state[b].v);
        for (const std::uint32_t b : bodies_) e.predict_or_rest(b, obstacle_met(e, b));
        again_.clear();
        for (std::size_t n = 0; n < rested_.size(); ++n) {
            const auto [a, b] = rested_[n];
            const auto& pa = e.particles().state[a];
            const auto& pb = e.particles().state[b];
            if (pa.resting() || pb.resting()) continue; // (met by the rest model's rule)
            if (solved_[n] != std::pair{pa.v, pb.v}) {  // changed since the rule left them
                const Vec<D> r = e.box().minimum_image(pa.x - pb.x);
                const Vec<D> v = pa.v - pb.v;
                if (dot(v, r) <
                    -group_approach_tolerance * norm(r) * std::max(norm(pa.v), norm(pb.v)))
                    continue; // the glide left it approaching: a collision to come, at once
            }
            resting_.record(e.now(), e.id(a), e.id(b), pa.count, pb.count);
            again_.push_back(a);
            again_.push_back(b);
        }
        for (const std::uint32_t b : again_)
            if (!e.particles().state[b].resting()) e.predict_all(b);
    }

    // b advanced to now, off the glide it may be on (a collision ends a glide; the
    // rest model's, Engine::end_glide).
    template <class Kernel>
    static void bring_to_now(Kernel e, std::uint32_t b) {
        e.advance(b);
        e.end_glide(b);
    }

    // The obstacle b may glide along from now (Engine::predict_or_rest): the first of b's
    // obstacles in this step that the field presses it onto, else the first it met, if
    // any (Kernel::none). A particle touching two faces may press onto one only (a sphere
    // in the edge of two box walls, the field square to one of them): the other, listed
    // first, could not start a glide (Engine::glide_slot_on), and the one pressed,
    // predicted from a contact with no speed across it, was met again at once. The step
    // of that meeting took in the touching partner too and ended its glide; it glided on
    // a face only if that came first in its list. Seen: three spheres sliding at 1.9 down
    // the edge of two box walls under tilted gravity, touching one behind the other, each
    // step gliding one and stopping its neighbour's glide, at one instant until the rest
    // model's rescue stopped all three dead, 27,000 steps later (scan case
    // 343690472678409353, t = 2.2244 and, with held pairs reflected, t = 3.832). The
    // step's contacts come in the order the step found them (its event first, then each
    // particle's touching walls by number), which says nothing about which face holds b.
    template <class Kernel>
    std::uint32_t obstacle_met(Kernel e, std::uint32_t b) const {
        std::uint32_t first = std::numeric_limits<std::uint32_t>::max();
        const Vec<D>& x = e.particles().state[b].x;
        for (const ContactPair& c : contacts_) {
            if (!c.wall || c.a != b) continue;
            if (e.motion().along(obstacle_plane(e.box(), c.b, x).normal) < 0.0) return c.b;
            if (first == std::numeric_limits<std::uint32_t>::max()) first = c.b;
        }
        return first;
    }

    void join(std::uint32_t b) {
        if (member_[b]) return;
        member_[b] = 1;
        bodies_.push_back(b);
    }

    void add_contact(std::uint32_t a, std::uint32_t b, bool wall) {
        for (const ContactPair& c : contacts_) // a handful: a scan beats a set
            if (c.wall == wall && ((c.a == a && c.b == b) || (!wall && c.a == b && c.b == a)))
                return;
        contacts_.push_back({a, b, wall});
        join(a);
        if (!wall) join(b);
    }

    // k's scheduled pair or wall event joins the step; k leaves the calendar until the
    // step is done (it is re-predicted then, like every particle of the step).
    template <class Kernel>
    void take_event(Kernel e, std::uint32_t k) {
        const auto& s = e.schedule(k);
        if (s.kind == Kernel::Kind::pair)
            add_contact(k, s.pair.partner, false);
        else
            add_contact(k, s.wall, true);
        e.calendar().set(k, never);
    }

    // Contacts of b (advanced to now) within the gap tolerance and not separating, and the
    // pair contacts and the obstacle of b that close within the window, on the flights
    // they have now (none has changed yet). A particle found here is advanced too, and
    // looked at in turn by the caller's loop.
    //
    // Why b's own window too: the calendar holds each particle's earliest event only, so a
    // later one of the window, another partner of a particle whose earliest event the
    // step took (its runner-up, say) or its wall, is not in it; the particle that holds it
    // may have predicted it before b's last change, or not at all. Left out, it was
    // resolved after the step as a binary collision (the oracle's piles3d seed 2: sphere
    // 206 met 229 at t and 91 3.8e-7 later, epsilon 1e-6; the reference grouped them). A
    // particle gliding (the rest model) is met only when touching: its flight is the
    // glide's. Still outside: a contact beyond a cell crossing of b inside the window (b
    // left the calendar when it joined), of measure |u| epsilon / cell width.
    template <class Kernel>
    void add_touching(Kernel e, std::uint32_t b) {
        const auto& pb = e.particles().state[b];
        const double gap = e.settings().contact_gap;
        const double window = e.settings().epsilon; // the step is at its start
        e.for_each_near(b, [&](std::uint32_t j, const Vec<D>& shift) {
            if (j == b) return;
            const auto& pj = e.particles().state[j];
            if (pj.resting()) return; // held by its supports: joins no group (outside_groups)
            const Vec<D> r = pb.x - shift - e.motion().position(pj, e.now());
            const double sigma = e.particles().table.pair_sigma(pb.species, pj.species);
            const Vec<D> v = pb.v - e.motion().velocity(pj, e.now());
            const double r2 = norm2(r);
            if (r2 > sigma * sigma * (1.0 + gap) * (1.0 + gap)) {
                // the two move apart by at most |v| per unit of time (gravity moves both
                // alike; drag only slows them)
                const double reach = sigma + norm(v) * window;
                if (r2 > reach * reach || pj.gliding()) return;
                if (!(e.motion().pair_time(r, v, sigma * sigma, window) <= window)) return;
            } else if (dot(r, v) > separating_tolerance * std::sqrt(r2) * norm(v)) {
                return; // separating
            }
            if (!member_[j]) bring_to_now(e, j);
            add_contact(b, j, false);
        });
        const double a = e.particles().radius(b);
        const auto& box = e.box();
        for (std::uint32_t w = 0; w < box.walls.size(); ++w) {
            const auto& wall = box.walls[w];
            if (wall.distance(pb.x) > a * (1.0 + gap)) continue;
            if (separating_from(wall, pb.v, e.motion())) continue;
            add_contact(b, w, true); // (a plane wall's number is its index)
        }
        // the other obstacles, by kind (engine/obstacles.hpp), each seen as its tangent
        // plane; a contact of a kind whose surfaces meet as one (once: a mesh's triangles)
        // is kept only if no contact of b in the step has that plane yet
        const auto touching = [&](std::uint32_t w, const Wall<D>& plane, bool once) {
            if (separating_from(plane, pb.v, e.motion())) return;
            if (!once || !on_surface_met(e, b, w)) add_contact(b, w, true);
        };
        e.obstacles().for_each_touching(box, e.cells().cell_of(b), pb.x, a, a * (1.0 + gap),
                                        touching);
        // b's earliest obstacle contact (Engine::predict_all, on the flight b has now), if
        // it falls in the window and b has no contact with that surface yet
        const auto& s = e.schedule(b);
        if (s.wall_time <= e.now() + window && s.wall < Kernel::glide_end &&
            !on_surface_met(e, b, s.wall))
            add_contact(b, s.wall, true);
    }

    // Whether b already has a contact with obstacle w in this step: w itself, another part
    // of its segment, or a surface of the same tangent plane at b (a neighbour of a
    // triangle at their shared edge, a plane wall under a face): one constraint, kept once.
    template <class Kernel>
    bool on_surface_met(const Kernel& e, std::uint32_t b, std::uint32_t w) const {
        const auto& box = e.box();
        const Vec<D>& x = e.particles().state[b].x;
        const Vec<D> normal = obstacle_plane(box, w, x).normal;
        return std::any_of(contacts_.begin(), contacts_.end(), [&](const ContactPair& c) {
            if (!c.wall || c.a != b) return false;
            if (Obstacles<D>::same_obstacle(box, c.b, w)) return true; // (a segment's parts)
            return dot(obstacle_plane(box, c.b, x).normal, normal) > 1.0 - same_plane_tolerance;
        });
    }

    // One connected component at time now: one contact by the closed-form rules, more
    // by the group rule; the virial, energies and counts go to the tally as for binary
    // collisions (a contact counts as a collision when its impulse is not zero).
    template <class Kernel>
    void resolve_component(Kernel e, const ContactComponent& component) {
        if (component.contacts.size() == 1) {
            const ContactPair& c = contacts_[component.contacts[0]];
            // a later event of the window, or a touching contact: a gap is allowed
            if (c.wall) {
                e.apply_wall(c.a, c.b, false);
                back_to_contact(e, c.a, c.b);
            } else
                e.apply_pair(c.a, c.b, false);
            return;
        }
        auto& particles = e.particles();
        // Bodies: the component's particles, then one infinite-mass body per wall contact.
        std::vector<GroupBody<D>> bodies;
        std::vector<GroupContact<D>> contacts;
        std::vector<Vec<D>> arm; // r = x_a - x_b of each pair contact (virial)
        auto body_of = [&](std::uint32_t particle) {
            return static_cast<std::uint32_t>(
                std::lower_bound(component.bodies.begin(), component.bodies.end(), particle) -
                component.bodies.begin());
        };
        for (const std::uint32_t b : component.bodies)
            bodies.push_back({particles.state[b].v, particles.mass(b)});
        for (const std::uint32_t k : component.contacts) {
            const ContactPair& c = contacts_[k];
            if (c.wall) {
                bodies.push_back({Vec<D>{}, std::numeric_limits<double>::infinity()});
                const Vec<D>& x = particles.state[c.a].x;
                const Wall<D> wall = obstacle_plane(e.box(), c.b, x);
                e.check_wall_contact(c.a, c.b, wall, false);
                contacts.push_back({body_of(c.a), static_cast<std::uint32_t>(bodies.size() - 1),
                                    wall.normal, e.wall_restitution(c.a, c.b)});
                arm.push_back({});
            } else {
                const Vec<D> r =
                    e.box().minimum_image(particles.state[c.a].x - particles.state[c.b].x);
                contacts.push_back({body_of(c.a), body_of(c.b), r * (1.0 / norm(r)),
                                    e.pair_restitution(c.a, c.b)});
                arm.push_back(r);
                e.check_pair_contact(c.a, c.b, r, false);
            }
        }
        GroupResult<D> result = solver_.resolve(bodies, contacts);
        reflect_held_pairs(e, component, bodies, contacts, arm, result);
        reflect_wall_residuals(component, bodies, contacts, result);
        auto& tally = e.tally();
        if (e.fluxes_kept()) {
            e.flux().advance(e.now());
            for (std::size_t n = 0; n < component.bodies.size(); ++n) {
                e.flux().add(bodies[n].mass, bodies[n].velocity, -1.0);
                e.flux().add(bodies[n].mass, result.velocities[n], 1.0);
            }
        }
        ++tally.groups;
        // Every contact is now at rest or separating by the rule's standard, unless even
        // the fallback gave up; the pairs are not to be predicted again at this instant.
        if (!result.unresolved)
            for (const std::uint32_t k : component.contacts)
                if (!contacts_[k].wall) rested_.emplace_back(contacts_[k].a, contacts_[k].b);
        if (result.singular) ++tally.singular_groups;
        if (result.fallback || result.unresolved) ++tally.fallback_groups;
        for (std::size_t n = 0; n < component.bodies.size(); ++n) {
            const std::uint32_t b = component.bodies[n];
            auto& p = particles.state[b];
            const double m = particles.mass(b);
            const double k0 = kinetic_energy(m, p.v);
            p.v = result.velocities[n];
            e.kinetic_change(p.species, kinetic_energy(m, p.v) - k0);
            e.clear_last_partner(b);
        }
        for (const std::uint32_t b : component.bodies) e.collided(b);
        for (const std::uint32_t k : component.contacts)
            if (contacts_[k].wall) back_to_contact(e, contacts_[k].a, contacts_[k].b);
        for (std::size_t n = 0; n < contacts.size(); ++n) {
            if (norm2(result.impulses[n]) == 0.0) continue;
            const ContactPair& c = contacts_[component.contacts[n]];
            if (c.wall) {
                ++tally.wall_collisions;
                e.log_wall(c.a, c.b);
            } else {
                tally.pair_collision(particles.state[c.a].species, particles.state[c.b].species);
                e.log_pair(c.a, c.b);
                tally.virial += dot(arm[n], result.impulses[n]);
                if (e.fluxes_kept()) {
                    // each body's mean velocity over the step: (v + v') / 2
                    const auto mean = [&](std::uint32_t body) {
                        return 0.5 * (bodies[body].velocity + result.velocities[body]);
                    };
                    const GroupContact<D>& k = contacts[n];
                    e.flux().contact(arm[n], result.impulses[n], mean(k.a), mean(k.b));
                }
            }
        }
    }

    // Under a field, a particle the step reflected from a wall it overlaps by round-off is
    // put back on the contact when its flight cannot rise out, as the binary rule does
    // (Engine::back_to_contact, whose comment has the argument). The step must do it too:
    // with epsilon > 0 every wall event comes here, and a disc sliding down a tilted plane
    // in elastic TC bounces rising 5e-16 (radius 0.08, coordinates near 60, ulp 7e-15)
    // sank by about 1e-15 a bounce until the contact check stopped the run 8e-11 deep
    // (scan case 15900577182696255269, t = 1.934). Without a field, nothing changes.
    template <class Kernel>
    static void back_to_contact(Kernel e, std::uint32_t i, std::uint32_t w) {
        if constexpr (requires { e.back_to_contact(i, w); }) e.back_to_contact(i, w);
    }

    // A pair contact that a hold carried in (overlapping by more than half the depth at
    // which Engine::held_contact_delay meets a held contact again, held_contact_depth of
    // the contact tolerance: far beyond the round-off of a contact) and that the rule left
    // approaching is reflected by the pair's own rule, u -> -e u, booked as the contact's
    // impulse. A pair contact the rule leaves approaching by at most
    // group_approach_tolerance V ("at rest" by its standard) is held for the rest of the
    // instant (RestingContacts) and met again when its straight relative flight would
    // take it a quarter of the tolerance deeper; the binary rule (epsilon = 0) then
    // reverses its approach, whatever its size. The group rule did not: it judges the
    // contact by the same standard as before, V the largest relative speed of its group,
    // which a contact with a wall sets to the particle's whole speed along the wall, and
    // left it as it was, held again, met a quarter deeper again, until the contact check
    // stopped the run. Seen: three spheres sliding at 2.1 down the edge of two box walls
    // under tilted gravity, one behind the other, the inelastic cascade between them ended
    // by the rule with a pair approaching head on at 2.1e-9 (below 1e-9 V, V = 2.14 from
    // the walls' contacts), met 2.5e-10 of a diameter deep, then 5e-10, 7.5e-10 and 1e-9
    // (scan case 343690472678409353, t = 3.966, `contact distance`). What is reflected is
    // at most 1e-9 V, and only in a pair already overlapping, which hard spheres never
    // leave approaching; a contact at contact, whose overlap is round-off, is left to the
    // hold as before (a sliding one never gets deep), so a run with no such pair is
    // unchanged to the bit. The reflection may leave a neighbour of the pair approaching
    // by as little: that contact is held as every contact of the component is, met a
    // quarter deeper in its turn, and reflected there; so a hold meets a pair at most once
    // beyond the half, within the check.
    template <class Kernel>
    void reflect_held_pairs(Kernel e, const ContactComponent& component,
                            const std::vector<GroupBody<D>>& bodies,
                            const std::vector<GroupContact<D>>& contacts,
                            const std::vector<Vec<D>>& arm, GroupResult<D>& result) const {
        const auto& particles = e.particles();
        const double deep = 0.5 * held_contact_depth * e.contact_tolerance();
        for (std::size_t n = 0; n < contacts.size(); ++n) {
            const ContactPair& c = contacts_[component.contacts[n]];
            if (c.wall) continue;
            const double sigma = particles.table.pair_sigma(particles.state[c.a].species,
                                                            particles.state[c.b].species);
            if (!(norm(arm[n]) - sigma < -deep * sigma)) continue;
            const GroupContact<D>& k = contacts[n]; // normal: unit, from b to a
            Vec<D>& va = result.velocities[k.a];
            Vec<D>& vb = result.velocities[k.b];
            if (!(dot(va - vb, k.normal) < 0.0)) continue;
            result.impulses[n] += binary_collision(k.normal, va, vb, bodies[k.a].mass,
                                                   bodies[k.b].mass, k.restitution)
                                      .dp;
        }
    }

    // A wall contact the rule left approaching by round-off (by at most
    // group_approach_tolerance V, "at rest" by the rule's standard) is reflected by the
    // wall's own rule, u -> -e u. A pair's such approach is passed by for the rest of the
    // instant (RestingContacts): straight flights cannot carry it further in. A wall's
    // cannot be: a field pressing the particle onto it would, so it was met again at once,
    // handed back to the rule, left as it was, for ever (scan case 15753949552035431234: two
    // spheres on the floor under a third, approaching it at 1e-10 in a group whose largest
    // relative speed was 0.1, TC, e = 1: 4096 groups at t = 23.73 without the clock
    // moving). The change of velocity is below the rule's own tolerance, and is booked
    // as the contact's impulse (so counted as its collision).
    void reflect_wall_residuals(const ContactComponent& component,
                                const std::vector<GroupBody<D>>& bodies,
                                const std::vector<GroupContact<D>>& contacts,
                                GroupResult<D>& result) const {
        for (std::size_t n = 0; n < contacts.size(); ++n) {
            if (!contacts_[component.contacts[n]].wall) continue;
            const GroupContact<D>& k = contacts[n]; // a: the particle; normal: towards it
            Vec<D>& v = result.velocities[k.a];
            const double u = dot(v, k.normal);
            if (!(u < 0.0)) continue;
            const Vec<D> dv = k.normal * (-(1.0 + k.restitution) * u);
            v += dv;
            result.impulses[n] += dv * bodies[k.a].mass;
        }
    }

    std::vector<std::uint32_t> bodies_;   // particles in the step, in order of joining
    std::vector<std::uint8_t> member_;    // per particle: 1 while in `bodies_`
    std::vector<ContactPair> contacts_;   // pairs (a, b) and walls (a, wall b)
    std::vector<std::uint32_t> deferred_; // events of the window left to the binary rules
    std::vector<std::uint32_t> again_;    // settle_and_predict's particles to predict again
    std::vector<std::pair<Vec<D>, Vec<D>>> solved_; // rested_'s velocities as solved
    // look_past: the crossed particles' cells, the engine's potential taken back at
    // periodic wraps before the first crossing, and whether a crossing is being made
    std::vector<std::uint32_t> cells_;
    double wrapped_potential_ = 0.0;
    bool looking_past_ = false;
    GroupSolver<D> solver_;
    // Pair contacts of the components the group rule resolved in this step, recorded in
    // resting_ once the step's collision counts are final.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> rested_;
    RestingContacts resting_;
};

} // namespace choc
