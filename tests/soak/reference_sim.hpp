// The reference simulator of the differential oracle (soak_oracle.cpp): the engine's
// physics and event rules, written for obviousness instead of speed.
//
// It shares with the engine only the leaf physics, each unit-tested on its own: pair and
// wall times (predict.hpp, motions.hpp, segment_time.hpp, triangle_time.hpp), the
// collision rules (collide.hpp, group_rule.hpp, contact_graph.hpp) and the box. None of
// the engine's scheduling
// is here: no cells, no runner-up candidate, no batched prediction, no renumbering, no
// time-origin moves within a segment (the clock starts from zero at each restart, below).
// Instead:
//
//   - each particle has ONE planned event, the earliest of: its pairs with every other
//     particle (all N, nearest image), its walls, segment parts and triangles (all of
//     them), and a "refresh";
//   - a std::set of (time, particle) orders the planned events;
//   - a pair event is stale when the partner's collision counter moved since it was
//     planned; a stale event re-plans the particle from scratch, over all pairs.
// Why one event per particle is enough: a pair (i, j) that will collide on the present
// trajectories was looked at by whichever of i and j was planned last (the planning scans
// every particle), so that particle's planned event is no later than the collision; when
// it fires it either changes the particle's velocity (the pair is then on new
// trajectories) or, being stale, re-plans it, and the argument repeats.
//
// Periodic images. Pairs are looked at through the nearest image only, which is right as
// long as no other image can reach contact before the pair is looked at again. Another
// image is at least L/2 away on some periodic axis (L the shortest periodic edge), so it
// needs a relative displacement of at least L/2 - sigma_max. A particle is re-planned
// ("refresh") before it moves `refresh_distance` from where it was planned; since pair
// (i, j) was last looked at, i has moved less than that and j less than twice that (both
// positions within refresh_distance of j's own planning point), so the relative
// displacement stays below 3 refresh_distance = 0.9 (L/2 - sigma_max). The engine needs
// L >= 3 sigma_max, so refresh_distance >= 0.15 sigma_max: refreshes are O(N) each and,
// even in the smallest box, a handful per free flight.
//
// Times. The interface (restart, run_until, position, velocity, the log, ambiguous_since)
// speaks absolute time; inside, the clock counts from the last restart (origin_, the
// oracle's last sync). An absolute clock would round every event time, and so every
// advanced position, by half an ulp of t: 2e-12 at t = 2e4, 1e4 times its round-off near
// t = 1. That difference from the engine, whose particles move on a local clock (its
// time origin moves every 50 to 500 events here), is then amplified by every collision
// that follows in the segment (a factor of order free path / diameter, up to 45
// measured): a particle with six collisions between two syncs took it past the state
// tolerance (mix2d seed 70824746436409, t = 23221: event times apart by 1e-11, 7e-11,
// 2e-9, 3e-9, 7e-8, 1.5e-7 along the chain, state 1.9e-6). Both clocks now round by an
// ulp of the time since a recent origin; what is left of t is the engine's reading of
// its clock, origin + local time, rounded alike for every particle (oracle_run.hpp's
// time tolerance).
//
// Positions are kept inside the box on periodic axes (wrapped when a particle is
// advanced, at its collisions and refreshes). Segments are looked at through every image
// of the particle (a particle planned just inside one face may reach a segment near the
// opposite face through the periodic boundary); so are triangles.
#pragma once

#include <choc/kernel/box.hpp>
#include <choc/kernel/collide.hpp>
#include <choc/kernel/contact_graph.hpp>
#include <choc/kernel/engine.hpp> // EngineSettings only: the oracle's engine takes the same ones
#include <choc/kernel/group_rule.hpp>
#include <choc/kernel/motions.hpp>
#include <choc/kernel/obstacle.hpp>
#include <choc/kernel/particles.hpp>
#include <choc/kernel/predict.hpp>
#include <choc/kernel/segment_time.hpp>
#include <choc/kernel/tolerances.hpp>
#include <choc/kernel/triangle_time.hpp>

#include "obstacle_numbers.hpp"
#include "oracle_events.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace oracle {

using choc::never;
using choc::Vec;

template <int D, class Motion>
class ReferenceSim {
  public:
    ReferenceSim(const choc::Box<D>& box, const choc::SpeciesTable& table,
                 const choc::EngineSettings& settings, const Motion& motion)
        : box_(box), table_(table), settings_(settings), motion_(motion) {
        const std::size_t n = table_.size();
        restitution_ = settings_.pair_restitution;
        if (restitution_.empty()) restitution_.assign(n * n, settings_.restitution);
        double shortest = never, longest = 0.0;
        for (int a = 0; a < D; ++a) {
            if (box_.periodic[a]) shortest = std::min(shortest, box_.length[a]);
            longest = std::max(longest, box_.length[a]);
        }
        // Without periodic axes no image can be missed; refreshes then only bound the
        // stepped end-point searches under gravity (segment_time.hpp), so any length does.
        refresh_distance_ =
            shortest < never ? 0.3 * (0.5 * shortest - table_.largest_diameter()) : longest;
    }

    // Starts from `state` (positions and velocities at absolute time t; time stamps are
    // ignored), on a clock that reads zero at t. Collision counters, the TC clocks and
    // the last partners are kept: they describe the history, which the oracle matched
    // event by event.
    void restart(const choc::Particles<D>& state, double t) {
        const std::size_t n = state.size();
        if (p_.size() != n) {
            p_.assign(n, {});
            last_partner_.assign(n, none);
            last_collision_.assign(n, -never);
            plan_.assign(n, {});
            wall_plan_.assign(n, {});
            member_.assign(n, 0);
        }
        // The clock starts again from zero at t (see origin_); the TC clocks move with it.
        for (double& c : last_collision_) c -= t - origin_;
        rested_at_ -= t - origin_;
        origin_ = t;
        now_ = 0.0;
        for (std::uint32_t i = 0; i < n; ++i) {
            p_[i] = state.state[i];
            p_[i].x = box_.wrap(p_[i].x);
            p_[i].t = 0.0;
        }
        calendar_.clear();
        ambiguous_since_ = never;
        for (auto& e : plan_) e = {};
        for (auto& e : wall_plan_) e = {};
        for (std::uint32_t i = 0; i < n; ++i) plan(i);
    }

    // Processes every event at a time <= t, in time order; then the state is valid at t.
    // False if it gave up after `budget` events (no progress: endless events at one
    // instant, say), the state then being valid at now().
    bool run_until(double t, std::uint64_t budget = std::numeric_limits<std::uint64_t>::max()) {
        t -= origin_;
        for (std::uint64_t k = 0; !calendar_.empty() && calendar_.begin()->first <= t; ++k) {
            if (k == budget) return false;
            now_ = calendar_.begin()->first;
            process(calendar_.begin()->second);
        }
        now_ = t;
        return true;
    }
    double now() const { return origin_ + now_; }

    // Positions and velocities at absolute time t (no event after now in between).
    Vec<D> position(std::uint32_t i, double t) const {
        return motion_.position(p_[i], t - origin_);
    }
    Vec<D> velocity(std::uint32_t i, double t) const {
        return motion_.velocity(p_[i], t - origin_);
    }
    std::size_t size() const { return p_.size(); }

    // Gap (centre distance minus contact distance) and normal approach speed, now, of
    // pair (i, j), or of particle i and obstacle j when `wall`.
    std::pair<double, double> contact(std::uint32_t i, std::uint32_t j, bool wall) const {
        const Vec<D> x = box_.wrap(motion_.position(p_[i], now_));
        const Vec<D> v = motion_.velocity(p_[i], now_);
        if (wall) {
            const choc::Wall<D> plane = obstacle_plane(j, x);
            return {plane.distance(x) - radius(i), -dot(v, plane.normal)};
        }
        const Vec<D> r = nearest_image(x - motion_.position(p_[j], now_));
        const Vec<D> u = v - motion_.velocity(p_[j], now_);
        return {norm(r) - table_.pair_sigma(species(i), species(j)), -dot(r, u) / norm(r)};
    }

    std::vector<Collision>& log() { return log_; }

    // Decisions that round-off can swing. A touching contact at relative rest (common
    // after a group: its bodies leave together) joins a step or not by the sign of a
    // relative speed that is itself round-off, and the two outcomes differ by O(1) (one
    // group, or collisions one after the other); so does a step opened by a collision at
    // round-off approach speed; and a collision at round-off approach speed may happen in
    // one simulation only (in an inelastic cluster near collapse, say), and the events
    // after it depend on it sensitively. Such a decision is one whose normal speed is
    // within `band` of zero; the earliest since the last restart is kept (never: none).
    // The TC model's choice is one too: a collision less than tc after the particle's last
    // one is elastic, and the two simulations know each collision's time only to within
    // `length` / u (a gap known to within `length`, closing at speed u), so a collision
    // whose distance from that threshold is within the uncertainty of both times can go
    // either way.
    void set_ambiguity_band(double band, double length) {
        band_ = band;
        length_band_ = length;
    }
    double ambiguous_since() const { return ambiguous_since_; }
    std::uint64_t groups() const { return groups_; } // components of two or more contacts

  private:
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    enum class Kind { nothing, pair, wall, refresh };
    struct Planned {
        double time = never;
        Kind kind = Kind::nothing;
        std::uint32_t other = 0;       // partner, or obstacle index
        std::uint32_t other_count = 0; // the partner's counter when planned
    };

    // ---- planning --------------------------------------------------------------------

    // Nearest periodic image of a separation, for any separation.
    Vec<D> nearest_image(Vec<D> r) const {
        for (int a = 0; a < D; ++a)
            if (box_.periodic[a]) r[a] -= box_.length[a] * std::nearbyint(r[a] / box_.length[a]);
        return r;
    }

    // The earliest event of particle i from now, over everything; replaces its old plan.
    // Ties: a wall wins over a pair (the engine keeps a pair candidate only when it is
    // strictly earlier than the wall) and both over a refresh (the engine's crossings).
    void plan(std::uint32_t i) {
        unplan(i);
        const auto& pi = p_[i];
        const Vec<D> x = motion_.position(pi, now_), v = motion_.velocity(pi, now_);
        const double a = radius(i);

        // the refresh: before i moves refresh_distance (|x(τ) − x(0)| <= |v| τ + |g| τ²/2
        // under every Motion: drag only slows the particle down)
        const double speed = norm(v), g = norm(motion_.acceleration(Vec<D>{}));
        const double reach = speed + std::sqrt(speed * speed + 2.0 * g * refresh_distance_);
        Planned refresh{reach > 0.0 ? now_ + 2.0 * refresh_distance_ / reach : never,
                        Kind::refresh};

        Planned wall;
        for (std::uint32_t w = 0; w < box_.walls.size(); ++w) {
            const auto& plane = box_.walls[w];
            const double t =
                now_ + motion_.first_contact(plane.distance(x) - a, dot(v, plane.normal),
                                             motion_.along(plane.normal));
            if (t < wall.time) wall = {t, Kind::wall, w};
        }
        plan_segments(i, x, v, std::min(refresh.time, wall.time), wall);
        plan_triangles(i, x, v, std::min(refresh.time, wall.time), wall);

        Planned pair;
        for (std::uint32_t j = 0; j < p_.size(); ++j) {
            if (j == i) continue;
            const Vec<D> r = nearest_image(x - motion_.position(p_[j], now_));
            const Vec<D> u = v - motion_.velocity(p_[j], now_);
            const double dt =
                motion_.pair_time(r, u, table_.pair_sigma2(species(i), species(j)), never);
            // a pair that has just collided (each other's last partner, both stamped now)
            // is at contact; with e = 0 it may look approaching by round-off: skipped, as
            // in the engine (Engine::just_met)
            if (dt == 0.0 && last_partner_[i] == j && last_partner_[j] == i && p_[i].t == now_ &&
                p_[j].t == now_)
                continue;
            // ... and so is a contact the group rule left at rest at this instant, while
            // neither velocity has changed since (resting_contacts.hpp)
            if (dt == 0.0 && rested_at_ == now_) {
                const auto found = rested_.find({std::min(i, j), std::max(i, j)});
                if (found != rested_.end() &&
                    found->second == std::pair{p_[std::min(i, j)].count, p_[std::max(i, j)].count})
                    continue;
            }
            if (now_ + dt < pair.time) pair = {now_ + dt, Kind::pair, j, p_[j].count};
        }

        wall_plan_[i] = wall;
        Planned best = pair.time < wall.time ? pair : wall;
        if (refresh.time < best.time) best = refresh;
        plan_[i] = best;
        if (best.time < never) calendar_.insert({best.time, i});
    }

    // Particle i at x with velocity v on its own clock from zero, and its images across
    // every periodic face and edge (3^p states for p periodic axes, itself among them).
    std::vector<choc::ParticleState<D>> images(std::uint32_t i, const Vec<D>& x,
                                               const Vec<D>& v) const {
        int count = 1;
        for (int ax = 0; ax < D; ++ax) count *= box_.periodic[ax] ? 3 : 1;
        std::vector<choc::ParticleState<D>> out;
        for (int image = 0; image < count; ++image) {
            choc::ParticleState<D> q = p_[i];
            q.x = x;
            q.v = v;
            q.t = 0.0;
            for (int ax = 0, code = image; ax < D; ++ax)
                if (box_.periodic[ax]) q.x[ax] += (code % 3 - 1) * box_.length[ax], code /= 3;
            out.push_back(q);
        }
        return out;
    }

    // Segment parts (obstacles walls.size() + 3k + part) through every periodic image of
    // the particle; improves `wall`. `window` bounds the stepped end-point search.
    void plan_segments(std::uint32_t i, const Vec<D>& x, const Vec<D>& v, double window,
                       Planned& wall) const {
        if (box_.segments.empty()) return;
        const double a = radius(i);
        for (const choc::ParticleState<D>& q : images(i, x, v)) {
            for (std::uint32_t k = 0; k < box_.segments.size(); ++k) {
                const auto& seg = box_.segments[k];
                auto consider = [&](double dt, int part) {
                    if (now_ + dt < wall.time)
                        wall = {now_ + dt, Kind::wall,
                                soak::Obstacle::encode_segment(box_.walls.size(), k, part)};
                };
                consider(choc::face_time(motion_, seg, q, a), choc::Segment<D>::face);
                const double span = std::min(window, wall.time) - now_;
                for (const int end : {choc::Segment<D>::from_end, choc::Segment<D>::to_end})
                    consider(choc::end_time(motion_, seg.end(end), q, a, span), end);
            }
        }
    }

    // Triangles (obstacles walls.size() + 3 segments.size() + k): every one, faces and rims,
    // through every periodic image of the particle; improves `wall`. `window` bounds the
    // stepped rim search.
    void plan_triangles(std::uint32_t i, const Vec<D>& x, const Vec<D>& v, double window,
                        Planned& wall) const {
        if constexpr (D == 3) {
            if (box_.triangles.empty()) return;
            const double a = radius(i);
            for (const choc::ParticleState<D>& q : images(i, x, v)) {
                for (std::uint32_t k = 0; k < box_.triangles.size(); ++k) {
                    const auto& tri = box_.triangles[k];
                    const double span = std::min(window, wall.time) - now_;
                    // faces and rims, or a one-sided triangle's search with every other
                    // one-sided triangle as a possible neighbour
                    auto elsewhere = [&](const Vec<D>& y, const Vec<D>& point) {
                        return passing_neighbour(k, y, point, a);
                    };
                    const double dt =
                        tri.one_sided
                            ? choc::one_sided_triangle_time(motion_, tri, q, a, span, elsewhere)
                            : choc::triangle_time(motion_, tri, q, a, span);
                    if (now_ + dt < wall.time)
                        wall = {now_ + dt, Kind::wall,
                                soak::Obstacle::encode_triangle(box_.walls.size(),
                                                                box_.segments.size(), k)};
                }
            }
        }
    }

    // Whether a centre at x is passing through a one-sided triangle other than k holding
    // the point q (one_sided_triangle_time's rule), among all the triangles.
    bool passing_neighbour(std::uint32_t k, const Vec<D>& x, const Vec<D>& q, double a) const {
        for (std::uint32_t o = 0; o < box_.triangles.size(); ++o) {
            const auto& other = box_.triangles[o];
            if (o != k && other.one_sided &&
                other.distance(q) <= choc::shared_point_tolerance * (norm(q) + a) &&
                choc::passing_through(other, x, a))
                return true;
        }
        return false;
    }

    void unplan(std::uint32_t i) {
        if (plan_[i].time < never) calendar_.erase({plan_[i].time, i});
        plan_[i] = {};
    }

    // ---- events ----------------------------------------------------------------------

    void process(std::uint32_t i) {
        const Planned e = plan_[i];
        switch (e.kind) {
        case Kind::refresh:
            advance(i);
            plan(i);
            break;
        case Kind::pair:
            if (p_[e.other].count != e.other_count)
                plan(i); // stale
            else if (settings_.epsilon > 0.0)
                resolve_simultaneous(i);
            else
                collide_pair(i, e.other);
            break;
        case Kind::wall:
            if (settings_.epsilon > 0.0)
                resolve_simultaneous(i);
            else
                collide_wall(i, e.other);
            break;
        case Kind::nothing:
            unplan(i);
            break;
        }
    }

    void advance(std::uint32_t i) {
        motion_.advance(p_[i], now_);
        p_[i].x = box_.wrap(p_[i].x);
    }

    void collide_pair(std::uint32_t i, std::uint32_t j) {
        advance(i);
        advance(j);
        apply_pair(i, j);
        ++p_[i].count;
        ++p_[j].count;
        plan(i);
        plan(j);
    }

    void collide_wall(std::uint32_t i, std::uint32_t w) {
        advance(i);
        apply_wall(i, w);
        ++p_[i].count;
        plan(i);
    }

    void apply_pair(std::uint32_t i, std::uint32_t j) {
        const Vec<D> r = nearest_image(p_[i].x - p_[j].x);
        const double speed = -dot(r, p_[i].v - p_[j].v) / norm(r);
        ambiguous(speed);
        tc_ambiguous(i, speed);
        tc_ambiguous(j, speed);
        choc::binary_collision(r, p_[i].v, p_[j].v, mass(i), mass(j), pair_restitution(i, j));
        collided(i);
        collided(j);
        log_.push_back(Collision::pair(origin_ + now_, i, j, speed));
        last_partner_[i] = j;
        last_partner_[j] = i;
    }

    void apply_wall(std::uint32_t i, std::uint32_t w) {
        choc::Wall<D> plane = obstacle_plane(w, p_[i].x);
        plane.restitution = wall_restitution(i, w);
        const double speed = -dot(p_[i].v, plane.normal);
        ambiguous(speed);
        tc_ambiguous(i, speed);
        choc::wall_collision(plane, p_[i].v, mass(i));
        collided(i);
        log_.push_back(Collision::wall(origin_ + now_, i, w, speed));
        last_partner_[i] = none;
    }

    // ---- simultaneous collisions (epsilon > 0), the engine's rule ---------------------
    //
    // The event at the top (time t) and every valid pair or wall event planned up to
    // t + epsilon join the step (a stale one is re-planned from t and may fall in the
    // window); so do contacts within contact_gap that are not separating, transitively.
    // Everything is resolved at t, per connected component of the contact graph.
    // A refresh in the window may hide a pair or wall event of the window behind it (the
    // engine's crossings do, and the engine looks past them: group_step.hpp look_past):
    // the particle is planned again from t, which is what the refresh would do, earlier,
    // once; a refresh that comes up again is put back for after the step.

    void resolve_simultaneous(std::uint32_t first) {
        const double until = now_ + settings_.epsilon;
        std::vector<std::uint32_t> put_back, replanned; // refreshes in the window
        take(first);
        while (!calendar_.empty() && calendar_.begin()->first <= until) {
            const std::uint32_t k = calendar_.begin()->second;
            const Planned& e = plan_[k];
            if (e.kind == Kind::pair && p_[e.other].count != e.other_count) {
                plan(k);
            } else if (e.kind == Kind::pair || e.kind == Kind::wall) {
                take(k);
            } else if (std::find(replanned.begin(), replanned.end(), k) == replanned.end()) {
                replanned.push_back(k);
                plan(k);
            } else {
                put_back.push_back(k);
                calendar_.erase({e.time, k});
            }
        }
        for (const std::uint32_t b : bodies_) advance(b);
        for (const choc::ContactPair& c : contacts_) {
            const double speed = contact(c.a, c.b, c.wall).second;
            ambiguous(speed);
            tc_ambiguous(c.a, speed);
            if (!c.wall) tc_ambiguous(c.b, speed);
        }
        if (settings_.contact_gap > 0.0)
            for (std::size_t n = 0; n < bodies_.size(); ++n) add_touching(bodies_[n]);

        for (const choc::ContactComponent& c : choc::contact_components(contacts_))
            resolve_component(c);

        for (const std::uint32_t b : bodies_) {
            ++p_[b].count;
            member_[b] = 0;
        }
        for (const auto& [a, b] : pending_rested_) rested_[{a, b}] = {p_[a].count, p_[b].count};
        pending_rested_.clear();
        for (const std::uint32_t b : bodies_) plan(b);
        for (const std::uint32_t k : put_back) calendar_.insert({plan_[k].time, k});
        bodies_.clear();
        contacts_.clear();
    }

    // k's planned pair or wall event joins the step; k leaves the calendar until the step
    // is done (it is re-planned then).
    void take(std::uint32_t k) {
        const Planned e = plan_[k];
        add_contact(k, e.other, e.kind == Kind::wall);
        calendar_.erase({e.time, k});
        plan_[k].time = never; // out of the calendar
    }

    void add_contact(std::uint32_t a, std::uint32_t b, bool wall) {
        for (const choc::ContactPair& c : contacts_)
            if (c.wall == wall && ((c.a == a && c.b == b) || (!wall && c.a == b && c.b == a)))
                return;
        contacts_.push_back({a, b, wall});
        join(a);
        if (!wall) join(b);
    }

    void join(std::uint32_t b) {
        if (member_[b]) return;
        member_[b] = 1;
        bodies_.push_back(b);
    }

    // Contacts of b (advanced to now) within the gap tolerance and not separating, with
    // the engine's thresholds (group_step.hpp add_touching); and b's pairs and earliest
    // obstacle contact that close within the window, on the flights they have now.
    void add_touching(std::uint32_t b) {
        const auto& pb = p_[b];
        const double gap = settings_.contact_gap, window = settings_.epsilon;
        for (std::uint32_t j = 0; j < p_.size(); ++j) {
            if (j == b) continue;
            const Vec<D> r = nearest_image(pb.x - motion_.position(p_[j], now_));
            const double sigma = table_.pair_sigma(species(b), species(j));
            const Vec<D> v = pb.v - motion_.velocity(p_[j], now_);
            if (norm2(r) > sigma * sigma * (1.0 + gap) * (1.0 + gap)) {
                if (!(motion_.pair_time(r, v, sigma * sigma, never) <= window)) continue;
            } else {
                ambiguous(dot(r, v) / norm(r));
                if (dot(r, v) > choc::separating_tolerance * norm(r) * norm(v))
                    continue; // separating
            }
            if (!member_[j]) advance(j);
            add_contact(b, j, false);
        }
        const double a = radius(b);
        for (std::uint32_t w = 0; w < box_.walls.size(); ++w) {
            const auto& plane = box_.walls[w];
            if (plane.distance(pb.x) > a * (1.0 + gap)) continue;
            const double u = dot(pb.v, plane.normal);
            ambiguous(u);
            if (choc::separating_from(plane, pb.v, motion_)) continue;
            add_contact(b, soak::Obstacle::encode_wall(w), true);
        }
        for (std::uint32_t k = 0; k < box_.segments.size(); ++k) {
            const auto& seg = box_.segments[k];
            if (seg.distance(pb.x) > a * (1.0 + gap)) continue;
            const int part = seg.nearest_part(pb.x);
            const choc::Wall<D> plane = seg.contact_plane(part, pb.x);
            const double u = dot(pb.v, plane.normal);
            ambiguous(u);
            if (choc::separating_from(plane, pb.v, motion_)) continue;
            add_contact(b, soak::Obstacle::encode_segment(box_.walls.size(), k, part), true);
        }
        add_touching_triangles(b);
        const Planned& w = wall_plan_[b];
        if (w.time <= now_ + window && !on_surface_met(b, w.other)) add_contact(b, w.other, true);
    }

    // Whether b has a contact with obstacle w already: w, another part of its segment, or a
    // surface of the same tangent plane at b (group_step.hpp on_surface_met).
    bool on_surface_met(std::uint32_t b, std::uint32_t w) const {
        const Vec<D>& x = p_[b].x;
        const auto o = soak::Obstacle::decode(w, box_.walls.size(), box_.segments.size());
        const Vec<D> normal = obstacle_plane(w, x).normal;
        for (const choc::ContactPair& c : contacts_) {
            if (!c.wall || c.a != b) continue;
            if (c.b == w) return true;
            const auto m = soak::Obstacle::decode(c.b, box_.walls.size(), box_.segments.size());
            if (!o.wall && !o.triangle && !m.wall && !m.triangle && m.index == o.index) return true;
            if (dot(obstacle_plane(c.b, x).normal, normal) > 1.0 - choc::same_plane_tolerance)
                return true;
        }
        return false;
    }

    // b's touching triangles, every one, by the engine's rule (group_step.hpp
    // add_touching_triangles): a triangle whose nearest point to b lies in a nearer touching
    // triangle (or one as near with a lower index) is left out, and of the rest one contact
    // per tangent plane is kept.
    void add_touching_triangles(std::uint32_t b) {
        if constexpr (D == 3) {
            const auto& pb = p_[b];
            const double a = radius(b), reach = a * (1.0 + settings_.contact_gap);
            struct Touching {
                std::uint32_t index;
                double distance;
                Vec<D> point;
            };
            std::vector<Touching> touching;
            for (std::uint32_t k = 0; k < box_.triangles.size(); ++k) {
                const auto& tri = box_.triangles[k];
                const Vec<D> q = tri.nearest(pb.x).point;
                const double d = norm(pb.x - q);
                if (d > reach) continue;
                // one-sided: from the front only, and not a sphere passing through it or
                // through a one-sided neighbour holding q
                if (tri.one_sided &&
                    (tri.height(pb.x) <= 0.0 || choc::passing_through(tri, pb.x, a) ||
                     passing_neighbour(k, pb.x, q, a)))
                    continue;
                touching.push_back({k, d, q});
            }
            for (const Touching& t : touching) {
                // a centre over t's face but for round-off touches its face: never covered
                const bool on_face = box_.triangles[t.index].over_face(pb.x);
                bool covered = false;
                for (const Touching& o : touching)
                    covered = covered || (o.index != t.index &&
                                          (o.distance < t.distance ||
                                           (o.distance == t.distance && o.index < t.index)) &&
                                          box_.triangles[o.index].distance(t.point) <=
                                              choc::shared_point_tolerance * (norm(t.point) + a));
                if (covered && !on_face) continue;
                const choc::Wall<D> plane = box_.triangles[t.index].contact_plane(pb.x);
                ambiguous(dot(pb.v, plane.normal));
                if (choc::separating_from(plane, pb.v, motion_)) continue;
                const std::uint32_t number = soak::Obstacle::encode_triangle(
                    box_.walls.size(), box_.segments.size(), t.index);
                bool repeated = false;
                for (const auto& c : contacts_)
                    repeated = repeated || (c.wall && c.a == b && c.b != number &&
                                            dot(obstacle_plane(c.b, pb.x).normal, plane.normal) >
                                                1.0 - choc::same_plane_tolerance);
                if (!repeated) add_contact(b, number, true);
            }
        }
    }

    // One component at now: one contact by the binary rules, more by the group rule; a
    // contact is a collision when its impulse is not zero.
    void resolve_component(const choc::ContactComponent& component) {
        if (component.contacts.size() == 1) {
            const choc::ContactPair& c = contacts_[component.contacts[0]];
            if (c.wall)
                apply_wall(c.a, c.b);
            else
                apply_pair(c.a, c.b);
            return;
        }
        std::vector<choc::GroupBody<D>> bodies;
        std::vector<choc::GroupContact<D>> contacts;
        auto body_of = [&](std::uint32_t particle) {
            return static_cast<std::uint32_t>(
                std::find(component.bodies.begin(), component.bodies.end(), particle) -
                component.bodies.begin());
        };
        for (const std::uint32_t b : component.bodies) bodies.push_back({p_[b].v, mass(b)});
        for (const std::uint32_t k : component.contacts) {
            const choc::ContactPair& c = contacts_[k];
            if (c.wall) {
                bodies.push_back({Vec<D>{}, std::numeric_limits<double>::infinity()});
                const choc::Wall<D> plane = obstacle_plane(c.b, p_[c.a].x);
                contacts.push_back({body_of(c.a), static_cast<std::uint32_t>(bodies.size() - 1),
                                    plane.normal, wall_restitution(c.a, c.b)});
            } else {
                const Vec<D> r = nearest_image(p_[c.a].x - p_[c.b].x);
                contacts.push_back(
                    {body_of(c.a), body_of(c.b), r * (1.0 / norm(r)), pair_restitution(c.a, c.b)});
            }
        }
        const choc::GroupResult<D> result = solver_.resolve(bodies, contacts);
        std::vector<double> speed; // approach speeds before
        for (const auto& c : contacts)
            speed.push_back(-dot(bodies[c.a].velocity - bodies[c.b].velocity, c.normal));
        ++groups_;
        if (!result.unresolved) { // its pair contacts are at rest or separating now
            if (rested_at_ != now_) rested_.clear(), rested_at_ = now_;
            for (const std::uint32_t k : component.contacts)
                if (!contacts_[k].wall)
                    pending_rested_.emplace_back(std::min(contacts_[k].a, contacts_[k].b),
                                                 std::max(contacts_[k].a, contacts_[k].b));
        }
        for (std::size_t n = 0; n < component.bodies.size(); ++n) {
            p_[component.bodies[n]].v = result.velocities[n];
            last_partner_[component.bodies[n]] = none;
        }
        for (const std::uint32_t b : component.bodies) collided(b);
        for (std::size_t n = 0; n < contacts.size(); ++n) {
            if (norm2(result.impulses[n]) == 0.0) continue;
            const choc::ContactPair& c = contacts_[component.contacts[n]];
            log_.push_back(c.wall ? Collision::wall(origin_ + now_, c.a, c.b, speed[n])
                                  : Collision::pair(origin_ + now_, c.a, c.b, speed[n]));
        }
    }

    void ambiguous(double normal_speed) {
        if (std::abs(normal_speed) <= band_)
            ambiguous_since_ = std::min(ambiguous_since_, origin_ + now_);
    }

    // Is particle i's TC choice now (a collision at approach speed u) within the time
    // uncertainty of this collision and of its last one? Each time is known to within
    // length_band / u; the last collision's speed is not kept, so its uncertainty is
    // taken as this one's, and never less than the clock's round-off.
    void tc_ambiguous(std::uint32_t i, double u) {
        if (settings_.tc <= 0.0 || last_collision_[i] == -never) return;
        const double uncertainty =
            2.0 * length_band_ / std::max(std::abs(u), band_) + 1e-12 * std::abs(origin_ + now_);
        if (std::abs(now_ - last_collision_[i] - settings_.tc) <= uncertainty)
            ambiguous_since_ = std::min(ambiguous_since_, origin_ + now_);
    }

    // ---- properties ------------------------------------------------------------------

    std::uint32_t species(std::uint32_t i) const { return p_[i].species; }
    double radius(std::uint32_t i) const { return table_.species[species(i)].radius; }
    double mass(std::uint32_t i) const { return table_.species[species(i)].mass; }

    // A plane wall as it is; a segment part (face, from end, to end) as its tangent plane
    // at the contact of a particle centred at x.
    choc::Wall<D> obstacle_plane(std::uint32_t w, const Vec<D>& x) const {
        return choc::obstacle_plane(box_, w, x);
    }

    // The TC model: a particle that collided less than tc ago collides elastically.
    bool recent(std::uint32_t i) const { return now_ - last_collision_[i] < settings_.tc; }
    void collided(std::uint32_t i) { last_collision_[i] = now_; }
    double pair_restitution(std::uint32_t i, std::uint32_t j) const {
        if (settings_.tc > 0.0 && (recent(i) || recent(j))) return 1.0;
        return restitution_[species(i) * table_.size() + species(j)];
    }
    double wall_restitution(std::uint32_t i, std::uint32_t w) const {
        if (settings_.tc > 0.0 && recent(i)) return 1.0;
        return choc::obstacle_restitution(box_, w);
    }

    choc::Box<D> box_;
    choc::SpeciesTable table_;
    choc::EngineSettings settings_;
    Motion motion_;
    std::vector<double> restitution_;
    double refresh_distance_ = 0.0;
    double band_ = 0.0, length_band_ = 0.0, ambiguous_since_ = never; // absolute

    std::vector<choc::ParticleState<D>> p_; // at their own time stamps (since origin_)
    std::vector<Planned> plan_;
    std::vector<Planned> wall_plan_; // each particle's earliest obstacle contact, as planned
    std::set<std::pair<double, std::uint32_t>> calendar_;
    std::vector<std::uint32_t> last_partner_;
    // The pair contacts the group rule left at rest at rested_at_, with the two counts
    // after that step: valid while both are unchanged. Pending until the counts are final.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint32_t, std::uint32_t>>
        rested_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pending_rested_;
    double rested_at_ = -never;
    std::vector<double> last_collision_; // since origin_ (negative: before the restart)
    double origin_ = 0.0;                // absolute time of the clock's zero: the last restart
    double now_ = 0.0;                   // since origin_

    std::vector<std::uint32_t> bodies_; // of the simultaneous step being built
    std::vector<std::uint8_t> member_;
    std::vector<choc::ContactPair> contacts_;
    choc::GroupSolver<D> solver_;
    std::uint64_t groups_ = 0;
    std::vector<Collision> log_;
};

} // namespace oracle
