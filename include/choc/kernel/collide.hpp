// Collision rules: what a contact does to the velocities.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"

namespace choc {

// Outcome of a binary collision, for the observers.
template <int D>
struct PairImpulse {
    Vec<D> dp;           // momentum received by i (j receives -dp)
    double virial = 0.0; // r_ij . dp_i, the collision-virial term (>= 0)
    double energy_change = 0.0;
};

// Binary rule with normal restitution e, n = r / |r|, r = x_i - x_j at contact:
//     v_i' = v_i - (1 + e) m_j / (m_i + m_j) ((v_i - v_j).n) n
//     v_j' = v_j + (1 + e) m_i / (m_i + m_j) ((v_i - v_j).n) n
// so the normal relative velocity goes from u to -e u and momentum is conserved.
// Written with (v.r) r / (r.r) to avoid a square root. The kinetic energy changes by
//     dE = -(1 - e^2) mu u^2 / 2,   mu = m_i m_j / (m_i + m_j),   u = (v_i - v_j).n
template <int D>
inline PairImpulse<D> binary_collision(const Vec<D>& r, Vec<D>& vi, Vec<D>& vj, double mi,
                                       double mj, double e) {
    const Vec<D> v = vi - vj;
    const double r2 = norm2(r);
    const double vr = dot(v, r);
    const double mu = mi * mj / (mi + mj);
    // dp_i = -(1 + e) mu (v.r / r.r) r
    const double s = -(1.0 + e) * mu * vr / r2;
    PairImpulse<D> out;
    out.dp = r * s;
    vi += out.dp * (1.0 / mi);
    vj -= out.dp * (1.0 / mj);
    out.virial = s * r2;
    out.energy_change = -0.5 * (1.0 - e * e) * mu * vr * vr / r2;
    return out;
}

// Reflection from a wall (infinite mass): v' = v - (1 + e) (v.n) n.
// Returns the momentum the particle received.
// A particle that is not moving into the wall is left alone: under a field a landing
// predicted a round-off time ahead can fire while the particle still leaves the wall,
// and reflecting then would turn it into the wall.
template <int D>
inline Vec<D> wall_collision(const Wall<D>& wall, Vec<D>& v, double m) {
    const double vn = dot(v, wall.normal);
    if (vn >= 0.0) return {};
    const Vec<D> dv = wall.normal * (-(1.0 + wall.restitution) * vn);
    v += dv;
    return dv * m;
}

} // namespace choc
