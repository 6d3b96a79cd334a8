// Collision rules: binary_collision and wall_collision against the conservation laws and
// the restitution law they must obey, checked from the velocities alone.
//
// Tolerances. Every velocity component after the collision is v + dp/m, a couple of
// roundings each of relative size eps = 2.2e-16 on numbers no larger than |v| + |dv|.
// Every checked quantity is a short sum of such terms, so its error is a small multiple
// of eps times the *scale* of the terms summed (not of the result, which can be ~0):
// momentum against P = sum m (|v| + |v'|), energies against E + E', relative velocities
// against V = |v_i| + |v_j| + |v_i'| + |v_j'|. 16 eps covers the 2-3 dimensional sums
// with a margin of about 4; a real mistake in the rule shows up at O(1) of the scale.
#include <doctest/doctest.h>

#include "random_vectors.hpp"

#include <choc/kernel/box.hpp>
#include <choc/kernel/collide.hpp>
#include <choc/kernel/vec.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>

namespace test_collide {

using namespace choc;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();
constexpr double tol = 16.0 * eps;

RandomVectors rnd(7);

template <int D>
double kinetic(double m, const Vec<D>& v) {
    return 0.5 * m * norm2(v);
}

// Normal and tangential parts of a vector with respect to the unit vector n.
template <int D>
double normal_part(const Vec<D>& v, const Vec<D>& n) {
    return dot(v, n);
}
template <int D>
Vec<D> tangential_part(const Vec<D>& v, const Vec<D>& n) {
    return v - n * dot(v, n);
}

struct PairCase {
    double mi, mj, e;
};

// Mass ratios 1:1, 1:10, 1:1000 (both ways round), restitution elastic to fully plastic.
constexpr PairCase pair_cases[] = {
    {1.0, 1.0, 1.0},  {1.0, 1.0, 0.9},  {1.0, 1.0, 0.5},    {1.0, 1.0, 0.0},  {1.0, 10.0, 1.0},
    {1.0, 10.0, 0.7}, {10.0, 1.0, 0.3}, {1.0, 10.0, 0.0},   {1.0, 1e3, 1.0},  {1.0, 1e3, 0.8},
    {1e3, 1.0, 1.0},  {1e3, 1.0, 0.0},  {2.5e-3, 7.0, 1.0}, {0.3, 0.3, 0.95},
};

} // namespace

TEST_CASE_TEMPLATE("binary_collision: conservation and restitution on random contacts", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    for (const PairCase pc : pair_cases) {
        for (int k = 0; k < 200; ++k) {
            CAPTURE(pc.mi);
            CAPTURE(pc.mj);
            CAPTURE(pc.e);
            CAPTURE(k);
            // Contact normal n, separation r = sigma n (the rule must not care about |r|).
            const Vec<D> n = rnd.unit<D>();
            const Vec<D> r = n * rnd.uniform(0.01, 100.0);
            const double speed = k % 3 == 0 ? 1e-6 : (k % 3 == 1 ? 1.0 : 1e6);
            Vec<D> vi = rnd.vec<D>(speed), vj = rnd.vec<D>(speed);
            if (dot(vi - vj, r) > 0.0) std::swap(vi, vj); // approaching: (v_i - v_j).r < 0
            const Vec<D> vi0 = vi, vj0 = vj;
            const double u0 = normal_part(vi0 - vj0, n);
            const PairImpulse<D> out = binary_collision(r, vi, vj, pc.mi, pc.mj, pc.e);

            const double vscale = norm(vi0) + norm(vj0) + norm(vi) + norm(vj);
            // Momentum: conserved, and dp is what i received (j received -dp).
            const double pscale = pc.mi * (norm(vi0) + norm(vi)) + pc.mj * (norm(vj0) + norm(vj));
            CHECK(norm(pc.mi * vi + pc.mj * vj - (pc.mi * vi0 + pc.mj * vj0)) <= tol * pscale);
            CHECK(norm(out.dp - pc.mi * (vi - vi0)) <= tol * pscale);
            CHECK(norm(out.dp + pc.mj * (vj - vj0)) <= tol * pscale);
            // Restitution: normal relative velocity u -> -e u; tangential part unchanged.
            const double u1 = normal_part(vi - vj, n);
            CHECK(std::abs(u1 + pc.e * u0) <= tol * vscale);
            CHECK(norm(tangential_part(vi - vj, n) - tangential_part(vi0 - vj0, n)) <=
                  tol * vscale);
            // Energy: the change is the returned one and -(1 - e^2) mu u^2 / 2.
            const double e0 = kinetic(pc.mi, vi0) + kinetic(pc.mj, vj0);
            const double e1 = kinetic(pc.mi, vi) + kinetic(pc.mj, vj);
            const double mu = pc.mi * pc.mj / (pc.mi + pc.mj);
            const double expected = -(1.0 - pc.e * pc.e) * mu * u0 * u0 / 2.0;
            CHECK(std::abs((e1 - e0) - out.energy_change) <= tol * (e0 + e1));
            // u = v.n carries ~eps |v| of absolute error (v nearly tangential: u << |v|).
            CHECK(std::abs(out.energy_change - expected) <= tol * mu * norm2(vi0 - vj0));
            if (pc.e == 1.0) CHECK(std::abs(e1 - e0) <= tol * (e0 + e1));
            if (pc.e == 0.0) CHECK(std::abs(u1) <= tol * vscale); // stick along the normal
            // Virial: r . dp, and positive for an approaching pair (impulse pushes apart).
            CHECK(std::abs(out.virial - dot(r, out.dp)) <= tol * norm(r) * norm(out.dp));
            CHECK(out.virial > 0.0);
        }
    }
}

TEST_CASE_TEMPLATE("binary_collision: head-on equal masses swap velocities", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    // Along a coordinate axis with dyadic velocities and power-of-two masses every
    // operation of the rule is exact, so the swap must be exact: v_i' == v_j bit for bit.
    for (int axis = 0; axis < D; ++axis) {
        for (const double sign : {1.0, -1.0}) {
            for (const double m : {1.0, 2.0, 0.5, 4096.0}) {
                for (const double dist : {1.0, 2.0, 0.25}) {
                    CAPTURE(axis);
                    CAPTURE(sign);
                    CAPTURE(m);
                    CAPTURE(dist);
                    Vec<D> r, vi, vj;
                    r[axis] = sign * dist;
                    vi[axis] = -sign * 0.75; // moving towards j ...
                    vj[axis] = sign * 0.375; // ... and j towards i
                    const Vec<D> vi0 = vi, vj0 = vj;
                    const PairImpulse<D> out = binary_collision(r, vi, vj, m, m, 1.0);
                    CHECK(vi == vj0);
                    CHECK(vj == vi0);
                    CHECK(out.energy_change == 0.0);
                    CHECK(out.virial == dot(r, out.dp));
                }
            }
        }
    }
    // Any direction and mass: a swap to rounding (a few ulp of the speeds).
    for (int k = 0; k < 200; ++k) {
        CAPTURE(k);
        const Vec<D> n = rnd.unit<D>();
        const double m = rnd.uniform(0.1, 10.0);
        Vec<D> vi = n * -rnd.uniform(0.1, 2.0), vj = n * rnd.uniform(-0.05, 2.0);
        const Vec<D> vi0 = vi, vj0 = vj;
        binary_collision(n * rnd.uniform(0.5, 2.0), vi, vj, m, m, 1.0);
        const double vscale = norm(vi0) + norm(vj0);
        CHECK(norm(vi - vj0) <= tol * vscale);
        CHECK(norm(vj - vi0) <= tol * vscale);
    }
}

TEST_CASE_TEMPLATE("wall_collision: reflection about arbitrary normals", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    for (const double e : {1.0, 0.8, 0.3, 0.0}) {
        for (int k = 0; k < 300; ++k) {
            CAPTURE(e);
            CAPTURE(k);
            Wall<D> wall;
            wall.normal = rnd.unit<D>();
            wall.offset = rnd.uniform(-3.0, 3.0);
            wall.restitution = e;
            const double m = std::pow(10.0, rnd.uniform(-3.0, 3.0));
            Vec<D> v = rnd.vec<D>(std::pow(10.0, rnd.uniform(-6.0, 6.0)));
            if (dot(v, wall.normal) > 0.0) v = -v; // moving into the wall
            const Vec<D> v0 = v;
            const Vec<D> dp = wall_collision(wall, v, m);
            const double vscale = norm(v0) + norm(v);
            // v' = v - (1 + e) (v.n) n, computed here in the obvious way.
            const Vec<D> expected = v0 - wall.normal * ((1.0 + e) * dot(v0, wall.normal));
            CHECK(norm(v - expected) <= tol * vscale);
            CHECK(std::abs(normal_part(v, wall.normal) + e * normal_part(v0, wall.normal)) <=
                  tol * vscale);
            CHECK(norm(tangential_part(v, wall.normal) - tangential_part(v0, wall.normal)) <=
                  tol * vscale);
            CHECK(norm(dp - m * (v - v0)) <= tol * m * vscale);
            if (e == 1.0)
                CHECK(std::abs(kinetic(m, v) - kinetic(m, v0)) <=
                      tol * (kinetic(m, v) + kinetic(m, v0)));
        }
    }
    // Axis-aligned with dyadic numbers: exact.
    Wall<D> wall;
    wall.normal[D - 1] = -1.0;
    Vec<D> v;
    v[0] = 0.625;
    v[D - 1] = 1.5;
    const Vec<D> dp = wall_collision(wall, v, 2.0);
    CHECK(v[0] == 0.625);
    CHECK(v[D - 1] == -1.5);
    CHECK(dp[D - 1] == -6.0);
}

} // namespace test_collide
