// Lees-Edwards sliding boundaries in the engine (engine.hpp, lees_edwards.hpp): event by
// event against a brute-force simulator of the sheared tiling, and over long runs the
// invariants, the momentum across the flow and the linear velocity profile.
#include <choc/kernel/engine.hpp>

#include <doctest/doctest.h>

#include <choc/kernel/engine.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

namespace test_sliding {

using namespace choc;

namespace {

// N discs or spheres of diameter 1 placed at random without overlap (the images aligned
// at t = 0: an ordinary periodic box), Gaussian velocities, zero total momentum.
template <int D>
Particles<D> random_gas(const Vec<D>& length, int n, unsigned seed) {
    Particles<D> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> gauss;
    while (static_cast<int>(p.size()) < n) {
        Vec<D> x, v;
        for (int a = 0; a < D; ++a) x[a] = u(rng) * length[a], v[a] = gauss(rng);
        bool clear = true;
        for (const auto& s : p.state) {
            Vec<D> r = x - s.x;
            for (int a = 0; a < D; ++a) r[a] -= length[a] * std::nearbyint(r[a] / length[a]);
            clear = clear && norm2(r) > 1.0;
        }
        if (clear) p.add(x, v, 0);
    }
    Vec<D> total;
    for (const auto& s : p.state) total += s.v;
    for (auto& s : p.state) s.v -= total * (1.0 / n);
    return p;
}

template <int D>
Box<D> sheared_box(const Vec<D>& length, double rate) {
    Box<D> box;
    box.length = length;
    for (int a = 0; a < D; ++a) box.periodic[a] = true;
    box.shear_rate = rate;
    return box;
}

// The sheared tiling, written out: image (kx, ky, kz) of particle j is at
//     x_j + (ky gamma L_y t + kx L_x, ky L_y, kz L_z)   with velocity v_j + (ky gamma L_y, 0, 0).
// Particles keep the image they started as on the y axis (never moved back into the box
// there: any image stands for the particle), and are folded on x and z. Every pair is
// tried through the images around its nearest ones.
template <int D>
struct ShearedBruteForce {
    Vec<D> length;
    double rate;
    Particles<D> p;
    double e = 1.0;
    double now = 0.0;

    struct Event {
        double t = never;
        std::uint32_t i = 0, j = 0;
        int kx = 0, ky = 0, kz = 0;
    };

    double slid(int ky, double t) const { return ky * rate * length[1] * t; }

    Vec<D> image_of(std::uint32_t j, int kx, int ky, int kz, double t) const {
        Vec<D> x = p.state[j].x;
        x[0] += slid(ky, t) + kx * length[0];
        x[1] += ky * length[1];
        if constexpr (D == 3) x[2] += kz * length[2];
        return x;
    }

    Event next() const {
        Event best;
        const auto n = static_cast<std::uint32_t>(p.size());
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = i + 1; j < n; ++j) {
                const Vec<D> r0 = p.state[i].x - p.state[j].x;
                const int y0 = static_cast<int>(std::nearbyint(r0[1] / length[1]));
                for (int ky = y0 - 1; ky <= y0 + 1; ++ky) {
                    const int x0 =
                        static_cast<int>(std::nearbyint((r0[0] - slid(ky, now)) / length[0]));
                    for (int kx = x0 - 2; kx <= x0 + 2; ++kx)
                        for (int kz = D == 3 ? -1 : 0; kz <= (D == 3 ? 1 : 0); ++kz) {
                            const Vec<D> r = p.state[i].x - image_of(j, kx, ky, kz, now);
                            Vec<D> w = p.state[i].v - p.state[j].v;
                            w[0] -= ky * rate * length[1];
                            const double t = pair_time(r, w, 1.0);
                            if (t < best.t) best = {t, i, j, kx, ky, kz};
                        }
                }
            }
        return best;
    }

    Event step() {
        const Event ev = next();
        now += ev.t;
        for (auto& s : p.state) {
            s.x += s.v * ev.t;
            for (int a : {0, D - 1})
                if (a != 1) s.x[a] -= length[a] * std::floor(s.x[a] / length[a]);
        }
        // (folding moved j by whole periods on x and z: its nearest such image is the one)
        const Vec<D> r0 = p.state[ev.i].x - image_of(ev.j, 0, ev.ky, 0, now);
        Vec<D> r = r0;
        for (int a : {0, D - 1})
            if (a != 1) r[a] -= length[a] * std::nearbyint(r[a] / length[a]);
        auto& vj = p.state[ev.j].v;
        vj[0] += ev.ky * rate * length[1];
        binary_collision(r, p.state[ev.i].v, vj, 1.0, 1.0, e);
        vj[0] -= ev.ky * rate * length[1];
        return ev;
    }
};

// What the engine tells its event log: the last pair collision.
struct LastPair : EventLog {
    double t = never;
    std::uint32_t a = 0, b = 0;
    void pair(double time, std::uint32_t i, std::uint32_t j) override {
        t = time, a = std::min(i, j), b = std::max(i, j);
    }
    void wall(double, std::uint32_t, std::uint32_t) override {}
};

// The engine one collision at a time beside the brute force: the same pair (the test:
// a wrong image or a pair missed across the face changes the next pair at once) at the
// same time, and after it the same velocities across the flow (along the flow they may
// differ by whole sliding speeds: the engine keeps each particle's image inside the box).
// The two round differently (the engine counts the offset from its last tick, on a clock
// whose origin moves), and chaos multiplies the difference at every collision, the faster
// the faster the slide: 1e-7 relative was reached after about 200 collisions of 20 discs
// sliding at 2.4, after 70 of 25 sliding at 5. Over 150 collisions velocities are held to
// 1e-5 and times to 1e-8 (a time is set before the collision multiplies anything).
constexpr double velocity_tolerance = 1e-5;

template <int D>
void agree(const Vec<D>& length, int n, double rate, double e, int steps, unsigned seed) {
    const Particles<D> p = random_gas<D>(length, n, seed);
    ShearedBruteForce<D> ref{length, rate, p, e};
    Engine<D> engine(sheared_box<D>(length, rate), p, {e});
    LastPair last;
    engine.log_events_to(&last);
    const double speed = rate * length[1];
    int across = 0;
    for (int k = 0; k < steps; ++k) {
        const auto ev = ref.step();
        across += ev.ky != 0;
        const auto before = engine.tally().collisions;
        while (engine.tally().collisions == before)
            REQUIRE(engine.run(never, ~0ull, 1) == Engine<D>::Stop::budget);
        INFO("collision " << k << " of " << ev.i << " and " << ev.j << " at t = " << ref.now);
        REQUIRE(last.a == ev.i);
        REQUIRE(last.b == ev.j);
        CHECK(engine.time() == doctest::Approx(ref.now).epsilon(1e-8));
        const auto s = engine.snapshot(engine.time());
        if (std::getenv("SLIDING_TRACE")) {
            double worst = 0;
            for (const std::uint32_t q : {ev.i, ev.j})
                for (int c = 1; c < D; ++c)
                    worst = std::max(worst, std::abs(s.state[q].v[c] - ref.p.state[q].v[c]));
            MESSAGE(k << " ky " << ev.ky << " dt " << engine.time() - ref.now << " dv " << worst);
        }
        for (const std::uint32_t q : {ev.i, ev.j}) {
            const Vec<D>& a = s.state[q].v;
            const Vec<D>& b = ref.p.state[q].v;
            const double lanes = std::nearbyint((a[0] - b[0]) / speed);
            CHECK(a[0] - lanes * speed == doctest::Approx(b[0]).epsilon(velocity_tolerance));
            for (int c = 1; c < D; ++c)
                CHECK(a[c] == doctest::Approx(b[c]).epsilon(velocity_tolerance));
        }
    }
    CHECK(across > steps / 20); // pairs met across the sliding face
}

} // namespace

TEST_CASE("sliding boundaries: the engine matches a brute-force sheared tiling event by event") {
    SUBCASE("2D, images sliding forward") {
        agree<2>(Vec<2>{{7.0, 6.0}}, 20, 0.4, 1.0, 150, 1);
    }
    SUBCASE("2D, backward, inelastic") {
        agree<2>(Vec<2>{{6.0, 7.0}}, 20, -0.7, 0.9, 150, 2);
    }
    SUBCASE("3D, forward") {
        agree<3>(Vec<3>{{5.0, 4.0, 4.5}}, 30, 0.5, 1.0, 150, 3);
    }
    SUBCASE("3D, backward, a fast slide") {
        agree<3>(Vec<3>{{4.0, 5.0, 4.0}}, 30, -1.5, 1.0, 150, 4);
    }
    // Long in x, fast: partners come across the face mostly by the sliding itself, between
    // their own events, so that only the windows' ticks bring them into view.
    SUBCASE("2D, long along the flow, a fast slide") {
        agree<2>(Vec<2>{{40.0, 5.0}}, 25, 1.0, 1.0, 60, 5);
    }
    SUBCASE("3D, long along the flow, backward") {
        agree<3>(Vec<3>{{24.0, 4.0, 4.0}}, 30, -1.2, 1.0, 60, 6);
    }
}

// Two particles at rest, one in the top row of cells and one in the bottom row, far apart
// along x: they meet only because the images slide, long after either was last looked
// at, so only the ticks bring the partner into view. Disc j's image one period up is at
// x = 40 + 3 t - 60 (the sliding speed 0.5 * 6), 0.8 below i across y: contact when it is
// 0.6 short of i's 10, at t = 29.4 / 3 = 9.8.
template <int D>
void meet_by_sliding() {
    Vec<D> length;
    for (int a = 0; a < D; ++a) length[a] = 6.0;
    length[0] = 60.0;
    Particles<D> p;
    p.table = SpeciesTable({{"A", 0.5, 1.0}});
    Vec<D> xi, xj;
    xi[0] = 10.0, xi[1] = 5.6, xj[0] = 40.0, xj[1] = 0.4;
    if constexpr (D == 3) xi[2] = xj[2] = 3.0;
    p.add(xi, Vec<D>{}, 0);
    p.add(xj, Vec<D>{}, 0);
    Engine<D> engine(sheared_box<D>(length, 0.5), p, {1.0});
    LastPair last;
    engine.log_events_to(&last);
    engine.run(9.79, ~0ull, ~0ull);
    CHECK(engine.tally().collisions == 0);
    engine.run(9.81, ~0ull, ~0ull);
    CHECK(engine.tally().collisions == 1);
    CHECK(last.t == doctest::Approx(9.8).epsilon(1e-12));
    // equal masses, elastic: the normal parts of the velocities are exchanged, the image's
    // being (3, 0): i, pushed away from the image along r = x_i - x_image = (0.6, -0.8),
    // leaves with ((3, 0).r) r = (1.08, -1.44)
    const auto s = engine.snapshot(engine.time());
    CHECK(s.state[0].v[0] == doctest::Approx(1.08).epsilon(1e-12));
    CHECK(s.state[0].v[1] == doctest::Approx(-1.44).epsilon(1e-12));
}

TEST_CASE("sliding boundaries: two particles at rest meet through the sliding alone") {
    meet_by_sliding<2>();
    meet_by_sliding<3>();
}

// Over a long run the engine's own invariants hold (no overlap, contacts at contact
// distance, energy booked), the momentum across the flow stays zero, the sliding heats the
// gas (viscous heating), and the mean velocity along x rises linearly across y with the
// imposed rate (fitted over many snapshots; 15 % covers its noise at this size).
template <int D>
void long_run(const Vec<D>& length, int n, double rate) {
    const Particles<D> p = random_gas<D>(length, n, 11);
    Engine<D> engine(sheared_box<D>(length, rate), p, {1.0});
    double k0 = 0.0;
    for (const auto& s : p.state) k0 += 0.5 * norm2(s.v);
    double sy = 0, sv = 0, syy = 0, syv = 0, count = 0;
    for (int snap = 1; snap <= 200; ++snap) {
        engine.run(snap * 2.0, ~0ull, ~0ull);
        const auto s = engine.snapshot(engine.time());
        Vec<D> total;
        for (const auto& q : s.state) {
            total += q.v;
            if (snap <= 20) continue; // the profile is set up first
            sy += q.x[1], sv += q.v[0], syy += q.x[1] * q.x[1], syv += q.x[1] * q.v[0];
            count += 1;
        }
        for (int a = 1; a < D; ++a) CHECK(std::abs(total[a]) < 1e-9 * n);
    }
    engine.check_conservation();
    const double slope =
        (syv / count - sy / count * sv / count) / (syy / count - sy * sy / count / count);
    CHECK(slope == doctest::Approx(rate).epsilon(0.15));
    double k = 0.0;
    for (const auto& q : engine.snapshot(engine.time()).state) k += 0.5 * norm2(q.v);
    CHECK(k > k0 * 1.05); // heated (the peculiar part alone grows; the flow adds its own)
    CHECK(engine.tally().collisions > 100000u);
}

TEST_CASE("sliding boundaries: invariants, momentum across the flow, a linear profile") {
    long_run<2>(Vec<2>{{20.0, 20.0}}, 150, 0.1);
    long_run<3>(Vec<3>{{8.0, 8.0, 8.0}}, 150, 0.1);
}

// The peculiar kinetic energy, in the frame of the flow u_x = gamma (y - L_y / 2).
template <int D>
double peculiar_energy(const Engine<D>& engine) {
    const auto& box = engine.box();
    double e = 0.0;
    for (const auto& q : engine.snapshot(engine.time()).state) {
        Vec<D> c = q.v;
        c[0] -= box.shear_rate * (q.x[1] - 0.5 * box.length[1]);
        e += 0.5 * norm2(c); // mass 1
    }
    return e;
}

// The shear moment M (Engine::shear_moment) against the energy it accounts for. On a flight
// the peculiar velocity c_x = v_x - gamma (y - L_y / 2) changes at -gamma v_y, so the
// peculiar energy changes at -gamma m c_x c_y; an elastic contact between i and j leaves
// the lab energy alone and changes the peculiar one by -gamma r_y dp_x (the two streaming
// velocities differ by gamma r_y), r_y dp_x = r_x dp_y for a central impulse; across the y
// face c is continuous. So E_pec(t) - E_pec(0) = -gamma M(t) exactly, term by term: a
// wrong sign or a missed crossing in M shows at once.
template <int D>
void moment_balances_energy(const Vec<D>& length, int n, double rate) {
    Engine<D> engine(sheared_box<D>(length, rate), random_gas<D>(length, n, 5), {1.0});
    const double e0 = peculiar_energy(engine);
    REQUIRE(engine.shear_moment());
    CHECK(*engine.shear_moment() == 0.0);
    for (int k = 1; k <= 20; ++k) {
        engine.run(k * 5.0, ~0ull, ~0ull);
        const double heat = peculiar_energy(engine) - e0;
        CHECK(heat == doctest::Approx(-rate * *engine.shear_moment()).epsilon(1e-9).scale(e0));
    }
    CHECK(peculiar_energy(engine) > 1.05 * e0); // the sliding heated the gas
    CHECK(engine.tally().collisions > 20000u);
}

TEST_CASE("sliding boundaries: the shear moment is the peculiar energy's work, exactly") {
    moment_balances_energy<2>(Vec<2>{{20.0, 16.0}}, 120, 0.15);
    moment_balances_energy<3>(Vec<3>{{7.0, 8.0, 6.0}}, 120, -0.15);
}

// One particle alone, crossing the y face again and again: its peculiar velocity keeps
// its value across the face and M is the integral of m c_x v_y along the unfolded
// straight line y(t) = y0 + v_y t, x velocity v_x:
//     M(t) = m v_y (v_x t - gamma ((y0 - L_y / 2) t + v_y t^2 / 2)).
TEST_CASE("sliding boundaries: the shear moment of a free flight across the face") {
    const Vec<2> length{{6.0, 5.0}};
    const double rate = 0.4, vx = 0.3, vy = 1.7, y0 = 1.0;
    Particles<2> p;
    p.table = SpeciesTable({{"A", 0.5, 2.0}});
    p.add(Vec<2>{{2.0, y0}}, Vec<2>{{vx, vy}}, 0);
    Engine<2> engine(sheared_box<2>(length, rate), p, {1.0});
    for (const double t : {1.0, 3.7, 10.0, 25.0}) {
        engine.run(t, ~0ull, ~0ull);
        const double expected = 2.0 * vy * (vx * t - rate * ((y0 - 2.5) * t + vy * t * t / 2.0));
        CHECK(*engine.shear_moment() == doctest::Approx(expected).epsilon(1e-11));
    }
    CHECK(engine.tally().crossings > 8u); // it went round y many times
}

// The thermostat (EngineSettings::shear_temperature) holds the peculiar temperature where
// the same run without it heats up: at a fast shear (gamma t_c ~ 0.05) the fluid without
// it warms by tens of per cent over the run, with it it stays within the heat of one
// thermostat interval (10 N collisions, a few per cent here) of the set kT; the
// invariants hold throughout.
template <int D>
void thermostat_holds(const Vec<D>& length, int n) {
    const double rate = 0.15, kT = 1.3;
    EngineSettings hot{1.0};
    EngineSettings held{1.0};
    held.shear_temperature = kT;
    Engine<D> free(sheared_box<D>(length, rate), random_gas<D>(length, n, 8), hot);
    Engine<D> kept(sheared_box<D>(length, rate), random_gas<D>(length, n, 8), held);
    // the peculiar kT less the drift of the whole fluid along x (which the thermostat
    // takes off, and the sliding drives as a random walk)
    auto temperature = [&](const Engine<D>& e) {
        double px = 0.0;
        for (const auto& q : e.snapshot(e.time()).state) px += q.v[0];
        return 2.0 * (peculiar_energy(e) - 0.5 * px * px / n) / (D * n);
    };
    const double start = temperature(kept);
    for (int k = 1; k <= 20; ++k) {
        free.run(k * 2.0, ~0ull, ~0ull);
        kept.run(k * 2.0, ~0ull, ~0ull);
        if (kept.tally().collisions > 10u * n) // after the first thermostat
            CHECK(temperature(kept) == doctest::Approx(kT).epsilon(0.1));
    }
    CHECK(temperature(free) > 1.25 * start);
    kept.check_conservation();
    CHECK(kept.tally().collisions > 40u * n);
}

TEST_CASE("sliding boundaries: the thermostat holds the peculiar temperature") {
    thermostat_holds<2>(Vec<2>{{14.0, 14.0}}, 100);
    thermostat_holds<3>(Vec<3>{{7.0, 7.0, 7.0}}, 100);
}

// An inelastic gas, sheared fast and thermostatted: a pair that has just collided separates
// slowly, and a rescaling (which does not scale the flow's part of their relative velocity)
// can turn it round at once; the engine must then see it approach (the soak scan found
// overlaps when the just-collided exclusion outlived the rescaling). The runtime checks
// throw on an overlap or a missed contact.
template <int D>
void thermostat_inelastic(const Vec<D>& length, int n, double rate, unsigned seed) {
    EngineSettings s{0.1};
    s.shear_temperature = 1.0;
    Engine<D> engine(sheared_box<D>(length, rate), random_gas<D>(length, n, seed), s);
    CHECK_NOTHROW(engine.run(choc::never, 400u * n, ~0ull));
    CHECK(engine.tally().collisions == 400u * n);
    engine.check_conservation();
}

// (without the fix every one of these overlapped within its 400 N collisions)
TEST_CASE("sliding boundaries: the thermostat with slowly separating inelastic pairs") {
    for (unsigned seed = 1; seed <= 3; ++seed) {
        thermostat_inelastic<2>(Vec<2>{{6.0, 6.0}}, 10, 0.3, seed);
        thermostat_inelastic<3>(Vec<3>{{5.2, 5.2, 5.2}}, 40, -0.45, seed);
    }
}

} // namespace test_sliding
