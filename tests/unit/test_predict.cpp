// Event-time predictions (pair_time, wall_time, crossing_time) against a brute-force
// oracle that knows nothing of the quadratic formula: it steps the trajectories in
// small time steps, finds the first step at which the gap closes, and bisects that step
// to round-off.
//
// Tolerances. Let g(t) be the gap (|r(t)|^2 - sigma^2 for pairs, distance - radius for
// walls) and `noise` a bound on the error of evaluating g in floating point. Bisection
// ends with adjacent doubles lo < hi, g(lo) > 0 >= g(hi) as computed; the exact root
// therefore lies within (hi - lo) + noise / |g'| of hi (to first order; we take twice
// that). The closed form sees the same conditioning (an error dg in its inputs moves
// the root by dg / |g'|), and rounds its own result to a few ulp. So each hit must agree
// within  tol = 2 (hi - lo) + 2 noise / |g'(t)| + 4 eps t,  which for well-separated
// random pairs is ~1e-14 relative, and grows only where the problem is ill-conditioned
// (grazing: g' -> 0; nearly touching: t -> 0).
#include <doctest/doctest.h>

#include "random_vectors.hpp"

#include <choc/kernel/box.hpp>
#include <choc/kernel/predict.hpp>
#include <choc/kernel/vec.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

namespace test_predict {

using namespace choc;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

// ---------------------------------------------------------------------------------------
// The oracle.

// Real is double, or long double for the tiny-time test that needs more digits.
template <class Real = double>
struct Sample {
    Real gap;   // > 0 apart, <= 0 in contact
    Real slope; // d gap / dt
    Real noise; // bound on the rounding error of `gap` as evaluated
};

template <class Real = double>
struct Contact {
    bool decided = false; // false: even the finest stepping could not rule out a hidden root
    bool hit = false;
    Real t = never;
    Real tol = 0.0; // how far the exact root may lie from t (see the top of the file)
};

// First t in [0, span] with gap(t) <= 0, where `curvature` bounds |gap''|. Between samples
// a and b = a + h the gap is at least min(gap(a), gap(b)) - curvature h^2 / 8 (a function
// with |g''| <= C lies above its chord minus C (t - a)(b - t) / 2), so a step whose ends
// both exceed curvature h^2/8 + noise cannot hide a contact. If some step before the first sampled
// contact cannot be ruled out, the step is refined (x8) and the walk restarts.
template <class Real = double, class Gap>
Contact<Real> first_contact(Gap gap, Real span, Real curvature) {
    constexpr Real ulp = std::numeric_limits<Real>::epsilon();
    if (gap(0.0).gap <= 0.0) return {true, true, 0.0, 0.0};
    for (std::int64_t n = 1024; n <= (std::int64_t{1} << 25); n *= 8) {
        const Real h = span / static_cast<Real>(n);
        bool sure = true;
        Real prev_t = 0.0;
        Sample<Real> prev = gap(0.0);
        for (std::int64_t k = 1; k <= n; ++k) {
            const Real t = span * static_cast<Real>(k) / static_cast<Real>(n);
            const Sample<Real> cur = gap(t);
            if (cur.gap <= 0.0) {
                if (!sure) break; // an earlier step might hide the first contact: refine
                // Bisect [prev_t, t] until the two ends are adjacent doubles.
                Real lo = prev_t, hi = t;
                for (;;) {
                    const Real mid = lo + 0.5 * (hi - lo);
                    if (mid <= lo || mid >= hi) break;
                    (gap(mid).gap <= 0.0 ? hi : lo) = mid;
                }
                const Sample<Real> root = gap(hi);
                return {true, true, hi,
                        2 * (hi - lo) + 2 * root.noise / std::abs(root.slope) + 4 * ulp * hi};
            }
            const Real hidden = curvature * h * h / 8.0 + std::max(prev.noise, cur.noise);
            if (std::min(prev.gap, cur.gap) <= hidden) sure = false;
            prev_t = t;
            prev = cur;
        }
        if (sure) return {true, false, never, 0.0};
    }
    return {}; // undecided
}

template <int D>
struct Body {
    Vec<D> x, v;
};

// Brute-force pair contact: steps both bodies and measures their true distance. With a
// box, the distance is the periodic one: per periodic axis the smallest of the three
// candidates d, d - L, d + L (squared distance separates per axis).
template <int D>
Contact<> brute_pair(const Body<D>& i, const Body<D>& j, double sigma, double span,
                     const Box<D>* box = nullptr) {
    const Vec<D> v = i.v - j.v;
    auto gap = [&](double t) {
        Vec<D> d = (i.x + i.v * t) - (j.x + j.v * t);
        if (box)
            for (int a = 0; a < D; ++a) {
                if (!box->periodic[a]) continue;
                const double l = box->length[a];
                for (double s : {-l, l})
                    if (std::abs(d[a] + s) < std::abs(d[a])) d[a] += s;
            }
        // Position components are sums of terms up to m in size; each carries a few eps m
        // of error, so |r|^2 - sigma^2 is good to ~10 eps (m^2 + sigma^2); 16 is safe.
        double m = norm(i.x) + norm(j.x) + (norm(i.v) + norm(j.v)) * t;
        if (box) m += norm(box->length);
        return Sample<>{norm2(d) - sigma * sigma, 2.0 * dot(d, v),
                        16.0 * eps * (m * m + sigma * sigma)};
    };
    return first_contact(gap, span, 2.0 * norm2(v));
}

// Compare pair_time with the oracle; returns whether it was a hit. `max_rel` caps the
// oracle's own tolerance relative to t, so that a loose tolerance cannot pass silently.
template <int D>
bool check_pair(const Body<D>& i, const Body<D>& j, double sigma, double max_rel = 1e-9,
                const Box<D>* box = nullptr) {
    const Vec<D> r = box ? box->minimum_image(i.x - j.x) : i.x - j.x;
    const double t = pair_time(r, i.v - j.v, sigma * sigma);
    // A span that surely holds any contact: |r(t)| >= |v| t - |r| > |r| > sigma for
    // t > 2 |r| / |v|, so a pair apart at t = 0 cannot touch after that.
    const double span = 2.0 * norm(r) / norm(i.v - j.v);
    const Contact<> c = brute_pair(i, j, sigma, span, box);
    REQUIRE(c.decided);
    CHECK(t >= 0.0); // never negative
    if (!c.hit) {
        CHECK(t == never);
        return false;
    }
    REQUIRE(t != never);
    CHECK(std::abs(t - c.t) <= c.tol);
    CHECK(c.tol <= max_rel * c.t);
    return true;
}

RandomVectors rnd(20240611);

// A random pair, apart (1.01 to 5 sigma) and approaching: i moves relative to j towards a
// random point within ~1.5 sqrt(D) sigma of j, so about half of the pairs hit. A quarter
// have the relative velocity reversed (receding). Scaled by `length` and `speed`.
template <int D>
std::pair<Body<D>, Body<D>> random_pair(double length, double speed) {
    const Body<D> j{rnd.vec<D>(3.0 * length), rnd.vec<D>(speed)};
    const Vec<D> x = j.x + rnd.unit<D>() * (rnd.uniform(1.01, 5.0) * length);
    const Vec<D> aim = j.x + rnd.vec<D>(1.5 * length);
    Vec<D> v = (aim - x) * (rnd.uniform(0.1, 1.0) * speed / norm(aim - x));
    if (rnd.bits() % 4 == 0) v = -v;
    return {Body<D>{x, j.v + v}, j};
}

// A unit vector orthogonal to u (Gram-Schmidt on a random vector).
template <int D>
Vec<D> orthogonal_unit(const Vec<D>& u) {
    for (;;) {
        Vec<D> w = rnd.unit<D>();
        w -= u * dot(w, u);
        const double n = norm(w);
        if (n > 0.1) return w * (1.0 / n);
    }
}

} // namespace

// ---------------------------------------------------------------------------------------
// Pair times.

TEST_CASE_TEMPLATE("pair_time: random pairs agree with brute-force stepping", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    // Length and velocity scales: times range from 1e-14 to 1e14.
    struct Scale {
        double length, speed;
    };
    for (const Scale s :
         {Scale{1, 1}, Scale{1, 1e-8}, Scale{1, 1e8}, Scale{1e-6, 1}, Scale{1e6, 1e-6}}) {
        CAPTURE(s.length);
        CAPTURE(s.speed);
        const double sigma = s.length;
        int hits = 0, misses = 0, receding = 0;
        for (int k = 0; k < 300; ++k) {
            const auto [i, j] = random_pair<D>(s.length, s.speed);
            CAPTURE(k);
            if (dot(i.x - j.x, i.v - j.v) >= 0.0) {
                ++receding;
                CHECK(pair_time(i.x - j.x, i.v - j.v, sigma * sigma) == never);
                continue;
            }
            (check_pair(i, j, sigma) ? hits : misses)++;
        }
        // The sample must exercise all three outcomes, not just one.
        CHECK(hits > 75);
        CHECK(misses > 40);
        CHECK(receding > 40);
    }
}

TEST_CASE_TEMPLATE("pair_time: constructed head-on, receding and missing pairs", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    for (int k = 0; k < 50; ++k) {
        const Vec<D> u = rnd.unit<D>(), w = orthogonal_unit(u);
        const double speed = rnd.uniform(0.1, 10.0), sigma = rnd.uniform(0.5, 2.0);
        const double dist = rnd.uniform(1.5, 10.0) * sigma;
        const Body<D> j{rnd.vec<D>(1.0), rnd.vec<D>(1.0)};
        CAPTURE(k);
        // Head-on: i on the line through j, moving straight at it. The exact time is
        // (dist - sigma) / speed; the oracle checks it and so does the closed form.
        const Body<D> head{j.x + u * dist, j.v - u * speed};
        CHECK(check_pair(head, j, sigma));
        CHECK(pair_time(head.x - j.x, head.v - j.v, sigma * sigma) ==
              doctest::Approx((dist - sigma) / speed).epsilon(1e-13));
        // Receding: the same pair with the relative velocity reversed.
        const Body<D> away{head.x, j.v + u * speed};
        CHECK(pair_time(away.x - j.x, away.v - j.v, sigma * sigma) == never);
        CHECK_FALSE(brute_pair(away, j, sigma, 100.0 * dist / speed).hit);
        // Miss: approaching, but the closest approach (impact parameter) is 1.5 sigma.
        const Body<D> miss{j.x + u * dist + w * (1.5 * sigma), j.v - u * speed};
        CHECK_FALSE(check_pair(miss, j, sigma));
    }
}

TEST_CASE_TEMPLATE("pair_time: grazing pairs within 1e-9 of sigma", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    // i starts at distance L along -u from j's line, offset by impact parameter d along w,
    // and moves along u: the closest approach is exactly d (up to the rounding of the
    // start point, ~eps L = 1e-15, far below the margins 1e-9 and 1e-10).
    for (const double margin : {1e-9, -1e-9, 1e-10, -1e-10}) {
        for (int k = 0; k < 10; ++k) {
            CAPTURE(margin);
            CAPTURE(k);
            const Vec<D> u = rnd.unit<D>(), w = orthogonal_unit(u);
            const double sigma = 1.0, speed = rnd.uniform(0.5, 2.0);
            const double d = sigma * (1.0 + margin);
            const Body<D> j{Vec<D>{}, Vec<D>{}};
            const Body<D> i{u * (-3.0) + w * d, u * speed};
            // The root's slope |g'| = 2 speed sqrt(sigma^2 - d^2) ~ 1e-4 magnifies the
            // evaluation noise (~1e-13) to ~1e-9 relative: allow 1e-7.
            CHECK(check_pair(i, j, sigma, 1e-7) == (margin < 0.0));
        }
    }
}

TEST_CASE_TEMPLATE("pair_time: nearly touching and round-off overlaps", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    const double sigma = 1.0;
    for (int k = 0; k < 50; ++k) {
        CAPTURE(k);
        const Vec<D> u = rnd.unit<D>();
        const Vec<D> v = rnd.vec<D>(1.0) - u * 2.0; // v.u < 0: approaching along u
        const Body<D> j{Vec<D>{}, Vec<D>{}};
        // A gap of 1e-12: a small positive time, ~1e-12 / |v.u|, as stepping finds it.
        const Body<D> near{u * (sigma + 1e-12), v};
        const double t = pair_time(near.x, v, sigma * sigma);
        CHECK(t > 0.0);
        CHECK(t < 1e-11);
        // Positions of size 1 carry ~1e-16 absolute error against a 1e-12 gap: the time is
        // only defined to ~1e-4 relative, and the oracle's tolerance says so; cap at 0.1.
        CHECK(check_pair(near, j, sigma, 0.1));
        // Touching exactly or overlapping by round-off (c <= 0) while approaching: now.
        for (const double f : {1.0, 1.0 - 1e-15, 1.0 - 1e-12, 0.999}) {
            const Vec<D> r = u * (sigma * f);
            if (norm2(r) - sigma * sigma > 0.0) continue; // rounding made it c > 0
            CHECK(pair_time(r, v, sigma * sigma) == 0.0);
            // ... and never after all when receding.
            CHECK(pair_time(r, -v, sigma * sigma) == never);
            CHECK(pair_time(r, -v, sigma * sigma, 0.0) == never);
        }
    }
    // Overlap with zero relative velocity: nothing happens.
    CHECK(pair_time(Vec<D>{{0.5}}, Vec<D>{}, 1.0) == never);
}

TEST_CASE_TEMPLATE("pair_time: tiny times keep their relative accuracy", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    // r = (1 + delta, 0[, 0]), v = (-0.7, 0.3[, 0.2]), sigma = 1. For these dyadic delta,
    // r.r = 1 + 2 delta + delta^2 rounds by at most 2^-31 relative to c = r.r - 1, and the
    // time ~ delta must keep that relative accuracy: the closed form c / (-b + sqrt(disc))
    // does; (-b - sqrt(disc)) / v.v loses it to cancellation (checked: 1e-8 relative
    // error at delta = 2^-30, 5e-5 at 2^-40).
    // The oracle steps in long double (64-bit mantissa), where evaluating the gap costs
    // ~1e-18 absolute, i.e. ~1e-6 relative at t ~ 1e-12 at worst.
    Vec<D> r, v;
    v[0] = -0.7;
    v[1] = 0.3;
    if constexpr (D == 3) v[2] = 0.2;
    for (const int k : {20, 30, 40}) {
        CAPTURE(k);
        const double delta = std::ldexp(1.0, -k);
        r[0] = 1.0 + delta;
        const double t = pair_time(r, v, 1.0);
        auto gap = [&](long double s) {
            long double g = -1.0L, slope = 0.0L, m = 0.0L;
            for (int a = 0; a < D; ++a) {
                const long double x = static_cast<long double>(r[a]) + v[a] * s;
                g += x * x;
                slope += 2 * x * v[a];
                m += std::abs(x);
            }
            return Sample<long double>{g, slope,
                                       8 * std::numeric_limits<long double>::epsilon() * m * m};
        };
        const Contact<long double> c = first_contact<long double>(gap, 3.0L, 2.5L);
        REQUIRE(c.hit);
        CHECK(c.tol <= 1e-5L * c.t);
        CHECK(std::abs(t - c.t) <= c.tol + 0x1p-30L * c.t);
    }
}

TEST_CASE_TEMPLATE("pair_time: the horizon only rejects pairs later than it", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    const double sigma = 1.0;
    int tested = 0;
    for (int k = 0; k < 1000 && tested < 100; ++k) {
        const auto [i, j] = random_pair<D>(1.0, 1.0);
        const Vec<D> r = i.x - j.x, v = i.v - j.v;
        const double t = pair_time(r, v, sigma * sigma);
        if (t == never) continue;
        ++tested;
        CAPTURE(k);
        // Earlier than the horizon: the exact time, bit for bit the same as without it.
        for (const double h : {t * (1 + 1e-12), 2.0 * t, 1e3 * t, never})
            CHECK(pair_time(r, v, sigma * sigma, h) == t);
        // Later than the horizon: never, or the exact time (never anything else).
        for (const double h : {t * (1 - 1e-12), 0.5 * t, 0.0}) {
            const double th = pair_time(r, v, sigma * sigma, h);
            CHECK((th == never || th == t));
        }
        // Well before: t = c / (-b + sqrt(disc)) <= c / (-b), so the documented bound
        // c / (-2b) is at least t / 2 and a horizon of 0.49 t must be rejected.
        CHECK(pair_time(r, v, sigma * sigma, 0.49 * t) == never);
    }
    CHECK(tested == 100);
}

TEST_CASE_TEMPLATE("pair_time: periodic images through Box::minimum_image", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    // L = 20 and |r| <= 3 with span 2|r|/|v|: the relative displacement stays below 6,
    // so every other image stays beyond 20 - 3 - 6 > sigma: the minimum image is the
    // only one that can touch, and the true periodic distance decides.
    Box<D> box;
    for (int a = 0; a < D; ++a) box.length[a] = 20.0, box.periodic[a] = true;
    const double sigma = 1.0;
    int hits = 0, straddling = 0;
    for (int k = 0; k < 400; ++k) {
        // i near the top edge, j near the bottom edge on a random axis: they are ~2 apart
        // through the edge and ~18 apart inside the box.
        const int axis = static_cast<int>(rnd.bits() % D);
        Body<D> i{rnd.vec<D>(1.0), rnd.vec<D>(1.0)};
        Body<D> j{rnd.vec<D>(1.0), rnd.vec<D>(1.0)};
        for (int a = 0; a < D; ++a) i.x[a] += 10.0, j.x[a] += 10.0;
        i.x[axis] = rnd.uniform(19.0, 20.0);
        j.x[axis] = rnd.uniform(0.0, 1.0);
        const Vec<D> r = box.minimum_image(i.x - j.x);
        if (norm(r) <= 1.01 * sigma) continue;
        CAPTURE(k);
        CHECK(std::abs(r[axis]) < 2.0); // the image across the edge was chosen
        ++straddling;
        if (dot(r, i.v - j.v) >= 0.0) {
            CHECK(pair_time(r, i.v - j.v, sigma * sigma) == never);
            continue;
        }
        // Positions ~20 make |r|^2 good to ~1e-12 absolute; times down to ~1e-2: 1e-8.
        if (check_pair(i, j, sigma, 1e-8, &box)) ++hits;
    }
    CHECK(straddling > 250);
    CHECK(hits > 40);
}

// ---------------------------------------------------------------------------------------
// Walls.

namespace {

// Brute-force wall contact: steps x + v t and measures the signed distance to the plane.
template <int D>
Contact<> brute_wall(const Wall<D>& wall, const Body<D>& p, double radius, double span) {
    auto gap = [&](double t) {
        // A dot product of terms up to m in size, minus offset and radius: ~ (D + 3) eps m.
        const double m = norm(p.x) + norm(p.v) * t + std::abs(wall.offset) + radius;
        return Sample<>{dot(p.x + p.v * t, wall.normal) - wall.offset - radius,
                        dot(p.v, wall.normal), 8.0 * eps * m};
    };
    return first_contact(gap, span, 0.0);
}

template <int D>
Wall<D> random_wall() {
    Wall<D> w;
    w.normal = rnd.unit<D>();
    w.offset = rnd.uniform(-5.0, 5.0);
    return w;
}

} // namespace

TEST_CASE_TEMPLATE("wall_time: arbitrary normals against brute-force stepping", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    for (const double speed : {1e-8, 1.0, 1e8}) {
        for (int k = 0; k < 200; ++k) {
            CAPTURE(speed);
            CAPTURE(k);
            const Wall<D> wall = random_wall<D>();
            const double radius = rnd.uniform(0.1, 1.0);
            // Start 0..5 beyond contact, moving in with at least 0.1 of the speed along -n.
            const double start = rnd.uniform(0.01, 5.0);
            const Vec<D> along = orthogonal_unit(wall.normal);
            const Body<D> p{
                wall.normal * (wall.offset + radius + start) + along * rnd.uniform(-3, 3),
                (wall.normal * -rnd.uniform(0.1, 1.0) + along * rnd.uniform(-1, 1)) * speed};
            const double t = wall_time(wall, p.x, p.v, radius);
            // Contact within start / (0.1 speed); the span is 20 times that.
            const Contact<> c = brute_wall(wall, p, radius, 200.0 * start / speed);
            REQUIRE(c.decided);
            REQUIRE(c.hit);
            CHECK(std::abs(t - c.t) <= c.tol);
            CHECK(c.tol <= 1e-9 * c.t);
            // Moving away (velocity mirrored in the plane): never, and the oracle agrees.
            const Vec<D> out = p.v - wall.normal * (2.0 * dot(p.v, wall.normal));
            CHECK(wall_time(wall, p.x, out, radius) == never);
            CHECK_FALSE(brute_wall(wall, {p.x, out}, radius, 200.0 * start / speed).hit);
        }
    }
}

TEST_CASE_TEMPLATE("wall_time: parallel motion and overlaps", DT, std::integral_constant<int, 2>,
                   std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    // Normals (0.6, 0.8[, 0]) and velocity (0.8, -0.6[, 0]) k: v.n = 0.48 - 0.48 = 0 exactly.
    Wall<D> wall;
    wall.normal[0] = 0.6;
    wall.normal[1] = 0.8;
    wall.offset = 1.0;
    Vec<D> x = wall.normal * 3.0, parallel;
    parallel[0] = 0.8;
    parallel[1] = -0.6;
    if constexpr (D == 3) parallel[2] = 0.0;
    for (const double k : {1e-8, 1.0, 1e8}) CHECK(wall_time(wall, x, parallel * k, 0.5) == never);
    if constexpr (D == 3) CHECK(wall_time(wall, x, Vec<D>{{0.0, 0.0, 1.0}}, 0.5) == never);
    CHECK(wall_time(wall, x, Vec<D>{}, 0.5) == never);
    // Parallel up to rounding (Gram-Schmidt on a random normal): never, or so late it is
    // never in practice. One Gram-Schmidt pass leaves v.n ~ a few eps / 0.1 (the norm it
    // divides by is >= 0.1), so the approach speed is below 64 eps and t above 1.5 / (64 eps).
    for (int k = 0; k < 100; ++k) {
        const Wall<D> w = random_wall<D>();
        const Vec<D> v = orthogonal_unit(w.normal);
        const double t = wall_time(w, w.normal * (w.offset + 2.0), v, 0.5);
        CHECK(t >= 1.5 / (64.0 * eps));
    }
    // Overlapping (centre closer than the radius, or even behind the plane).
    for (const double depth : {0.0, 1e-15, 1e-6, 0.3, 2.0}) {
        CAPTURE(depth);
        const Vec<D> y = wall.normal * (wall.offset + 0.5 - depth);
        CHECK(wall_time(wall, y, wall.normal * -1.0, 0.5) == 0.0);  // moving in: now
        CHECK(wall_time(wall, y, wall.normal * 1.0, 0.5) == never); // moving out
        CHECK(wall_time(wall, y, parallel + wall.normal * 1e-3, 0.5) == never);
    }
}

// ---------------------------------------------------------------------------------------
// Cell crossings.

TEST_CASE("crossing_time: plane ahead, against brute-force stepping") {
    for (const double speed : {1e-8, 1.0, 1e8}) {
        for (int k = 0; k < 300; ++k) {
            CAPTURE(speed);
            CAPTURE(k);
            const double x = rnd.uniform(-10.0, 10.0), width = rnd.uniform(1e-3, 5.0);
            const double u = rnd.uniform(0.01, 1.0) * speed * (k % 2 ? 1.0 : -1.0);
            const double bound = u > 0.0 ? x + width : x - width;
            const double t = crossing_time(x, u, bound);
            auto gap = [&](double s) {
                // Two roundings in x + u s, one in the difference: 4 eps is safe.
                return Sample<>{(u > 0.0 ? 1.0 : -1.0) * (bound - (x + u * s)), -std::abs(u),
                                4.0 * eps * (std::abs(x) + std::abs(u) * s + std::abs(bound))};
            };
            const Contact<> c = first_contact(gap, 200.0 * width / speed, 0.0);
            REQUIRE(c.decided);
            REQUIRE(c.hit);
            CHECK(std::abs(t - c.t) <= c.tol);
            CHECK(c.tol <= 1e-9 * c.t);
        }
    }
    CHECK(crossing_time(1.0, 0.0, 2.0) == never); // not moving
    CHECK(crossing_time(1.0, 0.0, 1.0) == never);
    // On the plane, or past it by round-off in the direction of motion: now.
    CHECK(crossing_time(2.0, 1.0, 2.0) == 0.0);
    CHECK(crossing_time(std::nextafter(2.0, 3.0), 1.0, 2.0) == 0.0);
    CHECK(crossing_time(std::nextafter(2.0, 1.0), -1.0, 2.0) == 0.0);
    // Exact when representable: 0.5 / 0.25.
    CHECK(crossing_time(1.5, 0.25, 2.0) == 2.0);
    CHECK(crossing_time(2.5, -0.25, 2.0) == 2.0);
}

// ---------------------------------------------------------------------------------------
// pair_times: the engine's batched kernel must give pair_time's times to the bit.

// One candidate of a batch, with the pair_time it must reproduce.
template <int D>
struct BatchCase {
    Vec<D> r, v;
    double sigma2;
};

// Checks a batch of up to `N` cases against pair_time, bit for bit.
template <int D, std::size_t N>
void check_batch(const std::vector<BatchCase<D>>& cases, double horizon) {
    std::array<std::array<double, N>, D> r{}, v{};
    std::array<double, N> c{}, dt{};
    for (std::size_t begin = 0; begin < cases.size(); begin += N) {
        const int k = static_cast<int>(std::min(N, cases.size() - begin));
        for (int m = 0; m < k; ++m) {
            const BatchCase<D>& p = cases[begin + static_cast<std::size_t>(m)];
            for (int a = 0; a < D; ++a) r[a][m] = p.r[a], v[a][m] = p.v[a];
            c[m] = norm2(p.r) - p.sigma2; // as the engine's gather computes it
        }
        pair_times<D, N>(r, v, c, horizon, dt, k);
        for (int m = 0; m < k; ++m) {
            const BatchCase<D>& p = cases[begin + static_cast<std::size_t>(m)];
            const double expected = pair_time(p.r, p.v, p.sigma2, horizon);
            CAPTURE(begin + static_cast<std::size_t>(m));
            CAPTURE(horizon);
            CHECK(std::bit_cast<std::uint64_t>(dt[m]) == std::bit_cast<std::uint64_t>(expected));
        }
    }
}

TEST_CASE_TEMPLATE("pair_times: a batch gives pair_time's times to the bit", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    std::vector<BatchCase<D>> cases;
    int approaching = 0, receding = 0, grazing = 0, overlapping = 0;
    for (int k = 0; k < 4000; ++k) {
        const double sigma = rnd.uniform(0.2, 2.0), speed = std::pow(10.0, rnd.uniform(-8, 8));
        const Vec<D> u = rnd.unit<D>(), w = orthogonal_unit(u);
        switch (k % 6) {
        case 0: // random: approaching, receding, hitting or missing
            cases.push_back({rnd.vec<D>(5.0 * sigma), rnd.vec<D>(speed), sigma * sigma});
            break;
        case 1: { // head-on from a random distance
            const double dist = sigma * rnd.uniform(1.0, 20.0);
            cases.push_back({u * dist, u * -speed, sigma * sigma});
            ++approaching;
            break;
        }
        case 2: // receding
            cases.push_back({u * (sigma * rnd.uniform(1.0, 20.0)), u * speed, sigma * sigma});
            ++receding;
            break;
        case 3: { // grazing: impact parameter within 1e-9 .. 1e-15 of sigma, either side
            const double margin = (k % 12 < 6 ? 1.0 : -1.0) * std::pow(10.0, rnd.uniform(-15, -9));
            cases.push_back(
                {u * (-3.0 * sigma) + w * (sigma * (1.0 + margin)), u * speed, sigma * sigma});
            ++grazing;
            break;
        }
        case 4: { // at contact up to round-off: a few ulp inside or outside, approaching
            const double d = sigma * (1.0 + (rnd.uniform(-8, 8)) * eps);
            cases.push_back(
                {u * d, (u * -1.0 + w * rnd.uniform(-1.0, 1.0)) * speed, sigma * sigma});
            ++overlapping;
            break;
        }
        default: // the candidate is the particle itself, or a pair at rest
            cases.push_back({Vec<D>{}, Vec<D>{}, sigma * sigma});
            cases.push_back({u * (2.0 * sigma), Vec<D>{}, sigma * sigma});
            break;
        }
    }
    CHECK(approaching > 0);
    CHECK(receding > 0);
    CHECK(grazing > 0);
    CHECK(overlapping > 0);
    // Horizons: none, and ones that cut some of the times, down to exactly one of them
    // (c = -2 b h up to rounding: at the horizon) and zero.
    std::vector<double> horizons{never, 0.0, 1e-12, 1e-3, 1.0, 1e3};
    for (std::size_t n = 0; n < cases.size(); n += 97) {
        const double t = pair_time(cases[n].r, cases[n].v, cases[n].sigma2);
        if (t < never) horizons.push_back(t);
        const double b = dot(cases[n].r, cases[n].v), c = norm2(cases[n].r) - cases[n].sigma2;
        if (b < 0.0 && c > 0.0) horizons.push_back(c / (-2.0 * b)); // the bound itself
    }
    for (const double h : horizons) {
        check_batch<D, 256>(cases, h);
        check_batch<D, 7>(cases, h); // batches that end part-way
    }
}

} // namespace test_predict
