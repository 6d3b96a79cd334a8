// Shear viscosity from a steady shear between sliding boundaries (Lees-Edwards: the
// engine's lees_edwards.hpp). The images one y period up slide along x at gamma L_y; the
// fluid settles into the flow u_x = gamma (y - L_y / 2) and carries the shear stress
//     P_xy = -eta gamma.
// A block of the measured phase holds the xy moment of the momentum flux in the flow's
// frame, M (Engine::shear_moment: the streaming sum of m (v_x - u_x) v_y and the contacts'
// r_x dp_y), its length t and its kinetic energy integral K in the box's (lab) frame, less
// the drift of the whole fluid (Engine::drift_integral):
//     P_xy = M / (V t),   eta = -P_xy / gamma,
// each block a value, their mean weighted by length and its error from their spread
// (blocks long against the stress's correlation time are independent).
//
// The temperature is the peculiar one, that kinetic energy less the flow's: for a
// density uniform across y, sum m u_x^2 / 2 = M_tot gamma^2 L_y^2 / 24, so
//     (d / 2) N kT = K / t - M_tot gamma^2 L_y^2 / 24.
// Without a thermostat (box.shear_temperature) the viscous heat stays: the boundary works
// at the rate -P_xy gamma V = eta gamma^2 V, and kT rises at
//     d kT / dt = 2 eta gamma^2 V / (d N).
// The least-squares slope of the blocks' kT against their mid-times shows it (no error bar:
// the energy's fluctuations are a random walk, and a fit's residuals would understate it;
// nor a second viscosity: the energy gained is -gamma M exactly, the same number). At a
// small rate the rise is small and eta belongs to the mean temperature; the summary shows
// the first and last blocks' kT to judge it by.
#pragma once

#include "choc/observers/standard_error.hpp"

#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

namespace choc {

struct ShearBlock {
    double moment = 0.0, kinetic = 0.0, time = 0.0; // M, K (less the drift's) and t
};

struct ShearSetup {
    int dimension = 3;
    double rate = 0.0;      // gamma
    double volume = 0.0;    // V (an area in 2D)
    double length_y = 0.0;  // L_y
    double mass = 0.0;      // M_tot
    double particles = 0.0; // N
};

struct SlidingShear {
    Estimate stress, eta;     // P_xy and -P_xy / gamma
    double temperature = 0.0; // peculiar kT over the blocks
    double temperature_first = 0.0, temperature_last = 0.0;
    std::optional<double> heating; // d kT / dt (three blocks or more)
    std::size_t blocks = 0;
};

inline std::optional<SlidingShear> sliding_shear(const std::vector<ShearBlock>& blocks,
                                                 const ShearSetup& s) {
    std::vector<double> stress, kT, mid, length;
    const double flow = s.mass * s.rate * s.rate * s.length_y * s.length_y / 24.0;
    double start = 0.0, moment = 0.0, kinetic = 0.0, total = 0.0;
    for (const auto& b : blocks) {
        if (b.time > 0.0) {
            stress.push_back(b.moment / (s.volume * b.time));
            kT.push_back(2.0 * (b.kinetic / b.time - flow) / (s.dimension * s.particles));
            mid.push_back(start + 0.5 * b.time);
            length.push_back(b.time);
            moment += b.moment, kinetic += b.kinetic, total += b.time;
        }
        start += b.time;
    }
    if (stress.empty() || s.rate == 0.0 || !(s.volume > 0.0) || !(s.particles > 0.0))
        return std::nullopt;
    SlidingShear r;
    r.stress = weighted_mean(stress, length);
    // the totals' ratio: the same number as the weighted mean, without its round-off
    r.stress.mean = moment / (s.volume * total);
    r.eta.mean = -r.stress.mean / s.rate;
    if (r.stress.error) r.eta.error = *r.stress.error / std::abs(s.rate);
    r.temperature = 2.0 * (kinetic / total - flow) / (s.dimension * s.particles);
    r.temperature_first = kT.front();
    r.temperature_last = kT.back();
    r.blocks = stress.size();
    if (kT.size() >= 3) { // the least-squares slope of kT(t)
        const auto n = static_cast<double>(kT.size());
        double tm = 0.0, km = 0.0;
        for (std::size_t k = 0; k < kT.size(); ++k) tm += mid[k] / n, km += kT[k] / n;
        double stt = 0.0, stk = 0.0;
        for (std::size_t k = 0; k < kT.size(); ++k) {
            stt += (mid[k] - tm) * (mid[k] - tm);
            stk += (mid[k] - tm) * (kT[k] - km);
        }
        if (stt > 0.0) r.heating = stk / stt;
    }
    return r;
}

} // namespace choc
