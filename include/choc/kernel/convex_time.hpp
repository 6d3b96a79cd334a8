// The first contact of a particle on a curved flight (gravity, with or without drag) with
// a convex obstacle: a point (a segment's end), a segment (a triangle's edge) or any other
// convex set given by its nearest-point map. Used by segment_time.hpp and triangle_time.hpp.
//
// F(τ) = d(x(τ))² − a², d the distance to the set, r(τ) = x(τ) − nearest(x(τ)). For a convex
// set d²/2 is convex with a 1-Lipschitz gradient r, so F' = 2 r.x' and
//     −2 |r| |x''| <= F'' <= 2 (|x'|² + |r| |x''|).
// On [τ, τ + h] the acceleration x'' = g − γ x' has at most its present size A (constant
// without drag, decaying with it), so |x'| <= V = |x'(τ)| + A h, |r| <= R = |r(τ)| + V h and
// |F''| <= M = 2 (V² + R A). Hence
//     F(τ + η) >= F + F' η − M η²/2   for η in [0, h],
// and no root lies before the larger root η* of that parabola,
//     η* = 2F / (−F' + √(F'² + 2MF))  (F' <= 0),   (F' + √(F'² + 2MF)) / M  (F' > 0).
// If η* >= h the whole trial interval is clear; else step η*. Near a crossing root this
// is Newton's step from the outside (converges quadratically, never overshoots); near a
// grazing minimum it closes in geometrically (factor about 0.6 a step) and either finds F
// at round-off level (a real, grazing contact) or steps over a minimum that the bound
// proves positive (a near miss). `window` bounds the search: the caller looks again then.
#pragma once

#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace choc {

// The search runs on sign F: with sign = +1 it finds the first entry into the solid
// {d < a} (F falls through zero), with sign = −1 the first exit from it (−F falls through
// zero, for a centre inside now: a sphere passing through a one-sided triangle). The bound
// |F''| <= M holds for −F as well, so the steps are the same.
// `nearest(x)` is the set's point nearest to x; `scale` the size of the set's coordinates
// (distances within a few ulp of it are round-off); `Point`: the set is one point; `line`:
// for a segment (a triangle's edge), its unit tangent, else zero.
template <int Sign = 1, bool Point = false, int D, class Motion, class Nearest>
double convex_time_stepped(const Motion& motion, const Nearest& nearest, double scale,
                           const ParticleState<D>& q, double a, double window,
                           const Vec<D>& line = {}) {
    static_assert(Sign == 1 || Sign == -1, "an entry (+1) or an exit (-1)");
    constexpr double eps = std::numeric_limits<double>::epsilon();
    // Distances within `slack` of contact are round-off: positions carry errors of a few
    // ulp of their size.
    const double slack = convex_slack_ulps * eps * (scale + a);
    const double touch = slack * (2.0 * a + slack); // (a + slack)² − a²
    double tau = 0.0;
    double trial = window < never ? window : 1.0;
    for (int k = 0; k < convex_search_steps; ++k) {
        const Vec<D> x = motion.position(q, tau);
        const Vec<D> r = x - nearest(x);
        const Vec<D> w = motion.velocity(q, tau);
        double f = Sign * (norm2(r) - a * a);
        const double df = Sign * 2.0 * dot(r, w);
        // F' within the round-off of 2 r.w is a tangent: its sign is noise (r carries the
        // round-off of the coordinates, slack)
        const double level = 4.0 * slack * norm(w);
        if (f <= touch && df <= level) {
            if (df < -level) return tau; // at contact and approaching (exit: leaving): now
            // Tangent at contact (F' = 0): the sign of F'' decides. For a convex set
            // F''/2 = r.x'' + x'ᵀ H x' with 0 <= H <= 1 (H the Hessian of d²/2), H = 1 for a
            // point, and for a segment of tangent t H >= 1 − t tᵀ (1 − t tᵀ beside its
            // inside, 1 beside its ends): `bend`, a lower bound of (sign F)''/2, exact for a
            // point and beside a segment's inside. (With the bound 0 for a segment, a sphere
            // leaving a glide across a triangle's edge, at 4.2 away from it, pressed on it
            // by the field at 0.7, was met by the edge at once for ever.)
            const Vec<D> acc = motion.acceleration(w);
            const double ra = dot(r, acc), w2 = norm2(w), a2 = norm2(acc);
            const double along = dot(w, line); // 0 but for a segment
            const double bend =
                Sign == 1 ? ra + (Point ? w2 : std::max(w2 - along * along, 0.0)) : -ra - w2;
            // Pressed in from a gap above zero (an entry, bend < 0, f > 0): F falls
            // through zero at a root the flight reaches, near √(f / −bend) with F' at
            // round-off, and the steps below close in on it from outside (the bound's
            // root, never beyond F's), to where F' is a real approach, as
            // Field::first_contact measures a plane's closing gap from the gap it has. Met
            // now instead, the contact is met with no approach: the rule changes nothing,
            // and it is met now again, for ever. Seen: a disc sliding up a segment face in
            // TC bounces, 1.2e-7 short of the face's end (a tooth's apex): a group of the
            // face and the apex (normals 2.4e-7 apart) stopped the apex's approach (the
            // rule's plastic fallback) and left the disc 1.4e-14 (s² / 2a, 8 ulps) outside
            // the apex's circle, lifting off the face at 8e-8, the field pressing it onto
            // the apex: met now, in 4096 groups without the clock moving (scan case
            // 13865248799175595280, t = 7.1959). Now it meets the apex 5e-8 later,
            // approaching at 8e-8, its gap within the slack (the root: 1.3e-7). A gap at or
            // below zero is met now, as before: it cannot be told from contact. (An exit's
            // search keeps its rule.)
            const bool from_gap = Sign == 1 && bend < 0.0 && f > 0.0;
            if (!(bend > 0.0) && !from_gap) {
                // A point beside a particle nearly at rest, its acceleration square to the
                // contact (a disc woken beside one at rest at the same height: bend = 0
                // exactly, met at once 455,426 times; the 60-disc box, e = 0.3, seed 6):
                // then F(τ + η) = F + bend η² + (w.x'') η³ + |x''|² η⁴ / 4 + ..., bend and w at
                // round-off, and the quartic term carries it off. Skipped when the overlap
                // on the way, bend² / |x''|², and the cubic term's share are round-off; after
                // the skip the search looks again with the velocity gravity has given it.
                if (!(Point && Sign == 1 && bend * bend <= a2 * touch && w2 * w2 <= a2 * touch))
                    return tau; // pressed in, or not provably leaving: meets now
                const double s = 2.0 * (-bend + std::sqrt(bend * bend + 4.0 * a2 * touch)) / a2;
                const double rise = std::sqrt(s);
                if (!(tau + rise < window)) return never;
                tau += rise;
                continue;
            }
            // Leaving: F(τ + η) = F + F' η + bend η² + O(η³), |F'| at round-off, so the
            // contact is left behind once bend η² > 4 touch, where the search resumes (the
            // overlap on the way, F'²/(4 bend), is round-off squared). (Before, f = df = 0 made the
            // step below 0/0 and the search returned never. Seen since: a particle woken
            // from rest (Engine::wake) touching one at rest above it or beside it, gravity
            // taking it away or it moving up, met it at once for ever; and one falling past
            // one at rest beside it, F' = -1e-30 by round-off, met it an ulp later for
            // ever; issue 40.)
            if (!from_gap) {
                const double rise = std::sqrt(4.0 * touch / bend);
                if (!(tau + rise < window)) return never;
                tau += rise;
                continue;
            }
        }
        f = std::max(f, 0.0); // at contact and separating: the bound starts from contact
        const double h = std::min(trial, window - tau);
        if (!(h > 0.0)) return never;
        const Vec<D> acc = motion.acceleration(w);
        const double accel = norm(acc), radius = norm(r), speed = norm(w) + accel * h;
        const double m = 2.0 * (speed * speed + (radius + speed * h) * accel);
        // A second lower bound of (sign F)'', from its value now: over [τ, τ + h]
        // r moves by at most V h (r is 1-Lipschitz in x) and x'' by at most A γ h (it
        // decays as e^(−γη)), so r.x'' >= r.x''(τ) − A h (V + |r| γ), and x'ᵀ H x' lies
        // between (|x'(τ)| − A h)² (a point, H = 1; 0 for other sets) and V². Where r is
        // square to the pull, as for a particle touching one at rest beside it (gravity
        // along their line of centres' normal), this bound is near |x'|² > 0 while m is
        // 2 |r| A: with m alone a hop of 0.025 at that contact (g = 1.32, |r| = 0.5) grew
        // its steps by 3 % each, ran out of steps 1e-3 into its flight and returned that
        // time, 5.7e-10 from contact, as the contact (scan case 15487791520201613362).
        double drag = 0.0;
        if constexpr (requires { motion.drag(); }) drag = motion.drag();
        const double drift = accel * h * (speed + radius * drag);
        const double slowest = std::max(norm(w) - accel * h, 0.0);
        const double bend = Sign == 1 ? dot(r, acc) - drift + (Point ? slowest * slowest : 0.0)
                                      : -dot(r, acc) - drift - speed * speed;
        // F(τ + η) >= F + F' η − M η²/2 with M = min(m, −2 bend); M <= 0: convex there
        const double curve = std::min(m, -2.0 * bend);
        const double disc = df * df + 2.0 * curve * f;
        double step = h; // no root of the bound within the trial interval
        if (df <= 0.0) {
            if (disc >= 0.0) step = 2.0 * f / (std::sqrt(disc) - df);
        } else if (curve > 0.0) {
            step = (df + std::sqrt(disc)) / curve;
        }
        if (step >= h) {
            tau += h;
            trial = 2.0 * h;
        } else {
            if (tau + step == tau) return tau; // below the resolution of τ: at the contact
            tau += step;
            trial = 2.0 * step; // a tighter bound next time
        }
    }
    return tau; // not reached in practice; a time at or before the contact, never after
}

} // namespace choc
