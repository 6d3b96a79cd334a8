// The seed scan's own checks, written apart from the engine's code: an event log that
// looks at every collision as it happens, and the end-of-run checks on a snapshot.
#pragma once

#include <choc/kernel/box.hpp>
#include <choc/kernel/event_log.hpp>
#include <choc/kernel/lees_edwards.hpp>
#include <choc/kernel/obstacle.hpp>
#include <choc/kernel/particles.hpp>

#include "obstacle_numbers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace scan {

// Tolerances, relative to a contact distance (pairs) or a radius (walls).
//
// Overlap: positions carry round-off of about 1e-16 of the box edge (at most ~1e2
// diameters here), and an exact contact time puts a pair at contact to that, so
// overlaps at collisions sit near 1e-14 (docs/REFERENCE.md: max_overlap ~1e-14; 1e-13 for the
// hourglass with segments and gravity). 1e-9 leaves four orders of margin; a missed
// collision overlaps by a sizeable part of a diameter.
constexpr double overlap_tolerance = 1e-9;
// Gap at a binary collision (epsilon = 0): the same round-off, the same margin. A pair
// that collides away from contact (an event at a stale or wrong time) is off by far more.
constexpr double gap_tolerance = 1e-9;
// With epsilon > 0 a contact joins a group when touching within contact_gap, or when its
// own event falls within epsilon of the group's time, leaving a gap of at most |u| epsilon.
// Relative speeds here stay below 1e3 (kT <= 3, masses >= 0.03, gravity <= 3 over runs of
// at most a few hundred time units), epsilon <= 1e-8 and diameters >= 0.3: |u| epsilon /
// sigma < 3.4e-5. 1e-4 on top of contact_gap bounds that; still far below any real miss.
constexpr double group_gap_allowance = 1e-4;

struct Failure : std::runtime_error {
    Failure(std::string check, const std::string& what)
        : std::runtime_error(what), check(std::move(check)) {}
    std::string check;
};

template <class... Args>
std::string str(const Args&... args) {
    std::ostringstream s;
    s.precision(17);
    (s << ... << args);
    return s.str();
}

// The nearest image of a separation on the periodic axes (by rounding, not by the box's
// own compare-and-shift, so the two can disagree).
template <int D>
choc::Vec<D> nearest_image(const choc::Box<D>& box, choc::Vec<D> r, double t) {
    if (box.sheared()) { // the images across y slid by gamma L_y t, from aligned at t = 0
        int k = 0;
        return choc::LeesEdwards<D>{box.length, box.shear_rate}.minimum_image(r, t, k);
    }
    for (int a = 0; a < D; ++a)
        if (box.periodic[a]) r[a] -= box.length[a] * std::nearbyint(r[a] / box.length[a]);
    return r;
}

// Distance of a centre from obstacle w, numbered as the engine does (plane walls, then
// three per segment: face, `from` end, `to` end; then one per triangle).
template <int D>
double obstacle_distance(const choc::Box<D>& box, std::uint32_t w, const choc::Vec<D>& x) {
    const soak::Obstacle o = soak::Obstacle::decode(w, box.walls.size(), box.segments.size());
    if (o.wall) return box.walls[o.index].distance(x);
    if (o.triangle) return box.triangles.at(o.index).distance(x);
    const auto& s = box.segments.at(o.index);
    if (o.kind() == soak::Obstacle::Kind::segment_face) return std::abs(s.height(x));
    return norm(x - s.end(o.part));
}

// Told of every collision by the engine (its event log: choc/kernel/event_log.hpp). Checks
// that collision times never decrease, that both particles of a pair were brought to the
// collision time, and that every collision happens at contact. Reads the engine's
// particles through the pointers set after the engine is built; caller indices are mapped
// to the engine's order through `id`, rebuilt whenever the engine has renumbered.
template <int D>
struct ScanLog : choc::EventLog {
    const choc::Particles<D>* particles = nullptr;
    const choc::Box<D>* box = nullptr;
    std::function<std::uint32_t(std::uint32_t)> id; // engine index -> caller index
    double allowed_gap = gap_tolerance;             // relative, above contact

    std::vector<std::uint32_t> index; // caller index -> engine index
    double last = -std::numeric_limits<double>::infinity();
    std::uint64_t pairs = 0, walls = 0;
    double worst_overlap = 0.0, worst_gap = 0.0; // relative, over every collision
    std::string worst_where;                     // the collision with the worst overlap

    void pair(double t, std::uint32_t a, std::uint32_t b) override {
        ++pairs;
        order(t, a);
        const auto& pa = particles->state[engine_index(a)];
        const auto& pb = particles->state[engine_index(b)];
        // (a particle at rest, met as a fixed sphere by a slow impact, keeps its stamp)
        if (pa.t != pb.t && !pa.resting() && !pb.resting())
            throw Failure("stamps", str("pair ", a, "-", b, " collides at t = ", t,
                                        " with time stamps ", pa.t, " and ", pb.t));
        const double sigma = particles->table.pair_sigma(pa.species, pb.species);
        contact(t, str("pair ", a, "-", b), norm(nearest_image(*box, pa.x - pb.x, t)), sigma);
    }

    void wall(double t, std::uint32_t a, std::uint32_t w) override {
        ++walls;
        order(t, a);
        const std::uint32_t i = engine_index(a);
        const double radius = particles->radius(i);
        contact(t, str("particle ", a, " and obstacle ", w),
                obstacle_distance(*box, w, particles->state[i].x), radius);
    }

  private:
    void order(double t, std::uint32_t a) {
        // Exact: after a rebase the engine's clock restarts at the absolute time of the
        // last event, so event times can never step back, not even by one ulp.
        if (!(t >= last))
            throw Failure("clock", str("clock ran backwards: a collision of particle ", a,
                                       " at t = ", t, " after one at t = ", last));
        last = t;
    }

    void contact(double t, const std::string& who, double distance, double contact_distance) {
        const double rel = (distance - contact_distance) / contact_distance;
        if (-rel > worst_overlap) worst_overlap = -rel, worst_where = str(who, " at t = ", t);
        worst_gap = std::max(worst_gap, rel);
        if (!(rel >= -overlap_tolerance && rel <= allowed_gap))
            throw Failure("contact",
                          str(who, " collides at t = ", t, " at distance ", distance,
                              " for contact at ", contact_distance, " (relative ", rel, ")"));
    }

    std::uint32_t engine_index(std::uint32_t a) {
        if (index.size() != particles->size()) index.assign(particles->size(), 0);
        if (id(index[a]) != a)
            for (std::uint32_t i = 0; i < particles->size(); ++i) index[id(i)] = i;
        return index[a];
    }
};

// The gap a contact may have at its group's time (epsilon > 0), relative, beyond
// contact_gap: a contact joins when its own event falls within epsilon of the group's
// time, so at most |u| epsilon from contact (u the pair's relative velocity; a particle's
// own v + |g| epsilon / 2 at a wall). group_gap_allowance bounds that up to epsilon = 1e-8;
// the pile family's 1e-6 needs a bound on the speeds, which the energy gives where none
// comes in (no thermal walls, no sliding boundaries, gravity along walled axes only): a
// particle's kinetic energy is at most the kinetic energy of all at the start plus their
// potential energy above the lowest point of the box, which collisions, drag, TC and the
// rest model never raise. So v <= v_max = sqrt(2 E / m_min), |u| <= 2 v_max, and the gap
// is at most (v_max epsilon + |g| epsilon^2 / 2) / r_min of a contact distance or radius;
// twice that for margin. Elsewhere group_gap_allowance stands.
template <int D>
double group_gap(const choc::Box<D>& box, const choc::Particles<D>& start, const choc::Vec<D>& g,
                 double epsilon) {
    bool closed = !box.sheared();
    for (const auto& w : box.walls) closed = closed && !w.thermal();
    double floor_term = 0.0; // the largest g.x over the box: the potential's lowest point
    for (int a = 0; a < D; ++a) {
        closed = closed && (!box.periodic[a] || g[a] == 0.0);
        floor_term += std::max(0.0, g[a] * box.length[a]);
    }
    if (!closed || start.size() == 0) return group_gap_allowance;
    double energy = 0.0, lightest = std::numeric_limits<double>::infinity(), smallest = lightest;
    for (std::uint32_t i = 0; i < start.size(); ++i) {
        const double m = start.mass(i);
        energy += m * (0.5 * norm2(start.state[i].v) + floor_term - dot(g, start.state[i].x));
        lightest = std::min(lightest, m);
        smallest = std::min(smallest, start.radius(i));
    }
    const double speed = std::sqrt(2.0 * energy / lightest);
    const double gap = 2.0 * (speed * epsilon + 0.5 * norm(g) * epsilon * epsilon) / smallest;
    return std::max(group_gap_allowance, gap);
}

// The worst overlap over every pair (O(N^2), no cell grid) and every obstacle, relative;
// throws on a position that is not finite.
template <int D>
double brute_force_overlap(const choc::Box<D>& box, const choc::Particles<D>& p, double t) {
    double worst = 0.0;
    const auto n = static_cast<std::uint32_t>(p.size());
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto& x = p.state[i].x;
        for (int a = 0; a < D; ++a)
            if (!std::isfinite(x[a]) || !std::isfinite(p.state[i].v[a]))
                throw Failure("finite", str("particle ", i,
                                            " has a position or velocity that "
                                            "is not finite"));
        for (std::uint32_t j = i + 1; j < n; ++j) {
            const double sigma = p.table.pair_sigma(p.state[i].species, p.state[j].species);
            worst =
                std::max(worst, (sigma - norm(nearest_image(box, x - p.state[j].x, t))) / sigma);
        }
        const double a = p.radius(i);
        const auto obstacles = static_cast<std::uint32_t>(
            box.walls.size() + 3 * box.segments.size() + box.triangles.size());
        for (std::uint32_t w = 0; w < obstacles; ++w) {
            // a segment face counts only where the centre projects onto it
            const soak::Obstacle o =
                soak::Obstacle::decode(w, box.walls.size(), box.segments.size());
            if (o.kind() == soak::Obstacle::Kind::segment_face) {
                const auto& s = box.segments[o.index];
                const double along = s.along(x);
                if (along < 0.0 || along > s.length) continue;
            }
            worst = std::max(worst, (a - obstacle_distance(box, w, x)) / a);
        }
    }
    return worst;
}

} // namespace scan
