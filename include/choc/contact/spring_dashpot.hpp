// The linear spring-dashpot normal contact of `choc contact` (docs/PHYSICS.md, "Soft-sphere
// contact"): the overlap delta of two bodies from the moment they touch obeys
//     m delta'' + lambda delta' + k delta = 0,   delta(0) = 0,  delta'(0) = v0,
// with m the (reduced) mass, k the stiffness and lambda the damping. Underdamped only
// (lambda^2 < 4 k m): the overlap then returns to zero after half a damped period.
#pragma once

#include <cmath>
#include <numbers>

namespace choc {

struct SpringDashpot {
    double mass = 1.0;      // m (kg): the reduced mass m1 m2 / (m1 + m2), or m against a wall
    double stiffness = 1.0; // k (N/m)
    double damping = 0.0;   // lambda (kg/s)
    double velocity = 1.0;  // v0 (m/s), the approach speed at contact

    double omega0() const { return std::sqrt(stiffness / mass); } // omega = sqrt(k/m)
    double decay() const { return damping / (2.0 * mass); }       // a = lambda / 2m
    double damping_ratio() const { return decay() / omega0(); }   // zeta = a / omega
    bool underdamped() const { return damping_ratio() < 1.0; }    // lambda^2 < 4 k m
    // s = sqrt(omega^2 - a^2), written as a product so that it loses no digits when a is
    // small against omega.
    double frequency() const {
        const double w = omega0(), a = decay();
        return std::sqrt((w - a) * (w + a));
    }
    // delta(t) = 0 again at s t = pi.
    double contact_time() const { return std::numbers::pi / frequency(); }
    // delta'(t) = 0 where tan(s t) = s / a: t = atan2(s, a) / s (= arccos(zeta) / s).
    double max_overlap_time() const { return std::atan2(frequency(), decay()) / frequency(); }
    double max_overlap() const { return overlap(max_overlap_time()); }
    // The rebound speed over v0: delta'(pi/s) = -v0 exp(-a pi/s).
    double restitution() const { return std::exp(-decay() * contact_time()); }

    // The exact solution and its derivatives:
    //   delta(t)   = (v0/s) e^{-a t} sin(s t)
    //   delta'(t)  = (v0/s) e^{-a t} (s cos(s t) - a sin(s t))
    //   delta''(t) = (v0/s) e^{-a t} ((a^2 - s^2) sin(s t) - 2 a s cos(s t))
    double overlap(double t) const {
        const double s = frequency();
        return velocity / s * std::exp(-decay() * t) * std::sin(s * t);
    }
    double overlap_rate(double t) const {
        const double s = frequency(), a = decay();
        return velocity / s * std::exp(-a * t) * (s * std::cos(s * t) - a * std::sin(s * t));
    }
    double overlap_acceleration(double t) const {
        const double s = frequency(), a = decay();
        return velocity / s * std::exp(-a * t) *
               ((a * a - s * s) * std::sin(s * t) - 2.0 * a * s * std::cos(s * t));
    }
    // The acceleration the model gives at (delta, delta'): one "force evaluation".
    double acceleration(double delta, double rate) const {
        return -(stiffness * delta + damping * rate) / mass;
    }
};

// zeta(e) = -ln e / sqrt(pi^2 + ln^2 e): the damping ratio whose contact gives back the
// restitution e, since e = exp(-a pi/s) = exp(-pi zeta / sqrt(1 - zeta^2)). It depends on
// e alone, not on m or k. 0 < e <= 1 gives 0 <= zeta < 1.
double damping_ratio_for(double restitution);

// lambda = 2 zeta sqrt(m k) = -2 sqrt(m k) ln e / sqrt(pi^2 + ln^2 e).
double damping_for(double restitution, double mass, double stiffness);

// g(zeta) = exp(-zeta arccos(zeta) / sqrt(1 - zeta^2)): the largest overlap is
// (v0 / omega) g(zeta) (docs/PHYSICS.md derives it). g(0) = 1, g decreases to 1/e at zeta -> 1.
double overlap_factor(double damping_ratio);

// The stiffness whose largest overlap is `max_overlap` at damping ratio zeta:
// delta_max = (v0/omega) g(zeta)  =>  omega = v0 g(zeta) / delta_max,  k = m omega^2.
double stiffness_for_overlap(double max_overlap, double mass, double velocity,
                             double damping_ratio);

// The documents' material stiffness k = E R / (3 (1 - nu)) (Young's modulus E, Poisson's
// ratio nu < 1, radius R). Stated as their formula, not derived here.
double material_stiffness(double youngs_modulus, double poisson_ratio, double radius);

} // namespace choc
