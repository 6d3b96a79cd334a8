// Free flight between events (docs/PHYSICS.md, "Fields"), exact, for every particle alike:
//
//   Ballistic:    x(τ) = x0 + v0 τ                      v(τ) = v0
//   Field, γ = 0: x(τ) = x0 + v0 τ + g τ²/2            v(τ) = v0 + g τ
//   Field, γ > 0: x(τ) = x0 + v∞ τ + (v0 − v∞) s(τ)    v(τ) = v∞ + (v0 − v∞) e^(−γτ)
//                 with v∞ = g/γ (terminal velocity) and s(τ) = (1 − e^(−γτ))/γ
//
// τ is the time since the particle's own stamp. Every particle feels the same g and γ, so
// relative motion is simple: under gravity alone the relative velocity is constant (g
// cancels) and pair times stay the quadratic of predict.hpp; with drag the relative
// position moves on a straight line in s, r(s) = r0 + (v_i0 − v_j0) s, so the pair time is
// that quadratic solved for s and mapped back by τ = −ln(1 − γs)/γ (no collision when
// γs ≥ 1: the pair stops approaching before it meets). Walls and cell boundaries are
// planes: the distance to a plane moves in one dimension, see first_contact below.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <cmath>
#include <concepts>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

namespace choc {

// The operations of every motion.
template <class M, int D>
concept FreeFlight = requires(const M m, ParticleState<D>& p, const ParticleState<D>& cp,
                              const Vec<D>& v, double t) {
    typename std::bool_constant<M::has_field>;
    { m.position(cp, t) } -> std::convertible_to<Vec<D>>;
    { m.velocity(cp, t) } -> std::convertible_to<Vec<D>>;
    m.advance(p, t);
    { m.along(v) } -> std::convertible_to<double>;
    { m.acceleration(v) } -> std::convertible_to<Vec<D>>;
    { m.pair_time(v, v, t, t) } -> std::convertible_to<double>;
    { m.first_contact(t, t, t) } -> std::convertible_to<double>;
    { m.fall_after_turn(t, t, t) } -> std::convertible_to<double>;
};

// What a motion with a field (has_field) offers besides.
template <class M, int D>
concept FieldFlight = requires(const M m, const Vec<D>& v, double t) {
    { m.gravity() } -> std::convertible_to<Vec<D>>;
    { m.drag() } -> std::convertible_to<double>;
    { m.speed2_integral(v, t, t) } -> std::convertible_to<double>;
};

// What the engine (engine.hpp), the segment times (segment_time.hpp) and the reference
// simulator of the tests ask of a free flight in D dimensions, as the Calendar concept
// does for calendars. τ = now − p.t is the time since the particle's own stamp.
//   has_field                 a constant: false lets the engine take the straight-line
//                             paths (batched pair times, running kinetic energies)
//   position(p, now), velocity(p, now)   the state of p at now, p left as it is
//   advance(p, now)           p brought to now (stamp included)
//   along(n)                  the field's acceleration along the direction n
//   acceleration(v)           the acceleration of a particle moving at v
//   pair_time(r, v, σ², horizon)   first contact of a pair at relative r, v (predict.hpp)
//   first_contact(gap, u, a), fall_after_turn(gap, u, a)   a 1D gap to a plane closing
// With a field also gravity(), drag() and speed2_integral(v0, τ1, τ2) (∫|v|² dτ of a
// flight, for the kinetic-energy integrals and the work of drag).
template <class M, int D>
concept Motion = std::copy_constructible<M> && FreeFlight<M, D> &&
    (!M::has_field || FieldFlight<M, D>);

// Straight lines: the engine's fast path, with no field at all.
template <int D>
struct Ballistic {
    static constexpr bool has_field = false;

    [[gnu::always_inline]] Vec<D> position(const ParticleState<D>& p, double now) const {
        return p.position_at(now);
    }
    [[gnu::always_inline]] Vec<D> velocity(const ParticleState<D>& p, double) const { return p.v; }
    // The field's acceleration along a direction: none.
    double along(const Vec<D>&) const { return 0.0; }
    void advance(ParticleState<D>& p, double now) const {
        p.x += p.v * (now - p.t);
        p.t = now;
    }
    [[gnu::always_inline]] double pair_time(const Vec<D>& r, const Vec<D>& v, double sigma2,
                                            double horizon) const {
        return choc::pair_time(r, v, sigma2, horizon);
    }
    // Time until a gap (>= 0 now) that changes at rate u first closes.
    double first_contact(double gap, double u, double) const { return closing_time(gap, u); }
    // A gap below zero (not a round-off overlap: the particle is beside the obstacle) first
    // falls through zero only after it has turned from rising to falling: on a straight
    // line it never turns.
    double fall_after_turn(double, double, double) const { return never; }
    // The acceleration of a particle moving at v: none.
    Vec<D> acceleration(const Vec<D>&) const { return {}; }
};

// Uniform gravity g and linear drag γ >= 0, the same for every particle.
template <int D>
class Field {
  public:
    static constexpr bool has_field = true;

    Field(const Vec<D>& gravity, double drag) : g_(gravity), gamma_(drag) {
        if (gamma_ > 0.0) terminal_ = g_ * (1.0 / gamma_);
    }
    const Vec<D>& gravity() const { return g_; }
    double drag() const { return gamma_; }
    // The field's acceleration along a direction n.
    double along(const Vec<D>& n) const { return dot(g_, n); }

    // s(τ) = (1 − e^(−γτ))/γ, written with expm1 so that it keeps its digits for small γτ;
    // τ itself without drag. s(∞) = 1/γ.
    double s(double tau) const {
        if (gamma_ == 0.0) return tau;
        if (tau == never) return 1.0 / gamma_;
        return -std::expm1(-gamma_ * tau) / gamma_;
    }
    // The inverse, τ = −ln(1 − γs)/γ; never when γs >= 1.
    double tau_of_s(double s) const {
        if (gamma_ == 0.0 || s == never) return s;
        const double gs = gamma_ * s;
        return gs >= 1.0 ? never : -std::log1p(-gs) / gamma_;
    }

    // A particle at rest (resting.hpp) stays where it lies, with no velocity; one gliding
    // along a support moves as if the field were its part along the support, a, with the
    // same drag: its glide slot's acceleration (glides).
    Vec<D> position(const ParticleState<D>& p, double now) const {
        if (p.resting()) [[unlikely]]
            return p.x;
        const double tau = now - p.t;
        if (p.gliding()) [[unlikely]] {
            const Vec<D>& a = glide_acceleration(p.glide_slot());
            if (gamma_ == 0.0) return p.x + p.v * tau + a * (0.5 * tau * tau);
            const Vec<D> w = a * (1.0 / gamma_);
            return p.x + w * tau + (p.v - w) * s(tau);
        }
        if (gamma_ == 0.0) return p.x + p.v * tau + g_ * (0.5 * tau * tau);
        return p.x + terminal_ * tau + (p.v - terminal_) * s(tau);
    }
    Vec<D> velocity(const ParticleState<D>& p, double now) const {
        if (p.resting()) [[unlikely]]
            return {};
        const double tau = now - p.t;
        if (p.gliding()) [[unlikely]] {
            const Vec<D>& a = glide_acceleration(p.glide_slot());
            if (gamma_ == 0.0) return p.v + a * tau;
            const Vec<D> w = a * (1.0 / gamma_);
            return w + (p.v - w) * std::exp(-gamma_ * tau);
        }
        if (gamma_ == 0.0) return p.v + g_ * tau;
        return terminal_ + (p.v - terminal_) * std::exp(-gamma_ * tau);
    }
    // The glides' accelerations, by slot (slot 0 unused), shared by every copy: the
    // engine's table (Glides::set_up). A glide along a floor square to the field has
    // a = 0 exactly, and then the forms above are x + v s(τ) and v e^(−γτ) to the bit.
    void set_glides(std::shared_ptr<const std::vector<Vec<D>>> table) {
        glides_ = std::move(table);
    }
    const Vec<D>& glide_acceleration(std::uint32_t slot) const { return (*glides_)[slot]; }
    void advance(ParticleState<D>& p, double now) const {
        if (p.resting()) [[unlikely]]
            return; // no flight to follow: it keeps its stamp
        const Vec<D> x = position(p, now);
        p.v = velocity(p, now);
        p.x = x;
        p.t = now;
    }

    // r, v: relative position and velocity now (g cancels from v; with drag both decay).
    double pair_time(const Vec<D>& r, const Vec<D>& v, double sigma2, double horizon) const {
        if (gamma_ == 0.0) return choc::pair_time(r, v, sigma2, horizon);
        return tau_of_s(choc::pair_time(r, v, sigma2, s(horizon)));
    }

    // ∫ |v(τ)|² dτ over [τ1, τ2] of one flight from velocity v0 (for kinetic-energy time
    // integrals): with v(τ) = w + d e^(−γτ),
    //   w² Δτ + 2 w.d (e^(−γτ1) − e^(−γτ2))/γ + d² (e^(−2γτ1) − e^(−2γτ2))/(2γ),
    // and without drag, v = v0 + g τ: v0² Δτ + v0.g (τ2² − τ1²) + g² (τ2³ − τ1³)/3.
    double speed2_integral(const Vec<D>& v0, double tau1, double tau2) const {
        if (gamma_ == 0.0)
            return norm2(v0) * (tau2 - tau1) + dot(v0, g_) * (tau2 * tau2 - tau1 * tau1) +
                   norm2(g_) * (tau2 * tau2 * tau2 - tau1 * tau1 * tau1) / 3.0;
        const Vec<D> d = v0 - terminal_;
        const double e1 = std::exp(-gamma_ * tau1), e2 = std::exp(-gamma_ * tau2);
        return norm2(terminal_) * (tau2 - tau1) + 2.0 * dot(terminal_, d) * (e1 - e2) / gamma_ +
               norm2(d) * (e1 * e1 - e2 * e2) / (2.0 * gamma_);
    }

    // Time until a one-dimensional gap first closes: gap >= 0 now (a distance to a plane
    // minus the radius, or to a cell boundary), changing at rate u, with acceleration a
    // along the same direction (the field's component) and the common drag γ:
    //   gap(τ) = gap + u τ + a τ²/2                       (γ = 0)
    //   gap(τ) = gap + u∞ τ + (u − u∞) s(τ),  u∞ = a/γ    (γ > 0)
    // A gap at or below zero (round-off) that is closing, or at rest and pushed closed,
    // closes now. A gap that is opening but will turn back closes when it does.
    //
    // A gap below zero that is opening (a round-off overlap just reflected, a cell face
    // just passed) closes where it falls back through zero, measured from the gap it has
    // (fall_after_turn), so that every flight ends at contact again whatever overlap
    // rounding left at its start. Measured from zero instead, that overlap was carried
    // into the next contact, and the next, and roundings that lean one way added up: a
    // disc sliding down a tilted plane in TC micro-bounces (nearly the same step each
    // flight, so its coordinates round the same way each time) sank by about one ulp of
    // its coordinates per bounce, 5e-10 of a radius after 36,000 bounces, until the run
    // stopped (issue 40, scan case 9647990790255583171). A gap too deep to rise out of
    // before it turns is taken from zero, as before: the flight ends in the overlap it
    // began in, and the rounding of its end can deepen it (a bounce rising less than an ulp
    // of the coordinates on a tilted support sank by a few ulps a bounce: scan case
    // 17361983651036864775), so the engine puts a particle that leaves an obstacle so back
    // on the contact at the collision (Engine::back_to_contact).
    double first_contact(double gap, double u, double a) const {
        if (gap <= 0.0 && (u < 0.0 || (u == 0.0 && a < 0.0))) return 0.0;
        if (gap < 0.0)
            if (const double fall = fall_after_turn(gap, u, a); fall < never) return fall;
        return gamma_ == 0.0 ? parabola_contact(std::max(gap, 0.0), u, a)
                             : drag_contact(std::max(gap, 0.0), u, a);
    }

    // A gap that is below zero now (the particle is beside the obstacle, not overlapping
    // it) falls through zero at most once, after its rate turns from + to − (the rate is
    // monotone: u + a τ, or u∞ + (u − u∞) e^(−γτ)). From the turning point τ* the gap
    // moves like a fresh one with rate 0, so the answer is τ* + first_contact(gap(τ*), 0, a)
    // when gap(τ*) >= 0, and never otherwise.
    double fall_after_turn(double gap, double u, double a) const {
        if (!(u > 0.0 && a < 0.0)) return never; // never turns downwards
        //   γ = 0: u + a τ* = 0;   γ > 0: u∞ + (u − u∞) e^(−γτ*) = 0, u∞ = a/γ < 0
        const double turn =
            gamma_ == 0.0 ? -u / a : std::log((a / gamma_ - u) / (a / gamma_)) / gamma_;
        const double top = gap_at(gap, u, a, turn);
        if (top < 0.0) return never;
        return turn + first_contact(top, 0.0, a);
    }
    // The one-dimensional gap of first_contact after τ.
    double gap_at(double gap, double u, double a, double tau) const {
        if (gamma_ == 0.0) return gap + u * tau + 0.5 * a * tau * tau;
        const double u_inf = a / gamma_;
        return gap + u_inf * tau + (u - u_inf) * s(tau);
    }
    // The acceleration of a particle moving at v: g − γ v.
    Vec<D> acceleration(const Vec<D>& v) const { return g_ - v * gamma_; }

  private:
    // Smallest τ > 0 where gap + u τ + a τ²/2 falls through zero, for gap >= 0. Roots by the
    // form without cancellation: q = −(u + sign(u) √Δ)/2, Δ = u² − 2 a gap, roots 2q/a and
    // gap/q. Pulled closed (a < 0): the roots have opposite signs (their product 2 gap/a is
    // <= 0), and the gap falls through the larger one. Pushed open (a > 0): it closes only
    // when moving in (u < 0) fast enough (Δ >= 0), at the smaller root, both then positive.
    // Choosing by these signs, not by the rate at the root, keeps a root whose rate
    // underflows to zero (u² below the smallest double).
    static double parabola_contact(double gap, double u, double a) {
        if (a == 0.0) return u < 0.0 ? gap / -u : never;
        if (a > 0.0 && u >= 0.0) return never;
        const double disc = u * u - 2.0 * a * gap;
        if (disc < 0.0) return never; // a > 0 and the gap turns back before closing
        const double q = -0.5 * (u + std::copysign(std::sqrt(disc), u));
        if (q == 0.0) return 0.0; // gap = u = 0 (handled by the caller unless a > 0)
        const double r1 = 2.0 * q / a, r2 = gap / q;
        return a < 0.0 ? std::max({r1, r2, 0.0}) : std::min(r1, r2);
    }

    // The same with drag. The rate u(τ) = u∞ + (u − u∞) e^(−γτ) moves monotonically from u
    // to u∞, so the gap has at most one turning point and is convex or concave: bracket
    // the first downward zero, then refine by Newton steps kept inside the bracket.
    double drag_contact(double gap, double u, double a) const {
        const double u_inf = a / gamma_;
        auto gap_at = [&](double tau) { return gap + u_inf * tau + (u - u_inf) * s(tau); };
        auto rate_at = [&](double tau) { return u_inf + (u - u_inf) * std::exp(-gamma_ * tau); };
        if (u >= 0.0 && u_inf >= 0.0) return never;  // never closes
        if (u_inf == 0.0) return tau_of_s(gap / -u); // drag alone: exact
        // The turning point, where the rate changes sign (if it does).
        const double turn =
            (u < 0.0) != (u_inf < 0.0) ? std::log((u_inf - u) / u_inf) / gamma_ : 0.0;
        double lo = 0.0, hi = 0.0;
        if (u < 0.0 && u_inf > 0.0) { // closes, then opens: a zero only before the turn
            if (gap_at(turn) > 0.0) return never;
            hi = turn;
        } else if (u < 0.0) { // closes ever faster or ever slower, but at least at max(u, u∞)
            hi = gap / -std::max(u, u_inf);
        } else { // opens, turns, then closes at a rate approaching u∞ < 0
            lo = turn;
            double step = std::max(gap_at(turn) / -u_inf, 1.0 / gamma_);
            hi = lo + step;
            while (gap_at(hi) > 0.0) step *= 2.0, hi = lo + step;
        }
        // gap_at(lo) >= 0 >= gap_at(hi); Newton from the side where the gap is positive.
        double tau = lo;
        for (int k = 0; k < field_contact_steps &&
                        hi - lo > field_bracket_ulps * std::numeric_limits<double>::epsilon() * hi;
             ++k) {
            const double g = gap_at(tau), r = rate_at(tau);
            if (g == 0.0) return tau;
            // a Newton step below the resolution of τ: converged from the open side
            if (g > 0.0 && r < 0.0 &&
                -g / r <= field_newton_ulps * std::numeric_limits<double>::epsilon() * tau)
                return tau;
            (g > 0.0 ? lo : hi) = tau;
            double next = r < 0.0 ? tau - g / r : 0.5 * (lo + hi);
            if (!(next > lo && next < hi)) next = 0.5 * (lo + hi); // keep it in the bracket
            tau = next;
        }
        return lo; // the bracket end where the gap is still open: never an overlap
    }

    Vec<D> g_;
    double gamma_ = 0.0;
    Vec<D> terminal_; // g/γ
    std::shared_ptr<const std::vector<Vec<D>>> glides_;
};

} // namespace choc
