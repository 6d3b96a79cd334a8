// Transport coefficients from a driven experiment between two thermal walls facing each
// other across an axis, at `low` and `high` (fluxes and positions along +x, the axis):
//
// - Fourier's law: walls at different temperatures hold a steady heat flux q, and
//   q = -lambda dT/dx. The flux is what the low wall gives the gas and the high wall
//   takes, Q_low and Q_high (Q_high = -Q_low on average), over time t and wall area A:
//       q = (Q_low - Q_high) / (2 t A),
//   the flux along +x with the fluctuation of the energy stored in the gas halved.
// - Newton's law: walls moving in their planes drag the gas into a shear flow u(x) along
//   a direction e; the x-flux of e-momentum is P_xe = -eta du/dx, and from the momentum
//   the walls give the gas along e, P_xe = (M_low - M_high) / (2 t A). The walls also take
//   the viscous heat away (they are the thermostat).
//
// The gradient is the least-squares slope of the slabs' temperature (or mean velocity
// along e) whose centres lie in the middle half of the gap, [low + gap/4, high - gap/4].
// Next to each wall a layer a few mean free paths thick has a temperature jump and a slip
// velocity (the gas there never reaches the wall's temperature or speed), so a fit over the
// whole gap would understate the gradient. The state the coefficient belongs to: the mean
// temperature and packing fraction of the fitted slabs.
//
// Errors by the jackknife over the profile's blocks: the estimate with each block left
// out in turn, theta_b, gives err^2 = (B - 1)/B sum_b (theta_b - mean)^2, which carries
// the correlation of the flux and the gradient and the bias of their ratio properly.
#pragma once

#include "choc/observers/axial_profile.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace choc {

// Where the walls are, and what flows: the amount the low and the high wall gave the gas
// (heat, or momentum along e) from the profile's scalars, and the slab quantity whose
// gradient drives it (temperature, or mean velocity along e).
template <int D>
struct GapSetup {
    double low = 0.0, high = 1.0; // the walls' planes on the profile's axis
    std::function<std::array<double, 2>(const std::vector<double>& scalars)> given;
    std::function<std::optional<double>(const typename AxialProfile<D>::Row&)> quantity;
};

struct GapValues {
    double flux = 0.0, gradient = 0.0, coefficient = 0.0, temperature = 0.0, packing = 0.0;
};

struct GapResult {
    GapValues value;
    std::optional<GapValues> error; // absent with fewer than two complete blocks
    std::size_t blocks = 0;
    double fit_from = 0.0, fit_to = 0.0; // the fitted part of the axis
};

template <int D>
class GapFit {
  public:
    GapFit(const AxialProfile<D>& profile, GapSetup<D> setup)
        : profile_(profile), setup_(std::move(setup)) {}

    double fit_from() const { return setup_.low + 0.25 * (setup_.high - setup_.low); }
    double fit_to() const { return setup_.high - 0.25 * (setup_.high - setup_.low); }

    // The values over the sums `s`; absent when fewer than three slabs of the fit region
    // hold particles, or the gradient is zero.
    std::optional<GapValues> values(const typename AxialProfile<D>::Sums& s) const {
        if (s.samples <= 0.0) return std::nullopt;
        double n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, packing = 0.0, kT = 0.0;
        for (std::size_t k = 0; k < profile_.size(); ++k) {
            const double x = profile_.centre(k);
            if (x < fit_from() || x > fit_to()) continue;
            const auto row = profile_.row(s, k);
            const auto y = setup_.quantity(row);
            if (!row.temperature || !y) continue;
            n += 1.0;
            sx += x;
            sy += *y;
            sxx += x * x;
            sxy += x * *y;
            packing += row.packing;
            kT += *row.temperature;
        }
        if (n < 3.0) return std::nullopt;
        const double det = n * sxx - sx * sx;
        if (!(det > 0.0)) return std::nullopt;
        GapValues v;
        v.gradient = (n * sxy - sx * sy) / det;
        if (v.gradient == 0.0) return std::nullopt;
        const auto given = setup_.given(s.scalars);
        v.flux = 0.5 * (given[0] - given[1]) / (s.samples * profile_.step() * profile_.area());
        v.coefficient = -v.flux / v.gradient;
        v.temperature = kT / n;
        v.packing = packing / n;
        return v;
    }

    // Over the whole run so far, with the jackknife errors of its complete blocks.
    std::optional<GapResult> result() const {
        const auto all = values(profile_.total());
        if (!all) return std::nullopt;
        GapResult r{*all, std::nullopt, 0, fit_from(), fit_to()};
        const auto blocks = profile_.block_sums();
        r.blocks = blocks.size();
        if (blocks.size() < 2) return r;
        const auto whole = profile_.blocked();
        std::vector<GapValues> left_out;
        for (const auto& b : blocks) {
            const auto v = values(whole.minus(b));
            if (!v) return r;
            left_out.push_back(*v);
        }
        r.error = GapValues{
            jackknife(left_out, &GapValues::flux),
            jackknife(left_out, &GapValues::gradient),
            jackknife(left_out, &GapValues::coefficient),
            jackknife(left_out, &GapValues::temperature),
            jackknife(left_out, &GapValues::packing),
        };
        return r;
    }

  private:
    static double jackknife(const std::vector<GapValues>& left_out, double GapValues::*field) {
        const auto b = static_cast<double>(left_out.size());
        double mean = 0.0;
        for (const auto& v : left_out) mean += v.*field / b;
        double spread = 0.0;
        for (const auto& v : left_out) spread += (v.*field - mean) * (v.*field - mean);
        return std::sqrt((b - 1.0) / b * spread);
    }

    const AxialProfile<D>& profile_;
    GapSetup<D> setup_;
};

} // namespace choc
