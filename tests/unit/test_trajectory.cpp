// Free flight under gravity and drag (kernel/motions.hpp) against independent references:
// a Runge–Kutta integration of dv/dt = g − γ v, quadrature of |v|², and first-contact times
// found by stepping the gap and bisecting.
#include <choc/kernel/motions.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>

namespace test_trajectory {

using namespace choc;

// Both motions are what the engine asks of a Motion (kernel/motions.hpp).
static_assert(Motion<Ballistic<2>, 2> && Motion<Ballistic<3>, 3>);
static_assert(Motion<Field<2>, 2> && Motion<Field<3>, 3>);
// A motion of the wrong dimension is not one.
static_assert(!Motion<Ballistic<2>, 3> && !Motion<Field<3>, 2>);

namespace {

// Classical RK4 for x' = v, v' = g − γ v, 20000 steps: its error (~h^4) is far below 1e-12
// for the τ ≲ 3 and γ ≲ 2 used here.
template <int D>
ParticleState<D> integrate(const ParticleState<D>& start, const Vec<D>& g, double gamma,
                           double tau) {
    ParticleState<D> p = start;
    const int steps = 20000;
    const double h = tau / steps;
    auto acc = [&](const Vec<D>& v) { return g - v * gamma; };
    for (int k = 0; k < steps; ++k) {
        const Vec<D> x1 = p.v, v1 = acc(p.v);
        const Vec<D> x2 = p.v + v1 * (h / 2), v2 = acc(p.v + v1 * (h / 2));
        const Vec<D> x3 = p.v + v2 * (h / 2), v3 = acc(p.v + v2 * (h / 2));
        const Vec<D> x4 = p.v + v3 * h, v4 = acc(p.v + v3 * h);
        p.x += (x1 + x2 * 2.0 + x3 * 2.0 + x4) * (h / 6);
        p.v += (v1 + v2 * 2.0 + v3 * 2.0 + v4) * (h / 6);
    }
    p.t += tau;
    return p;
}

// First τ in (0, span] where the gap falls through zero, by steps of span/2e5 and then
// bisection to adjacent doubles; `never` if none. The cases below keep the gap's rate at
// the root away from zero, so a step cannot jump over a root pair unseen.
template <class Gap>
double first_zero(Gap gap, double span) {
    const int steps = 200000;
    double a = 0.0;
    double ga = gap(a);
    for (int k = 1; k <= steps; ++k) {
        double b = span * k / steps;
        const double gb = gap(b);
        if (ga > 0.0 && gb <= 0.0) {
            while (std::nextafter(a, b) < b) {
                const double m = 0.5 * (a + b);
                if (m <= a || m >= b) break;
                (gap(m) > 0.0 ? a : b) = m;
            }
            return b;
        }
        a = b;
        ga = gb;
    }
    return never;
}

} // namespace

TEST_CASE("free flight under gravity and drag matches an integration of dv/dt = g - gamma v") {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (const double gamma : {0.0, 0.3, 2.0})
        for (int n = 0; n < 20; ++n) {
            CAPTURE(gamma);
            const Vec<3> g{{u(rng), u(rng), u(rng)}};
            ParticleState<3> p;
            p.x = Vec<3>{{u(rng), u(rng), u(rng)}};
            p.v = Vec<3>{{u(rng), u(rng), u(rng)}};
            p.t = 0.5;
            const Field<3> field(g, gamma);
            const double tau = 3.0 * (n + 1) / 20;
            const auto ref = integrate(p, g, gamma, tau);
            const Vec<3> x = field.position(p, p.t + tau), v = field.velocity(p, p.t + tau);
            for (int a = 0; a < 3; ++a) {
                CHECK(std::abs(x[a] - ref.x[a]) < 1e-11);
                CHECK(std::abs(v[a] - ref.v[a]) < 1e-11);
            }
        }
}

TEST_CASE("drag: terminal velocity, and speed decays as exp(-gamma t) without gravity") {
    const Field<2> sinking(Vec<2>{{0.0, -9.81}}, 0.5);
    ParticleState<2> p;
    p.v = Vec<2>{{3.0, 4.0}};
    const Vec<2> v = sinking.velocity(p, 100.0); // e^(-50): at terminal velocity g / γ
    CHECK(std::abs(v[0]) < 1e-15);
    CHECK(v[1] == doctest::Approx(-9.81 / 0.5).epsilon(1e-14));
    const Field<2> drag(Vec<2>{}, 0.5);
    for (const double t : {0.1, 1.0, 7.0})
        CHECK(norm(drag.velocity(p, t)) ==
              doctest::Approx(5.0 * std::exp(-0.5 * t)).epsilon(1e-14));
    // and stops after travelling |v0| / γ
    CHECK(norm(drag.position(p, 200.0)) == doctest::Approx(5.0 / 0.5).epsilon(1e-14));
}

TEST_CASE("the integral of v^2 over a flight matches quadrature") {
    // Simpson's rule with 2000 intervals: error ~h^4 |f''''| far below 1e-10 here.
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (const double gamma : {0.0, 0.7}) {
        const Field<2> field(Vec<2>{{u(rng), u(rng)}}, gamma);
        ParticleState<2> p;
        p.v = Vec<2>{{u(rng), u(rng)}};
        const double t1 = 0.3, t2 = 2.1;
        const int m = 2000;
        double sum = 0.0;
        for (int k = 0; k <= m; ++k) {
            const double w = (k == 0 || k == m) ? 1.0 : (k % 2 ? 4.0 : 2.0);
            sum += w * norm2(field.velocity(p, t1 + (t2 - t1) * k / m));
        }
        const double simpson = sum * (t2 - t1) / (3.0 * m);
        CHECK(field.speed2_integral(p.v, t1, t2) == doctest::Approx(simpson).epsilon(1e-10));
    }
}

TEST_CASE("first contact of a gap under a field matches stepping and bisection") {
    // Random gaps in [0, 1], rates and accelerations in [-2, 2], drag 0 to 2. Cases whose
    // rate at the root is below 1e-3 are skipped (grazing: ill-conditioned for both sides).
    // Away from grazing the root is conditioned as noise / |rate| ~ 1e-16 / 1e-3, and the
    // bisection is exact to an ulp, so they must agree to 1e-11 relative.
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-2.0, 2.0);
    int compared = 0, hits = 0;
    for (const double gamma : {0.0, 0.4, 2.0}) {
        const Field<2> field(Vec<2>{}, gamma); // only the one-dimensional gap function is used
        for (int n = 0; n < 300; ++n) {
            const double gap0 = unit(rng), u = sym(rng), a = sym(rng);
            const double u_inf = gamma > 0 ? a / gamma : 0.0;
            auto gap = [&](double tau) {
                if (gamma == 0.0) return gap0 + u * tau + 0.5 * a * tau * tau;
                return gap0 + u_inf * tau + (u - u_inf) * field.s(tau);
            };
            auto rate = [&](double tau) {
                return gamma == 0.0 ? u + a * tau : u_inf + (u - u_inf) * std::exp(-gamma * tau);
            };
            const double span = 40.0;
            const double ref = first_zero(gap, span);
            const double got = field.first_contact(gap0, u, a);
            if (ref == never) {
                // none within the span: the closed form may only find one beyond it
                CHECK(got > span * 0.999);
                continue;
            }
            if (std::abs(rate(ref)) < 1e-3) continue;
            ++compared;
            ++hits;
            CAPTURE(gap0);
            CAPTURE(u);
            CAPTURE(a);
            CAPTURE(gamma);
            CHECK(got == doctest::Approx(ref).epsilon(1e-11));
            CHECK(gap(got) >= -1e-14); // never past the contact by more than round-off
        }
    }
    CHECK(compared > 300); // the random cases really exercise contacts
    CHECK(hits == compared);
}

TEST_CASE("first contact: round-off overlaps, resting and turning gaps") {
    const Field<2> gravity(Vec<2>{}, 0.0), drag(Vec<2>{}, 1.0);
    for (const auto* f : {&gravity, &drag}) {
        CHECK(f->first_contact(-1e-17, -1.0, 0.0) == 0.0); // overlapping and closing: now
        CHECK(f->first_contact(0.0, 0.0, -1.0) == 0.0);    // resting, pushed down: now
        CHECK(f->first_contact(0.0, 0.0, 1.0) == never);   // resting, pulled up
        CHECK(f->first_contact(0.0, 1.0, 0.0) == never);   // leaving, no field
    }
    // leaving the floor at speed 1 under g = 1: back after exactly 2 (no drag)
    CHECK(gravity.first_contact(0.0, 1.0, -1.0) == doctest::Approx(2.0).epsilon(1e-15));
    CHECK(gravity.first_contact(-1e-17, 1.0, -1.0) == doctest::Approx(2.0).epsilon(1e-15));
    // leaving at a speed whose square underflows: it still comes back, after 2u/g
    CHECK(gravity.first_contact(0.0, 1e-170, -1.0) == doctest::Approx(2e-170).epsilon(1e-15));
    // pushed open, moving in: the first (smaller) root; too slow to arrive: never
    CHECK(gravity.first_contact(1.0, -2.0, 1.0) ==
          doctest::Approx(2.0 - std::sqrt(2.0)).epsilon(1e-15));
    CHECK(gravity.first_contact(1.0, -1.0, 1.0) == never);
}

TEST_CASE("pair time with drag: the quadratic in s, mapped back") {
    // Head on, 4 apart at contact distance 1, closing at 2 with γ = 0.25: the gap of 3
    // closes when 2 s = 3, s = 1.5, τ = −ln(1 − 0.375)/0.25. Closing slower than 3γ: never.
    const Field<2> drag(Vec<2>{}, 0.25);
    const Vec<2> r{{4.0, 0.0}};
    CHECK(drag.pair_time(r, Vec<2>{{-2.0, 0.0}}, 1.0, never) ==
          doctest::Approx(-std::log(1.0 - 0.375) / 0.25).epsilon(1e-15));
    CHECK(drag.pair_time(r, Vec<2>{{-0.7, 0.0}}, 1.0, never) == never);
}

} // namespace test_trajectory
