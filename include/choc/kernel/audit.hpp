// The runtime invariants every run checks, release builds included: a run that breaks one
// stops with InvariantViolation (errors.hpp) instead of returning wrong physics.
//
//   event order       no event earlier than the clock (checked at every event)
//   progress          the clock does not stand still for ever (64 N + 1e6 events at one
//                     instant: a group step that changes nothing, repeated)
//   contact distance  a pair (wall) collides at its contact distance (radius)
//   overlap           no pair closer than its contact distance, wherever a scan looks
//   energy, momentum  at every maintenance step and at the end: the energy agrees with the
//                     last check plus the collision losses (and the work of drag), the
//                     momentum with the last check where nothing external acts
//
// measure_ledger computes the sums for both engines; check_ledger holds the rule.
#pragma once

#include "choc/errors.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace choc {

// Energy and momentum at one moment, with the round-off scale of each.
template <int D>
struct Ledger {
    double energy = 0.0;       // kinetic + potential in the field
    double energy_scale = 0.0; // kinetic + |potential| terms: the size round-off is relative to
    // Energy gained in collisions since the last check. Summed afresh for each stretch: a
    // running total over a granular gas that cooled by 1e7 would carry round-off of 1e-16
    // of the first energy, beyond the tolerance of the last.
    double collision_energy = 0.0;
    double drag_work = 0.0; // energy drag has taken since the measured phase began (2 γ ∫ KE dt)
    Vec<D> momentum{};
    double momentum_scale = 0.0; // Σ m |v|
};

// The energy (kinetic, plus the potential −m g·x under a field) and momentum of the
// particles at `now`, with their round-off scales, as both engines measure them:
// `wrapped_potential` is what periodic wraps took back from the potential (g·x jumps by
// g_a L_a at each), `kinetic_integral()` gives ∫KE dt since the measured phase began, for
// the work of drag (−γ m v² = −2 γ KE per unit time), and is called only under a field.
template <int D, class Motion, class KineticIntegral>
Ledger<D> measure_ledger(const Particles<D>& particles, const Motion& motion, double now,
                         double wrapped_potential, KineticIntegral&& kinetic_integral) {
    Ledger<D> l;
    for (std::uint32_t i = 0; i < particles.size(); ++i) {
        const auto& p = particles.state[i];
        const double m = particles.mass(i);
        const Vec<D> v = motion.velocity(p, now);
        const double k = kinetic_energy(m, v);
        l.energy += k;
        l.energy_scale += k;
        l.momentum += v * m;
        l.momentum_scale += m * norm(v);
        if constexpr (Motion::has_field) {
            const double u = -m * dot(motion.gravity(), motion.position(p, now));
            l.energy += u;
            l.energy_scale += std::abs(u);
        }
    }
    if constexpr (Motion::has_field) {
        l.energy += wrapped_potential;
        l.energy_scale += std::abs(wrapped_potential);
        l.drag_work = 2.0 * motion.drag() * kinetic_integral();
    }
    return l;
}

[[noreturn]] inline void invariant_violated(const std::string& invariant, double time,
                                            const std::string& detail) {
    throw InvariantViolation(invariant, fmt::format("invariant '{}' violated at t = {:.17g}: {}",
                                                    invariant, time, detail));
}

// The energy now against the last check: what collisions gained (or lost) and drag took
// in between. Each of the few thousand or more events between checks adds round-off of
// about 1e-16 of the energy it touches; the tolerance covers that a thousand times over.
// With `momentum_conserved` (every axis periodic, no walls, no field) the momentum must not
// move beyond the same relative tolerance of Σ m |v|.
template <int D>
void check_ledger(const Ledger<D>& before, const Ledger<D>& now, bool momentum_conserved,
                  double time) {
    const double gained = now.collision_energy - (now.drag_work - before.drag_work);
    const double expected = before.energy + gained;
    // the drag term is a difference of running integrals: their round-off counts too
    const double scale = std::max(before.energy_scale, now.energy_scale) + std::abs(gained) +
                         std::abs(now.drag_work);
    // written so that a NaN fails too
    if (!(std::abs(now.energy - expected) <= invariant_tolerance * scale))
        invariant_violated("energy", time,
                           fmt::format("energy {:.17g}, expected {:.17g} (last check {:.17g}, "
                                       "collisions and drag since {:.17g})",
                                       now.energy, expected, before.energy, gained));
    if (!momentum_conserved) return;
    const double drift = norm(now.momentum - before.momentum);
    if (!(drift <= invariant_tolerance * std::max(before.momentum_scale, now.momentum_scale)))
        invariant_violated("momentum", time,
                           fmt::format("total momentum moved by {:.3g} since the last check "
                                       "(sum of m|v| {:.6g})",
                                       drift, now.momentum_scale));
}

} // namespace choc
