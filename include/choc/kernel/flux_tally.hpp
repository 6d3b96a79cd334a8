// The momentum and energy fluxes integrated over the measured phase: the Einstein–Helfand
// moments of shear viscosity and heat conduction, and the pressure tensor.
//
// The momentum flux of hard particles (V times the pressure tensor) streams with the
// particles between collisions and jumps across the contact vector at each collision:
//     J_ab(t) = sum_i m v_ia v_ib + sum_contacts r_a dp_b delta(t - t_c),
// r = x_i - x_j the minimum-image contact vector and dp the impulse on i (j receives -dp).
// Its time integral
//     G_ab(t) = integral sum_i m v_ia v_ib dt + sum_(contacts before t) r_a dp_b
// is exact in an event-driven run: without a field the streaming sum is constant between
// collisions, so its integral is kept like the kinetic energy's (tally.hpp); the contact sum
// adds up at each contact. The energy flux likewise:
//     H_a(t) = integral sum_i (1/2) m v_i^2 v_ia dt + sum_contacts r_a dE,
// with dE the energy carried across the contact. A contact whose impulse dp moves i from
// v_i to v_i' and j from v_j to v_j' gives i the energy dp . (v_i + v_i') / 2 (exactly:
// m (v' - v) . (v' + v) / 2), and takes dp . (v_j + v_j') / 2 from j; their mean,
//     dE = dp . (v_i + v_i' + v_j + v_j') / 4,
// is the energy carried from j to i. In an elastic collision the two are equal, so the
// contact sum is sum over particles of x_k times their energy change, also in a group of
// simultaneous contacts, where each body's change is the sum over its contacts (the normal
// relative velocity of every contact with an impulse reverses). In an inelastic one their
// difference is the energy lost at the contact: a sink, not a flux, left out.
//
// Only the minimum-image contact vector enters, never a particle's position: a moment such as
// sum_i m x_i v_i with wrapped or unfolded coordinates is wrong across periodic boundaries
// (Erpenbeck, Phys. Rev. E 51, 4296, 1995), the integrated flux is not.
// A wall's impulse is an external force, not a flux between particles: it changes the
// streaming sums (the particle's velocity changes) and adds no contact term. The moments
// mean a transport coefficient only in a box periodic on every axis, which the run checks.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/vec.hpp"

#include <array>
#include <utility>

namespace choc {

// G and H at one instant.
template <int D>
struct FluxMoments {
    std::array<double, D*(D + 1) / 2> momentum; // G, by FluxTally's components
    Vec<D> energy;                              // H
};

template <int D>
class FluxTally {
  public:
    // A symmetric tensor by its independent components: xx, yy, zz, xy, xz, yz in 3D;
    // xx, yy, xy in 2D.
    static constexpr int components = D * (D + 1) / 2;
    using Tensor = std::array<double, components>;
    static constexpr std::array<std::pair<int, int>, components> axes() {
        if constexpr (D == 3)
            return {{{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}}};
        else
            return {{{0, 0}, {1, 1}, {0, 1}}};
    }

    // Starts from zero at `now`; the streaming sums of the particles come next (add).
    void reset(double now) { *this = FluxTally{}, since_ = now; }

    // Brings the integrals up to `now`: called before any velocity changes.
    void advance(double now) {
        const double dt = now - since_;
        since_ = now;
        for (int c = 0; c < components; ++c) streaming_time_[c] += streaming_[c] * dt;
        energy_time_ += energy_streaming_ * dt;
    }

    // A particle of mass m joins the streaming sums with velocity v (sign +1), or leaves
    // them with it (sign -1): a collision takes the old velocities out and puts the new in.
    void add(double m, const Vec<D>& v, double sign) {
        const double mv = sign * m;
        constexpr auto ab = axes();
        for (int c = 0; c < components; ++c) streaming_[c] += mv * v[ab[c].first] * v[ab[c].second];
        energy_streaming_ += v * (0.5 * mv * norm2(v));
    }

    // A binary collision at `now`: i (mass mi) from vi to vi2, j from vj to vj2, impulse
    // dp on i, contact vector r. The same as advance, add (out, in) and contact, in one
    // pass over the sums (the engine's hot path).
    void collision(double now, const Vec<D>& r, const Vec<D>& dp, double mi, const Vec<D>& vi,
                   const Vec<D>& vi2, double mj, const Vec<D>& vj, const Vec<D>& vj2) {
        advance(now);
        constexpr auto ab = axes();
        for (int c = 0; c < components; ++c) {
            const auto [a, b] = ab[c];
            streaming_[c] +=
                mi * (vi2[a] * vi2[b] - vi[a] * vi[b]) + mj * (vj2[a] * vj2[b] - vj[a] * vj[b]);
        }
        const double ki = 0.5 * mi, kj = 0.5 * mj;
        energy_streaming_ += vi2 * (ki * norm2(vi2)) - vi * (ki * norm2(vi)) +
                             vj2 * (kj * norm2(vj2)) - vj * (kj * norm2(vj));
        contact(r, dp, 0.5 * (vi + vi2), 0.5 * (vj + vj2));
    }

    // A contact: r = x_i - x_j, impulse dp on i; mean_i = (v_i + v_i') / 2, the same of j.
    void contact(const Vec<D>& r, const Vec<D>& dp, const Vec<D>& mean_i, const Vec<D>& mean_j) {
        constexpr auto ab = axes();
        for (int c = 0; c < components; ++c) contacts_[c] += r[ab[c].first] * dp[ab[c].second];
        energy_contacts_ += r * (0.5 * dot(dp, mean_i + mean_j));
    }

    // G(now) and H(now): the moments since reset, with the streaming up to `now`.
    FluxMoments<D> moments(double now) const {
        FluxMoments<D> m;
        for (int c = 0; c < components; ++c)
            m.momentum[c] = streaming_time_[c] + streaming_[c] * (now - since_) + contacts_[c];
        m.energy = energy_time_ + energy_streaming_ * (now - since_) + energy_contacts_;
        return m;
    }
    // The streaming sums now: sum m v v and sum (1/2) m v^2 v (tests).
    Tensor streaming() const { return streaming_; }
    Vec<D> energy_streaming() const { return energy_streaming_; }

    // The clock's origin moved by `shift` (Engine::rebase).
    void shift(double s) { since_ -= s; }

    // Its checkpoint (archive.hpp).
    template <class Archive>
    void fields(Archive& ar) {
        ar(since_, streaming_, streaming_time_, contacts_, energy_streaming_, energy_time_,
           energy_contacts_);
    }

  private:
    double since_ = 0.0; // when the integrals were last brought up to date
    // sum m v_a v_b now, its integral, and the contacts' sum of r_a dp_b
    Tensor streaming_{}, streaming_time_{}, contacts_{};
    // sum (1/2) m v^2 v now, its integral, and the contacts' sum of r dE
    Vec<D> energy_streaming_{}, energy_time_{}, energy_contacts_{};
};

} // namespace choc
