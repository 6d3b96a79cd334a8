// Lees-Edwards geometry (lees_edwards.hpp) against a brute-force enumeration of the
// sliding images: the nearest image, the straight flight of an image, and a particle's
// re-entry, which must leave every separation and relative velocity as they were.
#include <choc/kernel/lees_edwards.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace test_lees_edwards {

using namespace choc;

namespace {

template <int D>
LeesEdwards<D> sheared_box(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> edge(3.0, 12.0), rate(-2.0, 2.0), origin(-5.0, 5.0);
    LeesEdwards<D> le;
    for (int a = 0; a < D; ++a) le.length[a] = edge(rng);
    le.rate = rate(rng);
    le.origin = origin(rng);
    return le;
}

template <int D>
Vec<D> inside(const LeesEdwards<D>& le, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    Vec<D> x;
    for (int a = 0; a < D; ++a) x[a] = u(rng) * le.length[a];
    return x;
}

// The image of j nearest to i, by trying every image within two periods on each axis:
// j's position plus k_y periods up, slid along x by k_y gamma L_y (t - origin) (written
// out here from the definition, not taken from the class), plus whole periods on the
// other axes.
template <int D>
Vec<D> brute_nearest(const LeesEdwards<D>& le, const Vec<D>& xi, const Vec<D>& xj, double t,
                     int& k_best) {
    Vec<D> best{};
    double best_norm = std::numeric_limits<double>::infinity();
    const int other = D == 3 ? 2 : 0;
    for (int ky = -2; ky <= 2; ++ky) {
        const double slid = ky * le.rate * le.length[1] * (t - le.origin);
        const int periods = static_cast<int>(std::nearbyint(slid / le.length[0]));
        for (int kx = -periods - 3; kx <= -periods + 3; ++kx)
            for (int kz = -other; kz <= other; ++kz) {
                Vec<D> image = xj;
                image[0] += slid + kx * le.length[0];
                image[1] += ky * le.length[1];
                if constexpr (D == 3) image[2] += kz * le.length[2];
                const Vec<D> r = xi - image;
                if (norm(r) < best_norm) best_norm = norm(r), best = r, k_best = ky;
            }
    }
    return best;
}

template <int D>
double min_edge(const LeesEdwards<D>& le) {
    double m = le.length[0];
    for (int a = 1; a < D; ++a) m = std::min(m, le.length[a]);
    return m;
}

template <int D>
void nearest_image_cases() {
    std::mt19937_64 rng(20261125 + D);
    std::uniform_real_distribution<double> when(-50.0, 50.0);
    int compared = 0, across = 0;
    for (int n = 0; n < 20000; ++n) {
        const auto le = sheared_box<D>(rng);
        const Vec<D> xi = inside(le, rng), xj = inside(le, rng);
        const double t = when(rng);
        int k = 0, kb = 0;
        const Vec<D> r = le.minimum_image(xi - xj, t, k);
        const Vec<D> rb = brute_nearest(le, xi, xj, t, kb);
        // Within half the shortest edge the nearest image is unique and the one a contact
        // can be with: that is where minimum_image must find it.
        if (norm(rb) >= 0.5 * min_edge(le)) continue;
        ++compared;
        across += k != 0;
        CHECK(k == kb);
        CHECK(norm(r - rb) < 1e-12 * (1.0 + norm(le.length)));
    }
    CHECK(compared > 1000);
    CHECK(across > 100); // pairs across the sliding face were met
}

} // namespace

TEST_CASE("the nearest sliding image is the brute-force nearest within half an edge") {
    nearest_image_cases<2>();
    nearest_image_cases<3>();
}

template <int D>
void straight_image_flight() {
    std::mt19937_64 rng(7 + D);
    std::uniform_real_distribution<double> when(-20.0, 20.0), speed(-3.0, 3.0);
    for (int n = 0; n < 2000; ++n) {
        const auto le = sheared_box<D>(rng);
        const Vec<D> xj = inside(le, rng);
        Vec<D> vj;
        for (int a = 0; a < D; ++a) vj[a] = speed(rng);
        const double t1 = when(rng), dt = std::abs(when(rng));
        for (int k : {-1, 1}) {
            // Where the image is at t1 + dt, against where its straight flight from t1 puts
            // it: the same, up to whole periods along x.
            Vec<D> at2 = xj + vj * dt; // from the definition: slid by k gamma L_y (t - origin)
            at2[0] += k * le.sliding_speed() * (t1 + dt - le.origin);
            at2[1] += k * le.length[1];
            const Vec<D> flown = xj + le.image_shift(k, t1) + (vj + le.image_velocity(k)) * dt;
            Vec<D> d = at2 - flown;
            d[0] -= le.length[0] * std::nearbyint(d[0] / le.length[0]);
            CHECK(norm(d) < 1e-11 * (1.0 + std::abs(le.sliding_speed()) * (std::abs(t1) + dt)));
        }
    }
}

TEST_CASE("an image slides at a constant velocity: its flight is straight") {
    straight_image_flight<2>();
    straight_image_flight<3>();
}

template <int D>
void reentry_cases() {
    std::mt19937_64 rng(99 + D);
    std::uniform_real_distribution<double> when(-20.0, 20.0), speed(-3.0, 3.0), u(0.0, 1.0);
    for (int n = 0; n < 5000; ++n) {
        const auto le = sheared_box<D>(rng);
        const double t = when(rng);
        const int dir = u(rng) < 0.5 ? -1 : 1;
        // i just out through the top (bottom), j anywhere inside
        Vec<D> xi = inside(le, rng), vi, vj;
        xi[1] = dir > 0 ? le.length[1] * (1.0 + 1e-3 * u(rng)) : -1e-3 * le.length[1] * u(rng);
        for (int a = 0; a < D; ++a) vi[a] = speed(rng), vj[a] = speed(rng);
        const Vec<D> xj = inside(le, rng);

        int k0 = 0, k1 = 0;
        const Vec<D> r0 = le.minimum_image(xi - xj, t, k0);
        const Vec<D> w0 = vi - vj - le.image_velocity(k0);
        Vec<D> x = xi, v = vi;
        le.reenter(x, v, dir, t);
        CHECK(x[1] >= 0.0);
        CHECK(x[1] < le.length[1]);
        CHECK(x[0] >= 0.0);
        CHECK(x[0] < le.length[0]);
        CHECK(v[0] == doctest::Approx(vi[0] - dir * le.sliding_speed()).epsilon(1e-14));
        const Vec<D> r1 = le.minimum_image(x - xj, t, k1);
        const Vec<D> w1 = v - vj - le.image_velocity(k1);
        CHECK(norm(r1 - r0) < 1e-11 * (1.0 + norm(le.length)));
        CHECK(norm(w1 - w0) < 1e-12 * (1.0 + std::abs(le.sliding_speed())));
    }
}

TEST_CASE("re-entering through the sliding face changes no separation or relative velocity") {
    reentry_cases<2>();
    reentry_cases<3>();
}

TEST_CASE("the offset is gamma L_y t modulo L_x, zero at the origin") {
    LeesEdwards<2> le;
    le.length = Vec<2>{{10.0, 4.0}};
    le.rate = 0.5;
    le.origin = 1.0;
    CHECK(le.sliding_speed() == 2.0);
    CHECK(le.offset(1.0) == 0.0);
    CHECK(le.offset(2.0) == doctest::Approx(2.0));
    CHECK(le.offset(7.5) == doctest::Approx(3.0)); // 13 mod 10
    CHECK(le.offset(0.0) == doctest::Approx(8.0)); // -2 mod 10
    le.rate = 0.0;
    CHECK(le.offset(1e9) == 0.0);
}

// Every partner within a column width of a particle in an edge row, seen across the
// sliding face, lies in the window of columns of the tick interval, through the image the
// window names, at any time of the interval (its ends included).
template <int D>
void window_cases() {
    std::mt19937_64 rng(31 + D);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> columns(3, 9);
    std::uniform_int_distribution<long> ticks(-1000, 1000);
    int met = 0;
    for (int n = 0; n < 20000; ++n) {
        auto le = sheared_box<D>(rng);
        const int nx = columns(rng);
        const double w = le.length[0] / nx;
        const long k = ticks(rng);
        const double t =
            le.tick_time(k, w) + u(rng) * (le.tick_time(k + 1, w) - le.tick_time(k, w));
        const double when = n % 7 == 0 ? le.tick_time(k + (n % 2), w) : t; // the ends too
        CHECK(le.tick_before(0.5 * (le.tick_time(k, w) + le.tick_time(k + 1, w)), w) == k);
        // offset_in is offset() up to whole periods, and continuous across the tick
        const double lx = le.length[0];
        auto periodic_gap = [lx](double a, double b) {
            return std::abs(a - b - lx * std::nearbyint((a - b) / lx));
        };
        CHECK(periodic_gap(le.offset_in(k, when, w, nx), le.offset(when)) < 1e-9 * lx);
        const double next = le.tick_time(k + 1, w);
        CHECK(periodic_gap(le.offset_in(k, next, w, nx), le.offset_in(k + 1, next, w, nx)) <
              1e-9 * lx);
        const int dir = u(rng) < 0.5 ? -1 : 1;
        const double xi = u(rng) * le.length[0], xj = u(rng) * le.length[0];
        const int ci = std::min(static_cast<int>(xi / w), nx - 1);
        const int cj = std::min(static_cast<int>(xj / w), nx - 1);
        // j's image across the face, from the definition, at its nearest x period
        double image = xj + dir * le.rate * le.length[1] * (when - le.origin);
        image -= le.length[0] * std::nearbyint((image - xi) / le.length[0]);
        if (std::abs(xi - image) >= w) continue;
        ++met;
        bool found = false;
        const int first = le.window_first(ci, dir, k, nx);
        for (int m = first; m < first + LeesEdwards<D>::window_columns; ++m) {
            const int column = ((m % nx) + nx) % nx;
            const int periods = (m - column) / nx;
            const double seen = xj + periods * le.length[0] + dir * le.offset_in(k, when, w, nx);
            found = found || (column == cj && std::abs(xi - seen) < w + 1e-9 * le.length[0]);
        }
        CHECK(found);
    }
    CHECK(met > 2000);
}

TEST_CASE("the window of columns across the sliding face holds every partner until the next tick") {
    window_cases<2>();
    window_cases<3>();
}

// Anchoring at a tick (what the engine does when it moves its clock's origin) renumbers
// the ticks from there and changes no offset, window or tick time.
template <int D>
void anchor_cases() {
    std::mt19937_64 rng(57 + D);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> columns(3, 9);
    std::uniform_int_distribution<long> ticks(-500, 500), later(0, 300);
    for (int n = 0; n < 5000; ++n) {
        const auto le = sheared_box<D>(rng);
        const int nx = columns(rng);
        const double w = le.length[0] / nx, lx = le.length[0];
        const long k0 = ticks(rng), k = k0 + later(rng);
        auto anchored = le;
        anchored.anchor_at_tick(k0, w, nx);
        const double t =
            le.tick_time(k, w) + u(rng) * (le.tick_time(k + 1, w) - le.tick_time(k, w));
        const double scale = 1e-9 * (1.0 + std::abs(le.sliding_speed()) * std::abs(t - le.origin));
        CHECK(std::abs(anchored.tick_time(k - k0, w) - le.tick_time(k, w)) <
              1e-9 * (1.0 + std::abs(le.tick_time(k, w))));
        const int c = static_cast<int>(u(rng) * nx) % nx;
        for (int dir : {-1, 1})
            CHECK(anchored.window_first(c, dir, k - k0, nx) == le.window_first(c, dir, k, nx));
        CHECK(std::abs(anchored.offset_in(k - k0, t, w, nx) - le.offset_in(k, t, w, nx)) <
              scale * lx);
        double d = anchored.offset(t) - le.offset(t);
        d -= lx * std::nearbyint(d / lx);
        CHECK(std::abs(d) < scale * lx);
    }
}

TEST_CASE("anchoring at a tick changes no offset, window or tick time") {
    anchor_cases<2>();
    anchor_cases<3>();
}

} // namespace test_lees_edwards
