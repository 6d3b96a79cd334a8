// Triangles (3D finite walls): the nearest point and the cell test against brute force,
// contact times against brute-force stepping under every motion, grazing edges and
// vertices, and crossing the shared edge of a flat pair of triangles without a kick.
#include <choc/kernel/motions.hpp>
#include <choc/kernel/triangle_time.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>

using namespace choc;

namespace {

using V = Vec<3>;

V vec(double x, double y, double z) {
    return V{{x, y, z}};
}

ParticleState<3> state(const V& x, const V& v) {
    ParticleState<3> q;
    q.x = x;
    q.v = v;
    return q;
}

// A scalene triangle, tilted against every axis.
const Triangle<3> plate =
    Triangle<3>::through(vec(0.0, 0.0, 0.0), vec(4.0, 1.0, 0.5), vec(1.0, 3.0, -1.0), 1.0);

// The distance to the triangle by brute force: the least over a fine barycentric grid
// (an upper bound within about size/n of the true distance).
double sampled_distance(const Triangle<3>& t, const V& x, int n = 400) {
    double best = never;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; i + j <= n; ++j) {
            const double u = double(i) / n, w = double(j) / n;
            const V p =
                t.vertex[0] + (t.vertex[1] - t.vertex[0]) * u + (t.vertex[2] - t.vertex[0]) * w;
            best = std::min(best, norm(x - p));
        }
    return best;
}

// Brute force: the gap dist(x(τ), triangle) − a, stepped by span/steps; the first step
// where it is <= 0 is bisected to 1e-14 of span. Returns never if no step closes it.
template <class Motion>
double brute(const Motion& m, const Triangle<3>& t, const ParticleState<3>& q, double a,
             double span, int steps = 20000) {
    auto gap = [&](double tau) { return t.distance(m.position(q, tau)) - a; };
    double prev = 0.0;
    for (int k = 1; k <= steps; ++k) {
        const double tau = span * k / steps;
        if (gap(tau) <= 0.0) {
            double lo = prev, hi = tau;
            while (hi - lo > 1e-14 * span) {
                const double mid = 0.5 * (lo + hi);
                (gap(mid) > 0.0 ? lo : hi) = mid;
            }
            return lo;
        }
        prev = tau;
    }
    return never;
}

// The least gap over [0, span] (fine stepping, then golden-section refinement).
template <class Motion>
std::pair<double, double> closest(const Motion& m, const Triangle<3>& t, const ParticleState<3>& q,
                                  double a, double span) {
    auto gap = [&](double tau) { return t.distance(m.position(q, tau)) - a; };
    const int steps = 20000;
    int best = 0;
    for (int k = 1; k <= steps; ++k)
        if (gap(span * k / steps) < gap(span * best / steps)) best = k;
    double lo = span * std::max(best - 1, 0) / steps, hi = span * std::min(best + 1, steps) / steps;
    for (int k = 0; k < 200; ++k) {
        const double m1 = lo + (hi - lo) * 0.382, m2 = lo + (hi - lo) * 0.618;
        (gap(m1) < gap(m2) ? hi : lo) = gap(m1) < gap(m2) ? m2 : m1;
    }
    return {0.5 * (lo + hi), gap(0.5 * (lo + hi))};
}

// Random spheres around `plate`, outside its reach, with random velocities: the predicted
// first contact against brute force, and never after the true one.
template <class Motion>
void against_brute_force(const Motion& m, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> pos(-3.0, 6.0), vel(-2.0, 2.0), unit(-0.2, 1.0);
    const double a = 0.5, span = 6.0;
    int hits = 0, rims = 0, vertices = 0;
    for (int n = 0; n < 400; ++n) {
        ParticleState<3> q;
        do q = state(vec(pos(rng), pos(rng), pos(rng) - 1.5), vec(vel(rng), vel(rng), vel(rng)));
        while (plate.distance(q.x) < a + 0.05);
        // every other flight heads for a random point of the triangle's plane near it
        if (n % 2 == 0) {
            const V aim = plate.vertex[0] + (plate.vertex[1] - plate.vertex[0]) * unit(rng) +
                          (plate.vertex[2] - plate.vertex[0]) * unit(rng);
            q.v = (aim - q.x) * (1.0 / norm(aim - q.x)) * 1.5 + vec(vel(rng), vel(rng), 0) * 0.2;
        }
        const double tb = brute(m, plate, q, a, span);
        const double tp = triangle_time(m, plate, q, a, span);
        CAPTURE(n);
        CAPTURE(q.x);
        CAPTURE(q.v);
        if (tb < never) {
            ++hits;
            const int part = plate.nearest(m.position(q, tb)).part;
            if (part != Triangle<3>::face) ++rims;
            if (part >= Triangle<3>::vertex0) ++vertices;
            // bisection to 1e-14 span; a grazing contact is flat in time, so 1e-7
            CHECK(tp == doctest::Approx(tb).epsilon(1e-7));
        } else if (tp <= span) {
            // brute force may step over a contact shorter than its step: then the
            // predicted one must be a real (grazing) contact
            CHECK(std::abs(plate.distance(m.position(q, tp)) - a) < 1e-9);
        }
        // never after the true contact: no overlap at the predicted time
        if (tp <= span) CHECK(plate.distance(m.position(q, tp)) - a > -1e-12);
    }
    CHECK(hits > 30);
    CHECK(rims > 10);    // edges and vertices are exercised,
    CHECK(vertices > 1); // vertices too
}

const V gravity = vec(0.3, -0.2, -1.0);

} // namespace

TEST_CASE("the nearest point of a triangle, against a fine sampling") {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> pos(-3.0, 6.0);
    int parts[7] = {};
    for (int n = 0; n < 400; ++n) {
        const V x = vec(pos(rng), pos(rng), pos(rng) - 1.5);
        const auto near = plate.nearest(x);
        ++parts[near.part];
        const double d = plate.distance(x);
        CHECK(d == doctest::Approx(norm(x - near.point)).epsilon(1e-12));
        // the sampled minimum is an upper bound within the grid's spacing (about 0.01)
        const double sampled = sampled_distance(plate, x, 300);
        CHECK(d <= sampled + 1e-12);
        CHECK(d >= sampled - 0.02);
        // the contact plane runs through the nearest point, facing x, at distance d
        const Wall<3> w = plate.contact_plane(x);
        CHECK(w.distance(x) == doctest::Approx(d).epsilon(1e-12));
        CHECK(norm(w.normal) == doctest::Approx(1.0).epsilon(1e-14));
    }
    for (int p = 0; p < 7; ++p) CHECK(parts[p] > 0); // the face, every edge and vertex
}

TEST_CASE("a triangle's cell test is conservative and not trivially true") {
    // may_reach(lo, hi, r) false must mean that no point of the box is within r of the
    // triangle: checked on a grid of points in each rejected box.
    std::mt19937_64 rng(6);
    std::uniform_real_distribution<double> pos(-2.5, 5.0), size(0.2, 1.5), reach(0.0, 0.6);
    int rejected = 0, accepted = 0;
    for (int n = 0; n < 3000; ++n) {
        const V lo = vec(pos(rng), pos(rng), pos(rng) - 1.5);
        const V hi = lo + vec(size(rng), size(rng), size(rng));
        const double r = reach(rng);
        if (plate.may_reach(lo, hi, r)) {
            ++accepted;
            continue;
        }
        ++rejected;
        double least = never;
        const int g = 6;
        for (int i = 0; i <= g; ++i)
            for (int j = 0; j <= g; ++j)
                for (int k = 0; k <= g; ++k) {
                    V x;
                    for (int a = 0; a < 3; ++a) {
                        const int step = a == 0 ? i : a == 1 ? j : k;
                        x[a] = lo[a] + (hi[a] - lo[a]) * step / g;
                    }
                    least = std::min(least, plate.distance(x));
                }
        CHECK(least > r);
    }
    CHECK(rejected > 500);
    CHECK(accepted > 200);
}

TEST_CASE("triangle contact times against brute force: straight lines") {
    against_brute_force(Ballistic<3>{}, 1);
}
TEST_CASE("triangle contact times against brute force: gravity") {
    against_brute_force(Field<3>(gravity, 0.0), 2);
}
TEST_CASE("triangle contact times against brute force: drag") {
    against_brute_force(Field<3>(V{}, 0.4), 3);
}
TEST_CASE("triangle contact times against brute force: gravity and drag") {
    against_brute_force(Field<3>(gravity, 0.4), 4);
}

TEST_CASE("grazing an edge or a vertex: a hit just inside contact, a miss just outside") {
    // Flights aimed past the rim: find the closest approach, then move the start so that
    // the least gap is −1e-7 a (a real, grazing contact) or +1e-7 a (a near miss).
    const double a = 0.5;
    auto run = [&](const auto& m) {
        std::mt19937_64 rng(7);
        std::normal_distribution<double> gauss;
        int tried = 0;
        for (int n = 0; n < 60; ++n) {
            const int k = n % 3;
            // towards a point on edge k (or its vertex), from 3 away in a random direction
            const double along = n % 2 == 0 ? 0.0 : 0.5 * plate.length[k];
            const V target = plate.vertex[k] + plate.tangent[k] * along;
            V dir = vec(gauss(rng), gauss(rng), gauss(rng));
            dir = dir * (1.0 / norm(dir));
            ParticleState<3> q = state(target + dir * 3.0, dir * -1.5 + vec(0.3, 0.2, 0.1));
            const auto [t_min, g_min] = closest(m, plate, q, a, 4.0);
            const V at = m.position(q, t_min);
            const auto near = plate.nearest(at);
            if (near.part == Triangle<3>::face || t_min < 0.1 || t_min > 3.9)
                continue; // not a pass by the rim
            ++tried;
            const V away = (at - near.point) * (1.0 / norm(at - near.point));
            CAPTURE(n);
            for (const double target_gap : {-1e-7, 1e-7}) {
                ParticleState<3> shifted = q;
                shifted.x += away * (target_gap * a - g_min);
                const double tp = triangle_time(m, plate, shifted, a, 4.0);
                if (target_gap < 0) {
                    REQUIRE(tp < never);
                    CHECK(std::abs(tp - t_min) < 1e-2); // the grazing time, roughly
                    CHECK(plate.distance(m.position(shifted, tp)) - a > -1e-12);
                    CHECK(plate.distance(m.position(shifted, tp)) - a < 1e-9);
                } else {
                    CHECK(tp > 4.0);
                }
            }
        }
        CHECK(tried > 10);
    };
    run(Ballistic<3>{});
    run(Field<3>(gravity, 0.0));
    run(Field<3>(V{}, 0.4));
    run(Field<3>(gravity, 0.4));
}

TEST_CASE("a sphere sliding over the shared edge of two flat triangles meets it with no kick") {
    // Two triangles tile the square [0,4]² at z = 0; a sphere moves along x at height
    // exactly a over the diagonal they share. Neither face ever closes (rate 0); the shared
    // edge is met tangentially, above the diagonal, and its contact plane is the floor's.
    const Triangle<3> t1 =
        Triangle<3>::through(vec(0.0, 0.0, 0.0), vec(4.0, 0.0, 0.0), vec(4.0, 4.0, 0.0), 1.0);
    const Triangle<3> t2 =
        Triangle<3>::through(vec(0.0, 0.0, 0.0), vec(4.0, 4.0, 0.0), vec(0.0, 4.0, 0.0), 1.0);
    const double a = 0.5;
    const ParticleState<3> q = state(vec(3.0, 1.0, a), vec(-1.0, 0.0, 0.0));
    for (const Triangle<3>* t : {&t1, &t2}) {
        CHECK(triangle_face_time(Ballistic<3>{}, *t, q, a) == never);
        const double tc = triangle_time(Ballistic<3>{}, *t, q, a, never);
        REQUIRE(tc < never);
        CHECK(tc == doctest::Approx(2.0).epsilon(1e-12)); // above the diagonal at x = y = 1
        const Wall<3> w = t->contact_plane(Ballistic<3>{}.position(q, tc));
        CHECK(w.normal[2] == doctest::Approx(1.0).epsilon(1e-12));
        CHECK(dot(q.v, w.normal) == doctest::Approx(0.0).scale(1.0).epsilon(1e-12));
    }
}

TEST_CASE("a degenerate triangle has no shape") {
    CHECK(Triangle<3>::shape(vec(0, 0, 0), vec(1, 1, 1), vec(2, 2, 2)) == 0.0);
    CHECK(Triangle<3>::shape(vec(0, 0, 0), vec(0, 0, 0), vec(2, 2, 2)) == 0.0);
    CHECK(Triangle<3>::shape(vec(0, 0, 0), vec(1, 0, 0), vec(0.5, std::sqrt(0.75), 0)) ==
          doctest::Approx(std::sqrt(3.0) / 2.0));
}
