// The conservation laws a scan run must keep (soak_scan.cpp), on snapshots taken at its
// start and end.
#pragma once

#include "scan_checks.hpp"

#include <choc/kernel/tally.hpp>
#include <choc/run/config.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace scan {

template <int D>
struct Totals {
    double mass = 0.0, kinetic = 0.0, speed_mass = 0.0, height = 0.0; // height: Σ m g·x
    choc::Vec<D> momentum;
    std::size_t count = 0;
};
template <int D>
Totals<D> totals(const choc::Particles<D>& p, const choc::Vec<D>& g) {
    Totals<D> t;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
        const double m = p.mass(i);
        const auto& s = p.state[i];
        t.mass += m;
        t.kinetic += 0.5 * m * norm2(s.v);
        t.speed_mass += m * norm(s.v);
        t.momentum += s.v * m;
        t.height += m * dot(g, s.x);
    }
    t.count = p.size();
    return t;
}

// The engine's running kinetic energy: each of its += rounds by at most an ulp of a
// value no larger than the largest kinetic energy, twice per event (the change and the
// sum), so (2 events + N) ulps bound the drift strictly.
template <int D>
void check_tally(const Totals<D>& a, const Totals<D>& b, const choc::Tally& tally,
                 double tally_kinetic) {
    const double ulps = 2.0 * static_cast<double>(tally.events() + b.count);
    const double bound = ulps * 0x1p-52 * std::max(a.kinetic, b.kinetic) + 1e-300;
    if (!(std::abs(tally_kinetic - b.kinetic) <= bound))
        throw Failure("kinetic tally", str("engine's kinetic energy ", tally_kinetic,
                                           ", particles' ", b.kinetic, " (bound ", bound, ")"));
}

// Energy and momentum against the laws that fix them. Collisions conserve momentum, so in
// a box with no walls dP/dt = -γ P + M g: P(t) = P0 e^(-γt) + M g s(t). Elastic collisions
// conserve kinetic energy; uniform gravity only moves the centre of mass, so without walls
// KE - P²/2M is conserved, and with walls (gravity only along walled axes, where positions
// are never wrapped) KE - Σ m g·x is. Restitution < 1, drag and the plastic fallback of the
// group rule only ever take energy out. Between sliding boundaries (box.shear_rate) P_x
// changes at every crossing of the y face and the boundary works on the fluid: P_y and P_z
// are conserved, and the peculiar energy E_c = sum m |v - gamma (y - L_y/2) e_x|^2 / 2
// changes by -gamma M, M the engine's shear moment (exactly when elastic, by at most that
// when not; no law with a thermostat).
template <int D>
void check_laws(const choc::Config& c, const choc::Box<D>& box, const choc::Particles<D>& first,
                const choc::Particles<D>& last, double t, const choc::Vec<D>& g, double gamma,
                const choc::Tally& tally, double tally_kinetic,
                std::optional<double> shear_moment = std::nullopt) {
    const Totals<D> a = totals(first, g), b = totals(last, g);
    const bool bulk =
        std::all_of(box.periodic.begin(), box.periodic.end(), [](bool p) { return p; }) &&
        !box.has_obstacles();
    const double s = gamma > 0.0 ? -std::expm1(-gamma * t) / gamma : t;
    // Round-off: an ulp of a particle's momentum per collision, in a random walk over at
    // most 2e7 collisions: ~1e-12 of Σ m|v| at worst. 1e-9 of that scale is far above it
    // and far below one particle's momentum (Σ m|v| / N, N <= 4000).
    const double p_scale = a.speed_mass + a.mass * norm(g) * t;
    if (bulk) {
        choc::Vec<D> expected = a.momentum * std::exp(-gamma * t) + g * (a.mass * s);
        if (box.sheared()) expected[0] = b.momentum[0]; // (P_x is the sliding's)
        if (norm(b.momentum - expected) > 1e-9 * p_scale)
            throw Failure("momentum",
                          str("momentum ", norm(b.momentum), " at t = ", t, ", expected ",
                              norm(expected), " (off by ", norm(b.momentum - expected), ")"));
    }
    bool along_walls = true;
    for (int k = 0; k < D; ++k) along_walls = along_walls && (!box.periodic[k] || g[k] == 0.0);
    // Thermal walls give and take energy: no law fixes it (the engine's own ledger still
    // checks that every change was booked, check_conservation).
    const bool thermal =
        std::any_of(box.walls.begin(), box.walls.end(), [](const auto& w) { return w.thermal(); });
    if (box.sheared()) {
        if (c.shear_temperature || !shear_moment) return check_tally(a, b, tally, tally_kinetic);
        const auto peculiar = [&](const choc::Particles<D>& p) {
            double e = 0.0;
            for (const auto& q : p.state) {
                choc::Vec<D> v = q.v;
                v[0] -= box.shear_rate * (q.x[1] - 0.5 * box.length[1]);
                e += 0.5 * p.table.species[q.species].mass * norm2(v);
            }
            return e;
        };
        bool elastic = c.restitution == 1.0;
        for (const auto& e : c.pair_restitution) elastic = elastic && e.restitution == 1.0;
        const double ea = peculiar(first), eb = peculiar(last);
        const double change = eb - ea + box.shear_rate * *shear_moment;
        // round-off as for the energy below, on the peculiar energies and the work
        const double tol = 1e-9 * (ea + eb + std::abs(box.shear_rate * *shear_moment));
        if (elastic ? std::abs(change) > tol : change > tol)
            throw Failure("energy", str("peculiar energy ", eb, " from ", ea,
                                        " with the sliding's "
                                        "work ",
                                        -box.shear_rate * *shear_moment, ": off by ", change,
                                        " (tolerance ", tol, ")"));
        return check_tally(a, b, tally, tally_kinetic);
    }
    if ((bulk || along_walls) && !thermal) {
        auto q = [&](const Totals<D>& x) {
            return bulk ? x.kinetic - 0.5 * norm2(x.momentum) / x.mass : x.kinetic - x.height;
        };
        // (the rest model takes the energy of the particles it puts to rest)
        bool elastic = c.restitution == 1.0 && gamma == 0.0 && tally.fallback_groups == 0 &&
                       c.rest_speed == 0.0;
        for (const auto& e : c.pair_restitution) elastic = elastic && e.restitution == 1.0;
        for (const auto& w : box.walls) elastic = elastic && w.restitution == 1.0;
        for (const auto& w : box.segments) elastic = elastic && w.restitution == 1.0;
        for (const auto& w : box.triangles) elastic = elastic && w.restitution == 1.0;
        // Round-off: a few ulps of the two particles' energies per collision; even all of one
        // sign over 3000 collisions per particle that is ~1e-12 of the total. The potential
        // term's scale is Σ m |g| times the longest edge.
        double edge = 0.0;
        for (int k = 0; k < D; ++k) edge = std::max(edge, box.length[k]);
        const double tol = 1e-9 * (a.kinetic + a.mass * norm(g) * edge);
        const double change = q(b) - q(a);
        if (elastic ? std::abs(change) > tol : change > tol)
            throw Failure("energy", str(elastic ? "conserved" : "non-increasing", " energy ",
                                        bulk ? "KE - P^2/2M" : "KE - sum m g.x", " changed by ",
                                        change, " from ", q(a), " (tolerance ", tol, ")"));
    }
    check_tally(a, b, tally, tally_kinetic);
}

} // namespace scan
