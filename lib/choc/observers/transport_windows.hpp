// Shear viscosity and thermal conductivity from the Einstein–Helfand moments G and H
// (kernel/flux_tally.hpp) at many time origins (window_ladder.hpp), and the pressure tensor
// with a block error.
//
//     eta = lim < dG_xy(tau)^2 > / (2 V kT tau),   lambda = lim < dH_x(tau)^2 > / (2 V kT^2 tau).
//
// In an isotropic fluid each of these combinations of G's components has the statistics of
// G_xy, and they are uncorrelated with each other: in 3D
//     G_xy, G_xz, G_yz, (G_xx - G_yy) / 2, (G_xx + G_yy - 2 G_zz) / (2 sqrt 3),
// in 2D G_xy and (G_xx - G_yy) / 2 (the traceless part of G on an orthonormal basis: with
// <dN_ab dN_cd> = C (delta_ac delta_bd + delta_ad delta_bc - (2/d) delta_ab delta_cd) for its
// traceless part N, each has variance C). So eta comes from their mean, five (two) times the
// samples of G_xy alone; lambda from the mean over the d axes of H.
//
// The moments are taken in the frame of the centre of mass, which moves at u = P / M
// (P is conserved in a periodic box): with E the kinetic energy,
//     G' = G - M u u t,   H' = H - u integral E dt - G u + M u^2 u t
// (expand sum (1/2) m |v - u|^2 (v - u) and the contacts' dp . (v_mean - u)), so that a run
// whose particles drift together measures what one at rest does.
//
// lambda is the conductivity of a one-species fluid: in a mixture the heat flux must first
// be separated from the species' diffusion fluxes, which this does not do (the caller leaves
// it out).
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/flux_tally.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/observers/window_ladder.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace choc {

template <int D>
class TransportWindows {
    using Ladder = WindowLadder<double>;

  public:
    using Lag = Ladder::Lag;
    static constexpr int components = FluxTally<D>::components;
    using Tensor = std::array<double, components>;
    // The shear combinations above: 5 in 3D, 2 in 2D.
    static constexpr std::size_t shears = D == 3 ? 5 : 2;

    // Sampled every `step` from t0, when the moments are zero (the measured phase's start);
    // `mass` the particles' total mass, `velocity` the centre of mass's.
    TransportWindows(double step, double t0, double mass, const Vec<D>& velocity)
        : t0_(t0), mass_(mass), u_(velocity),
          viscosity_(std::vector<double>(shears, 0.0), step, t0),
          conductivity_(std::vector<double>(D, 0.0), step, t0) {}
    // To restore into (fields) only.
    TransportWindows() : TransportWindows(1.0, 0.0, 1.0, Vec<D>{}) {}

    double next_time() const { return viscosity_.next_time(); }

    // The sample at next_time(): the moments there, and the time integral of the kinetic
    // energy since t0.
    void sample(const FluxMoments<D>& m, double kinetic_integral) {
        const double t = next_time();
        const Tensor g = comoving(m.momentum, t);
        const Vec<D> h = comoving(m, kinetic_integral, t);
        viscosity_.advance(shear(g));
        conductivity_.advance(std::vector<double>(h.c.begin(), h.c.end()));
        blocks(g);
    }

    // eta at every lag, for volume V and temperature kT: V kT times the ladder's value.
    std::vector<Lag> viscosity(double volume, double kT) const {
        return viscosity_.lags(1.0 / (volume * kT));
    }
    std::vector<Lag> conductivity(double volume, double kT) const {
        return conductivity_.lags(1.0 / (volume * kT * kT));
    }

    // The pressure tensor over [t0, t]: G'(t) / (V (t - t0)), by FluxTally's components.
    Tensor pressure(const FluxMoments<D>& m, double t, double volume) const {
        Tensor p = comoving(m.momentum, t);
        for (double& x : p) x /= volume * (t - t0_);
        return p;
    }
    // Its standard error: the spread of the means over windows of one length, divided by
    // the square root of their number, from the longest windows of which there are at least
    // 2 least_pairs (windows much longer than the stress's correlation time are independent);
    // none before there are as many.
    std::optional<Tensor> pressure_error(double volume) const {
        for (std::size_t l = levels_.size(); l-- > 0;) {
            const Block& b = levels_[l];
            if (b.windows < 2 * Ladder::least_pairs) continue;
            const double n = static_cast<double>(b.windows);
            Tensor e;
            for (int c = 0; c < components; ++c) {
                const double mean = b.sum[c] / n;
                e[c] = std::sqrt(std::max(0.0, b.sum2[c] / n - mean * mean) / (n - 1.0)) / volume;
            }
            return e;
        }
        return std::nullopt;
    }

    // G' and H' at time t (above), from G, H and the time integral of the kinetic energy.
    Tensor comoving(const Tensor& g, double t) const {
        constexpr auto ab = FluxTally<D>::axes();
        Tensor out = g;
        for (int c = 0; c < components; ++c)
            out[c] -= mass_ * u_[ab[c].first] * u_[ab[c].second] * (t - t0_);
        return out;
    }
    Vec<D> comoving(const FluxMoments<D>& m, double kinetic_integral, double t) const {
        constexpr auto ab = FluxTally<D>::axes();
        Vec<D> gu{}; // G u, G symmetric
        for (int c = 0; c < components; ++c) {
            const auto [a, b] = ab[c];
            gu[a] += m.momentum[c] * u_[b];
            if (a != b) gu[b] += m.momentum[c] * u_[a];
        }
        return m.energy - u_ * kinetic_integral - gu + u_ * (mass_ * norm2(u_) * (t - t0_));
    }

    // Its checkpoint (archive.hpp): the frame, both ladders, then the pressure tensor's
    // blocks (their count first).
    template <class Archive>
    void fields(Archive& ar) {
        auto levels = std::uint64_t{levels_.size()};
        ar(t0_, mass_, u_, viscosity_, conductivity_, samples_, levels);
        if constexpr (Archive::loading) {
            // (a level per doubling of the samples, as the ladders')
            if (levels >= 64) throw ArchiveError("the state's transport windows are damaged");
            levels_.resize(levels);
        }
        for (Block& b : levels_) ar(b.start, b.windows, b.sum, b.sum2);
    }

  private:
    static std::vector<double> shear(const Tensor& g) {
        if constexpr (D == 3) // xx, yy, zz, xy, xz, yz
            return {g[3], g[4], g[5], 0.5 * (g[0] - g[1]),
                    (g[0] + g[1] - 2.0 * g[2]) / (2.0 * std::sqrt(3.0))};
        else // xx, yy, xy
            return {g[2], 0.5 * (g[0] - g[1])};
    }

    // The pressure tensor's windows: level l's end every 2^l samples, each adding its mean
    // dG / tau (V times the mean pressure tensor over the window).
    struct Block {
        Tensor start{};
        std::uint64_t windows = 0;
        Tensor sum{}, sum2{};
    };
    void blocks(const Tensor& g) {
        ++samples_;
        for (std::size_t l = 0; (samples_ & ((std::uint64_t{1} << l) - 1)) == 0; ++l) {
            if (l == levels_.size()) {
                if (samples_ != (std::uint64_t{1} << l)) break; // (cannot happen)
                levels_.emplace_back(); // its first window starts at t0, where G' = 0
            }
            Block& b = levels_[l];
            const double tau = std::ldexp(viscosity_.step(), static_cast<int>(l));
            for (int c = 0; c < components; ++c) {
                const double mean = (g[c] - b.start[c]) / tau;
                b.sum[c] += mean;
                b.sum2[c] += mean * mean;
            }
            ++b.windows;
            b.start = g;
        }
    }

    double t0_, mass_;
    Vec<D> u_;
    Ladder viscosity_, conductivity_;
    std::uint64_t samples_ = 0;
    std::vector<Block> levels_;
};

} // namespace choc
