// The group rule against exact results (the three-disc example, a wall and a pair),
// conservation and restitution laws on random clusters, the binary rule, independence of
// the listing order, and singular geometries.
//
// Tolerances. Gauss–Jordan with full pivoting is backward stable: every equation of the
// system (momentum per body, restitution and no tangential impulse per contact) is met
// to a residual of at most 16 n eps times the size of its terms, n = D (N + K) <= 3 (8 +
// 9) = 51 here, so 16 n eps < 2e-13: `tight` = 1e-12 of the group's scale (speeds V,
// momenta m V, energies m V^2). Those residual checks do not depend on the condition
// number. Exact values (-1/3, 2/3, 2/3) are off by at most kappa times that; the small
// systems there have kappa of order 10, so the same 1e-12 holds with margin.
// Admissibility is judged with the rule's own tolerances (1e-9 of the scale).
#include <doctest/doctest.h>

#include "random_vectors.hpp"

#include <choc/kernel/collide.hpp>
#include <choc/kernel/group_rule.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace test_group_rule {

using namespace choc;

namespace {

constexpr double tight = 1e-12;
constexpr double loose = 1e-9; // GroupTolerances' approach and impulse defaults
constexpr double wall_mass = std::numeric_limits<double>::infinity();

template <int D>
struct Group {
    std::vector<Vec<D>> positions; // only to build normals and check geometry
    std::vector<GroupBody<D>> bodies;
    std::vector<GroupContact<D>> contacts;
};

template <int D>
GroupContact<D> contact_between(const Group<D>& g, std::uint32_t a, std::uint32_t b, double e) {
    GroupContact<D> c;
    c.a = a;
    c.b = b;
    const Vec<D> r = g.positions[a] - g.positions[b];
    c.normal = r * (1.0 / norm(r));
    c.restitution = e;
    return c;
}

// Three unit discs of mass 1: disc 0 moving at speed 1 along x with impact parameter b
// towards disc 1 at the origin, which touches disc 2 at (2, 0).
Group<2> three_discs(double b, double e) {
    Group<2> g;
    g.positions = {Vec<2>{{-std::sqrt(4.0 - b * b), b}}, Vec<2>{{0.0, 0.0}}, Vec<2>{{2.0, 0.0}}};
    g.bodies = {{Vec<2>{{1.0, 0.0}}, 1.0}, {Vec<2>{}, 1.0}, {Vec<2>{}, 1.0}};
    g.contacts = {contact_between(g, 0, 1, e), contact_between(g, 1, 2, e)};
    return g;
}

template <int D>
double kinetic(const std::vector<GroupBody<D>>& bodies, const std::vector<Vec<D>>& v) {
    double e = 0.0;
    for (std::size_t i = 0; i < bodies.size(); ++i)
        if (!bodies[i].is_wall()) e += 0.5 * bodies[i].mass * norm2(v[i]);
    return e;
}

template <int D>
double approach(const std::vector<Vec<D>>& v, const GroupContact<D>& c) {
    return dot(v[c.a] - v[c.b], c.normal);
}

// Scales of a group: the largest relative contact speed and the heaviest finite mass.
template <int D>
double speed_scale(const Group<D>& g) {
    double s = 0.0;
    for (const auto& c : g.contacts)
        s = std::max(s, norm(g.bodies[c.a].velocity - g.bodies[c.b].velocity));
    return s;
}
template <int D>
double heaviest(const Group<D>& g) {
    double m = 0.0;
    for (const auto& body : g.bodies)
        if (!body.is_wall()) m = std::max(m, body.mass);
    return m;
}

// Every law the rule promises, whatever path it took.
template <int D>
void check_laws(const Group<D>& g, const GroupResult<D>& out) {
    const double V = speed_scale(g), P = V * heaviest(g);
    double E = 0.0, S = 0.0; // energy and speed scales including the answer
    for (std::size_t i = 0; i < g.bodies.size(); ++i) {
        S = std::max({S, norm(g.bodies[i].velocity), norm(out.velocities[i])});
        if (!g.bodies[i].is_wall())
            E += 0.5 * g.bodies[i].mass * (norm2(g.bodies[i].velocity) + norm2(out.velocities[i]));
    }
    REQUIRE(out.velocities.size() == g.bodies.size());
    REQUIRE(out.impulses.size() == g.contacts.size());
    for (const auto& v : out.velocities)
        for (int x = 0; x < D; ++x) REQUIRE(std::isfinite(v[x]));
    // Momentum per body: m_i (v_i' - v_i) = sum of the impulses it received; walls fixed.
    for (std::size_t i = 0; i < g.bodies.size(); ++i) {
        CAPTURE(i);
        Vec<D> received;
        for (std::size_t k = 0; k < g.contacts.size(); ++k) {
            if (g.contacts[k].a == i) received += out.impulses[k];
            if (g.contacts[k].b == i) received -= out.impulses[k];
        }
        if (g.bodies[i].is_wall()) {
            CHECK(out.velocities[i] == g.bodies[i].velocity);
        } else {
            const Vec<D> dp = g.bodies[i].mass * (out.velocities[i] - g.bodies[i].velocity);
            CHECK(norm(dp - received) <= tight * heaviest(g) * S);
        }
    }
    for (std::size_t k = 0; k < g.contacts.size(); ++k) {
        CAPTURE(k);
        const auto& c = g.contacts[k];
        const double lambda = dot(out.impulses[k], c.normal);
        // Impulses along the normal, never pulling; no contact left approaching.
        CHECK(norm(out.impulses[k] - c.normal * lambda) <= tight * P + tight * std::abs(lambda));
        CHECK(lambda >= -loose * P);
        CHECK(approach(out.velocities, c) >= -loose * V);
    }
    // Energy: the reported change, and never created.
    const double e0 = kinetic(g.bodies, [&] {
        std::vector<Vec<D>> v;
        for (const auto& body : g.bodies) v.push_back(body.velocity);
        return v;
    }());
    const double e1 = kinetic(g.bodies, out.velocities);
    CHECK(std::abs((e1 - e0) - out.energy_change) <= tight * E);
    CHECK(out.energy_change <= tight * E);
}

// One-round answers also obey the per-contact laws exactly: an active contact leaves at
// -e u, an inactive one carries no impulse, and dE = -sum lambda (1 - e) |u| / 2.
template <int D>
void check_single_round(const Group<D>& g, const GroupResult<D>& out) {
    const double V = speed_scale(g), P = V * heaviest(g);
    double predicted = 0.0, E = 0.0;
    for (const auto& body : g.bodies)
        if (!body.is_wall()) E += 0.5 * body.mass * norm2(body.velocity);
    std::vector<Vec<D>> v0;
    for (const auto& body : g.bodies) v0.push_back(body.velocity);
    for (std::size_t k = 0; k < g.contacts.size(); ++k) {
        CAPTURE(k);
        const auto& c = g.contacts[k];
        const double lambda = dot(out.impulses[k], c.normal);
        const double u0 = approach(v0, c), u1 = approach(out.velocities, c);
        if (lambda > loose * P) CHECK(std::abs(u1 + c.restitution * u0) <= tight * V);
        if (u0 > loose * V) CHECK(std::abs(lambda) <= tight * P); // separating: left alone
        predicted -= lambda * (1.0 - c.restitution) * std::max(-u0, 0.0) / 2.0;
    }
    CHECK(std::abs(out.energy_change - predicted) <= tight * E);
}

// A random cluster whose contact graph is a tree (never singular): each new disc touches
// a random earlier one, at a random angle, and overlaps none. Some get a wall contact.
template <int D>
Group<D> random_tree(RandomVectors& rnd, int n, bool walls, bool one_e) {
    Group<D> g;
    const double e_all = rnd.uniform(0.0, 1.0);
    auto e = [&] { return one_e ? e_all : rnd.uniform(0.0, 1.0); };
    g.positions.push_back(Vec<D>{});
    g.bodies.push_back({rnd.vec<D>(1.0), std::pow(10.0, rnd.uniform(-1.0, 1.0))});
    while (static_cast<int>(g.positions.size()) < n) {
        const auto parent = static_cast<std::uint32_t>(rnd.bits() % g.positions.size());
        const Vec<D> x = g.positions[parent] + rnd.unit<D>() * 2.0; // unit radii
        bool clear = true;
        for (std::size_t j = 0; j < g.positions.size(); ++j)
            if (j != parent && norm(x - g.positions[j]) < 2.0 + 1e-3) clear = false;
        if (!clear) continue;
        g.positions.push_back(x);
        g.bodies.push_back({rnd.vec<D>(1.0), std::pow(10.0, rnd.uniform(-1.0, 1.0))});
        g.contacts.push_back(
            contact_between(g, static_cast<std::uint32_t>(g.positions.size() - 1), parent, e()));
    }
    if (walls) {
        // A wall touching body 0, on a random side: a body of infinite mass, at rest.
        const Vec<D> n = rnd.unit<D>();
        g.positions.push_back(g.positions[0] - n); // (the wall's contact point)
        g.bodies.push_back({Vec<D>{}, wall_mass});
        GroupContact<D> c;
        c.a = 0;
        c.b = static_cast<std::uint32_t>(g.bodies.size() - 1);
        c.normal = n;
        c.restitution = e();
        g.contacts.push_back(c);
    }
    return g;
}

} // namespace

TEST_CASE("group rule: the three-disc example, b = 0") {
    // Along the line of centres, e = 1: (-1/3, 2/3, 2/3); e = 1/2: (0, 1/2, 1/2).
    struct Expected {
        double e, v0, v1, v2;
    };
    for (const Expected x :
         {Expected{1.0, -1.0 / 3, 2.0 / 3, 2.0 / 3}, Expected{0.5, 0.0, 0.5, 0.5}}) {
        CAPTURE(x.e);
        const Group<2> g = three_discs(0.0, x.e);
        const auto out = resolve_group<2>(g.bodies, g.contacts);
        CHECK_FALSE(out.singular);
        CHECK_FALSE(out.fallback);
        CHECK(out.rounds == 1);
        CHECK(std::abs(out.velocities[0][0] - x.v0) <= tight);
        CHECK(std::abs(out.velocities[1][0] - x.v1) <= tight);
        CHECK(std::abs(out.velocities[2][0] - x.v2) <= tight);
        for (int i = 0; i < 3; ++i) CHECK(std::abs(out.velocities[i][1]) <= tight);
        check_laws(g, out);
        check_single_round(g, out);
        // e = 1/2: lost energy = lambda (1 - e) u / 2 = 1 * 1/2 * 1 / 2 = 1/4 of 1/2.
        if (x.e == 0.5) CHECK(std::abs(out.energy_change + 0.25) <= tight);
        if (x.e == 1.0) CHECK(std::abs(out.energy_change) <= tight);
    }
}

TEST_CASE("group rule: the three-disc example, b = 0.5") {
    for (const double e : {1.0, 0.5}) {
        CAPTURE(e);
        const Group<2> g = three_discs(0.5, e);
        const auto out = resolve_group<2>(g.bodies, g.contacts);
        CHECK_FALSE(out.fallback);
        check_laws(g, out);
        if (out.rounds == 1) check_single_round(g, out);
        if (e == 1.0) CHECK(std::abs(out.energy_change) <= tight);
        // The struck disc and its neighbour leave together along the line of centres
        // (the pair 1-2 is at rest and stays in contact): equal x velocities, and disc 2
        // gets no y velocity (its only impulse is along x).
        CHECK(std::abs(out.velocities[1][0] - out.velocities[2][0]) <= tight);
        CHECK(std::abs(out.velocities[2][1]) <= tight);
    }
}

TEST_CASE("group rule: a disc against a wall, then its neighbour (two rounds)") {
    // 1D along x: wall | disc 0 (moving into the wall at speed 1) | disc 1 at rest,
    // touching. Disc 0 bounces off the wall, then hits disc 1 an instant later: with
    // equal masses and e = 1 it stops and disc 1 leaves at speed 1.
    Group<2> g;
    g.bodies = {{Vec<2>{{-1.0, 0.0}}, 1.0}, {Vec<2>{}, 1.0}, {Vec<2>{}, wall_mass}};
    GroupContact<2> wall_contact{0, 2, Vec<2>{{1.0, 0.0}}, 1.0};
    GroupContact<2> pair{1, 0, Vec<2>{{1.0, 0.0}}, 1.0};
    g.contacts = {wall_contact, pair};
    const auto out = resolve_group<2>(g.bodies, g.contacts);
    CHECK(out.rounds == 2);
    CHECK_FALSE(out.fallback);
    CHECK(std::abs(out.velocities[0][0]) <= tight);
    CHECK(std::abs(out.velocities[1][0] - 1.0) <= tight);
    CHECK(out.velocities[2] == Vec<2>{});
    // The wall gave 2 (twice the momentum), the pair passed 1 on.
    CHECK(std::abs(out.impulses[0][0] - 2.0) <= tight); // received by disc 0 (a) from the wall
    CHECK(std::abs(out.impulses[1][0] - 1.0) <= tight);
    check_laws(g, out);
}

TEST_CASE_TEMPLATE("group rule: random clusters obey every law", DT, std::integral_constant<int, 2>,
                   std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    RandomVectors rnd(31 + D);
    int single_round = 0, total = 0;
    for (int trial = 0; trial < 400; ++trial) {
        CAPTURE(trial);
        const int n = 3 + static_cast<int>(rnd.bits() % 6);
        const bool one_e = trial % 2 == 0;
        const Group<D> g = random_tree<D>(rnd, n, trial % 3 == 0, one_e);
        const auto out = resolve_group<D>(g.bodies, g.contacts);
        CHECK_FALSE(out.singular); // trees (plus one wall contact) have independent normals
        check_laws(g, out);
        ++total;
        if (out.rounds == 1 && !out.fallback) {
            ++single_round;
            check_single_round(g, out);
        }
    }
    // The per-contact laws must have been checked on a good share of the cases.
    CHECK(single_round > total / 4);
}

TEST_CASE_TEMPLATE("group rule: elastic random clusters conserve energy", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    RandomVectors rnd(41 + D);
    int checked = 0;
    for (int trial = 0; trial < 300; ++trial) {
        CAPTURE(trial);
        Group<D> g =
            random_tree<D>(rnd, 3 + static_cast<int>(rnd.bits() % 6), trial % 2 == 0, true);
        for (auto& c : g.contacts) c.restitution = 1.0;
        const auto out = resolve_group<D>(g.bodies, g.contacts);
        check_laws(g, out);
        if (out.fallback) continue; // the plastic fallback loses energy by design
        ++checked;
        double E = 0.0;
        for (const auto& body : g.bodies)
            if (!body.is_wall()) E += 0.5 * body.mass * norm2(body.velocity);
        CHECK(std::abs(out.energy_change) <= tight * E);
    }
    CHECK(checked > 250);
}

TEST_CASE_TEMPLATE("group rule: one contact through the linear system = the binary rule", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    RandomVectors rnd(51 + D);
    GroupTolerances system;
    system.pair_closed_form = false;
    for (int trial = 0; trial < 500; ++trial) {
        CAPTURE(trial);
        const Vec<D> n = rnd.unit<D>();
        const double e = rnd.uniform(0.0, 1.0);
        const bool wall = trial % 4 == 0;
        std::vector<GroupBody<D>> bodies = {
            {rnd.vec<D>(1.0), std::pow(10.0, rnd.uniform(-2.0, 2.0))},
            {wall ? Vec<D>{} : rnd.vec<D>(1.0),
             wall ? wall_mass : std::pow(10.0, rnd.uniform(-2.0, 2.0))}};
        // Approaching: u = (v_a - v_b).n < 0 (a wall is at rest, so flipping v_a does it).
        if (dot(bodies[0].velocity - bodies[1].velocity, n) > 0) {
            if (wall)
                bodies[0].velocity = -bodies[0].velocity;
            else
                std::swap(bodies[0].velocity, bodies[1].velocity);
        }
        const std::vector<GroupContact<D>> contacts = {{0, 1, n, e}};
        const auto closed = resolve_group<D>(bodies, contacts);
        const auto solved = resolve_group<D>(bodies, contacts, system);
        // The closed form itself, straight from collide.hpp.
        Vec<D> va = bodies[0].velocity, vb = bodies[1].velocity;
        if (wall) {
            Wall<D> w;
            w.normal = n;
            w.restitution = e;
            wall_collision(w, va, bodies[0].mass);
        } else {
            binary_collision(n, va, vb, bodies[0].mass, bodies[1].mass, e);
        }
        const double V = norm(bodies[0].velocity) + norm(bodies[1].velocity);
        CHECK(closed.velocities[0] == va);
        CHECK(closed.velocities[1] == vb);
        CHECK(norm(solved.velocities[0] - va) <= tight * V);
        CHECK(norm(solved.velocities[1] - vb) <= tight * V);
        CHECK(norm(solved.impulses[0] - closed.impulses[0]) <=
              tight * V * heaviest(Group<D>{{}, bodies, contacts}));
    }
}

TEST_CASE_TEMPLATE("group rule: the answer does not depend on the listing order", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    RandomVectors rnd(61 + D);
    int compared = 0;
    for (int trial = 0; trial < 200; ++trial) {
        CAPTURE(trial);
        const Group<D> g =
            random_tree<D>(rnd, 3 + static_cast<int>(rnd.bits() % 6), trial % 3 == 0, false);
        const auto out = resolve_group<D>(g.bodies, g.contacts);
        // Shuffle bodies (renumbering the contacts' ends) and contacts; swap a and b of
        // some contacts (flipping the normal and the impulse's sign).
        std::vector<std::uint32_t> body_order(g.bodies.size()), contact_order(g.contacts.size());
        std::iota(body_order.begin(), body_order.end(), 0u);
        std::iota(contact_order.begin(), contact_order.end(), 0u);
        for (std::size_t i = body_order.size(); i > 1; --i)
            std::swap(body_order[i - 1], body_order[rnd.bits() % i]);
        for (std::size_t i = contact_order.size(); i > 1; --i)
            std::swap(contact_order[i - 1], contact_order[rnd.bits() % i]);
        std::vector<std::uint32_t> new_index(g.bodies.size());
        Group<D> h;
        for (std::uint32_t i = 0; i < body_order.size(); ++i) {
            new_index[body_order[i]] = i;
            h.bodies.push_back(g.bodies[body_order[i]]);
        }
        std::vector<bool> flipped;
        for (std::uint32_t k : contact_order) {
            GroupContact<D> c = g.contacts[k];
            c.a = new_index[c.a];
            c.b = new_index[c.b];
            flipped.push_back(rnd.bits() % 2 == 0);
            if (flipped.back()) std::swap(c.a, c.b), c.normal = -c.normal;
            h.contacts.push_back(c);
        }
        const auto shuffled = resolve_group<D>(h.bodies, h.contacts);
        check_laws(h, shuffled);
        if (out.fallback || shuffled.fallback) continue; // sequential: order of ties
        ++compared;
        const double V = speed_scale(g), P = V * heaviest(g);
        for (std::uint32_t i = 0; i < body_order.size(); ++i)
            CHECK(norm(shuffled.velocities[i] - out.velocities[body_order[i]]) <= tight * V);
        for (std::size_t p = 0; p < contact_order.size(); ++p) {
            const Vec<D> j = flipped[p] ? -shuffled.impulses[p] : shuffled.impulses[p];
            CHECK(norm(j - out.impulses[contact_order[p]]) <= tight * P);
        }
    }
    CHECK(compared > 150);
}

TEST_CASE("group rule: singular geometries give a finite admissible answer") {
    // A disc against two walls through the same point with the same normal: dependent
    // contacts, consistent (same e). Velocities are unique: v_n -> -e v_n.
    Group<2> twin;
    twin.bodies = {{Vec<2>{{0.3, -2.0}}, 2.0}, {Vec<2>{}, wall_mass}, {Vec<2>{}, wall_mass}};
    twin.contacts = {{0, 1, Vec<2>{{0.0, 1.0}}, 0.5}, {0, 2, Vec<2>{{0.0, 1.0}}, 0.5}};
    auto out = resolve_group<2>(twin.bodies, twin.contacts);
    CHECK(out.singular);
    CHECK_FALSE(out.fallback);
    CHECK(std::abs(out.velocities[0][1] - 1.0) <= tight);
    CHECK(std::abs(out.velocities[0][0] - 0.3) <= tight);
    check_laws(twin, out);

    // The same with two different e: inconsistent, so the plastic fallback: v_n -> 0.
    twin.contacts[1].restitution = 1.0;
    out = resolve_group<2>(twin.bodies, twin.contacts);
    CHECK(out.fallback);
    CHECK(std::abs(out.velocities[0][1]) <= tight);
    CHECK(std::abs(out.velocities[0][0] - 0.3) <= tight);
    check_laws(twin, out);

    // A disc touching two parallel walls, e = 1: it would bounce between them forever at
    // zero distance. The fallback stops it along the normal, keeps the tangential part.
    Group<2> slot;
    slot.bodies = {{Vec<2>{{0.5, 1.0}}, 1.0}, {Vec<2>{}, wall_mass}, {Vec<2>{}, wall_mass}};
    slot.contacts = {{0, 1, Vec<2>{{0.0, 1.0}}, 1.0}, {0, 2, Vec<2>{{0.0, -1.0}}, 1.0}};
    out = resolve_group<2>(slot.bodies, slot.contacts);
    CHECK(out.fallback);
    CHECK_FALSE(out.unresolved);
    CHECK(std::abs(out.velocities[0][1]) <= tight);
    CHECK(std::abs(out.velocities[0][0] - 0.5) <= tight);
    check_laws(slot, out);

    // A hexagonal shell of six touching discs around a seventh: 12 contacts, 14 velocity
    // unknowns less 3 rigid motions = 11 independent normals at most. With the shell
    // falling in radially every contact approaches, so all 12 are active: singular but
    // consistent (one e), and the velocities are unique: the shell leaves at e times its
    // speed, the centre stays at rest.
    for (const double e : {1.0, 0.5}) {
        CAPTURE(e);
        Group<2> hex;
        hex.positions.push_back(Vec<2>{});
        hex.bodies.push_back({Vec<2>{}, 1.0});
        for (int s = 0; s < 6; ++s) {
            const double angle = s * std::acos(-1.0) / 3.0;
            hex.positions.push_back(Vec<2>{{2.0 * std::cos(angle), 2.0 * std::sin(angle)}});
            hex.bodies.push_back({hex.positions.back() * -0.5, 1.0});
        }
        for (std::uint32_t s = 1; s <= 6; ++s) {
            hex.contacts.push_back(contact_between(hex, s, 0, e));
            hex.contacts.push_back(contact_between(hex, s, s % 6 + 1, e));
        }
        out = resolve_group<2>(hex.bodies, hex.contacts);
        CHECK(out.singular);
        CHECK_FALSE(out.fallback);
        CHECK(norm(out.velocities[0]) <= tight);
        for (std::size_t s = 1; s <= 6; ++s)
            CHECK(norm(out.velocities[s] - hex.positions[s] * (0.5 * e)) <= tight);
        check_laws(hex, out);
    }
    // Random velocities on the same shell: whatever the active set, a lawful answer.
    RandomVectors rnd(71);
    for (int trial = 0; trial < 50; ++trial) {
        CAPTURE(trial);
        Group<2> hex;
        hex.positions.push_back(Vec<2>{});
        for (int s = 0; s < 6; ++s) {
            const double angle = s * std::acos(-1.0) / 3.0;
            hex.positions.push_back(Vec<2>{{2.0 * std::cos(angle), 2.0 * std::sin(angle)}});
        }
        for (std::size_t i = 0; i < 7; ++i) hex.bodies.push_back({rnd.vec<2>(1.0), 1.0});
        for (std::uint32_t s = 1; s <= 6; ++s) {
            hex.contacts.push_back(contact_between(hex, s, 0, 1.0));
            hex.contacts.push_back(contact_between(hex, s, s % 6 + 1, 1.0));
        }
        out = resolve_group<2>(hex.bodies, hex.contacts);
        check_laws(hex, out);
    }
}

TEST_CASE("group rule: malformed groups are refused") {
    const std::vector<GroupBody<2>> bodies = {
        {Vec<2>{}, 1.0}, {Vec<2>{}, wall_mass}, {Vec<2>{}, wall_mass}};
    using Contacts = std::vector<GroupContact<2>>;
    const Vec<2> x{{1.0, 0.0}};
    CHECK_THROWS_AS(resolve_group<2>(bodies, Contacts{{0, 3, x, 1.0}}), std::invalid_argument);
    CHECK_THROWS_AS(resolve_group<2>(bodies, Contacts{{0, 0, x, 1.0}}), std::invalid_argument);
    CHECK_THROWS_AS(resolve_group<2>(bodies, Contacts{{1, 2, x, 1.0}}), std::invalid_argument);
    CHECK_THROWS_AS(resolve_group<2>(bodies, Contacts{{0, 1, x * 2.0, 1.0}}),
                    std::invalid_argument);
    const std::vector<GroupBody<2>> massless = {{Vec<2>{}, 0.0}, {Vec<2>{}, 1.0}};
    CHECK_THROWS_AS(resolve_group<2>(massless, Contacts{{0, 1, x, 1.0}}), std::invalid_argument);
}

TEST_CASE("group rule: one solver reused across groups of different sizes") {
    // The engine keeps one GroupSolver; its workspace must carry nothing from one group
    // to the next. Same inputs, same outputs, bit for bit, as a fresh solver.
    RandomVectors rnd(81);
    GroupSolver<3> reused;
    for (int trial = 0; trial < 50; ++trial) {
        CAPTURE(trial);
        const Group<3> g =
            random_tree<3>(rnd, 2 + static_cast<int>(rnd.bits() % 7), trial % 2 == 0, false);
        const auto again = reused.resolve(g.bodies, g.contacts);
        const auto fresh = resolve_group<3>(g.bodies, g.contacts);
        CHECK(again.velocities == fresh.velocities);
        CHECK(again.impulses == fresh.impulses);
    }
}

// ---- Large groups: the sparse Delassus solve (group_rule.hpp, sparse_ldlt.hpp) ----------
//
// Sparse against dense. Both solve the same full-rank system backward stably, so their
// answers differ by at most kappa times the backward error (~1e-13 of the scale, above).
// kappa is that of the Delassus matrix A = J M^-1 J^T (the dense system's is of the
// same order): for a chain of K equal discs it is the path graph's ~4 K^2 / pi^2 ~ 2e4
// at K = 200, masses spread over [0.1, 10] multiply it by at most 100. So `agree` =
// 1e-7 of the speed scale bounds the difference with margin, and still catches any
// error in the sparse assembly (a wrong sign or entry moves velocities by O(V)). The
// active-set decisions (impulse < -1e-9 P) are the same on both paths unless an impulse
// falls within 1e-7 of that threshold; the seeded cases below do not.
namespace {

constexpr double agree = 1e-7;

GroupTolerances dense_only() {
    GroupTolerances t;
    t.sparse_from = std::numeric_limits<std::size_t>::max();
    return t;
}
GroupTolerances sparse_always() {
    GroupTolerances t;
    t.sparse_from = 2;
    return t;
}

// A striker hitting a chain of n touching bodies, each the previous one's neighbour at a
// random angle within `bend` of the line (0: collinear); random masses in [0.1, 10] or
// all 1; optionally a wall behind the last body.
template <int D>
Group<D> chain(RandomVectors& rnd, int n, double bend, bool masses, bool wall, double e) {
    Group<D> g;
    Vec<D> x{};
    Vec<D> axis{};
    axis[0] = 1.0;
    for (int k = 0; k <= n; ++k) {
        if (k > 0) {
            Vec<D> step = axis + rnd.unit<D>() * bend;
            x += step * (2.0 / norm(step));
        }
        g.positions.push_back(x);
        Vec<D> v{};
        if (k == 0) v[0] = 1.0;
        g.bodies.push_back({v, masses ? std::pow(10.0, rnd.uniform(-1.0, 1.0)) : 1.0});
        if (k > 0)
            g.contacts.push_back(contact_between(g, static_cast<std::uint32_t>(k),
                                                 static_cast<std::uint32_t>(k - 1), e));
    }
    if (wall) {
        g.positions.push_back(x + axis);
        g.bodies.push_back({Vec<D>{}, wall_mass});
        GroupContact<D> c;
        c.a = static_cast<std::uint32_t>(n);
        c.b = static_cast<std::uint32_t>(n + 1);
        c.normal = axis * -1.0;
        c.restitution = e;
        g.contacts.push_back(c);
    }
    return g;
}

// Unit discs/spheres on a simple square/cubic lattice of side `side` (spacing 2: every
// nearest neighbour touches, so the contact graph has cycles), random velocities; walls
// along the faces x = min and x = max if asked. Full rank: the contacts along one axis
// constrain only that velocity component, and along one line of the lattice they are
// the independent differences of its bodies.
template <int D>
Group<D> lattice(RandomVectors& rnd, int side, bool walls, double e) {
    Group<D> g;
    const int count = D == 2 ? side * side : side * side * side;
    auto index = [&](std::array<int, 3> c) {
        return static_cast<std::uint32_t>(c[0] + side * (c[1] + side * c[2]));
    };
    for (int i = 0; i < count; ++i) {
        std::array<int, 3> c{i % side, (i / side) % side, D == 3 ? i / (side * side) : 0};
        Vec<D> x;
        for (int a = 0; a < D; ++a) x[a] = 2.0 * c[static_cast<std::size_t>(a)];
        g.positions.push_back(x);
        g.bodies.push_back({rnd.vec<D>(1.0), std::pow(10.0, rnd.uniform(-0.5, 0.5))});
    }
    for (int i = 0; i < count; ++i) {
        std::array<int, 3> c{i % side, (i / side) % side, D == 3 ? i / (side * side) : 0};
        for (int a = 0; a < D; ++a) {
            auto d = c;
            if (++d[static_cast<std::size_t>(a)] >= side) continue;
            g.contacts.push_back(contact_between(g, index(d), index(c), e));
        }
        if (walls && (c[0] == 0 || c[0] == side - 1)) {
            g.positions.push_back(g.positions[static_cast<std::size_t>(i)]);
            g.bodies.push_back({Vec<D>{}, wall_mass});
            GroupContact<D> w;
            w.a = static_cast<std::uint32_t>(i);
            w.b = static_cast<std::uint32_t>(g.bodies.size() - 1);
            w.normal[0] = c[0] == 0 ? 1.0 : -1.0;
            w.restitution = e;
            g.contacts.push_back(w);
        }
    }
    return g;
}

// n unit discs on a circle, each touching its two neighbours: one closed loop of n
// contacts (2n unknown velocity components: full rank), falling inwards or at random.
Group<2> ring(RandomVectors& rnd, int n, bool inwards, double e) {
    Group<2> g;
    const double pi = std::acos(-1.0);
    const double radius = 1.0 / std::sin(pi / n); // neighbours 2 apart
    for (int k = 0; k < n; ++k) {
        const double a = 2.0 * pi * k / n;
        g.positions.push_back(Vec<2>{{radius * std::cos(a), radius * std::sin(a)}});
        g.bodies.push_back({inwards ? g.positions.back() * (-1.0 / radius) : rnd.vec<2>(1.0), 1.0});
    }
    for (int k = 0; k < n; ++k)
        g.contacts.push_back(contact_between(g, static_cast<std::uint32_t>(k),
                                             static_cast<std::uint32_t>((k + 1) % n), e));
    return g;
}

// n unit discs on a triangular lattice (rows of `side`): about 3 contacts per disc
// against 2 velocity components, so the all-active system is rank-deficient. Masses 1,
// or random in [0.1, 10]; with `walls`, a wall under the bottom row and one left of the
// discs of the first column that touch it (a pile in the corner of a box).
Group<2> triangular(RandomVectors& rnd, int side, double e, bool masses = false,
                    bool walls = false) {
    Group<2> g;
    for (int r = 0; r < side; ++r)
        for (int c = 0; c < side; ++c) {
            g.positions.push_back(Vec<2>{{2.0 * c + (r % 2), std::sqrt(3.0) * r}});
            g.bodies.push_back({rnd.vec<2>(1.0), masses ? rnd.uniform(0.1, 10.0) : 1.0});
        }
    for (std::uint32_t i = 0; i < g.positions.size(); ++i)
        for (std::uint32_t j = 0; j < i; ++j)
            if (std::abs(norm(g.positions[i] - g.positions[j]) - 2.0) < 1e-12)
                g.contacts.push_back(contact_between(g, i, j, e));
    if (walls) {
        const std::size_t discs = g.positions.size();
        for (std::uint32_t i = 0; i < discs; ++i)
            for (const Vec<2> n : {Vec<2>{{0.0, 1.0}}, Vec<2>{{1.0, 0.0}}}) {
                if (dot(g.positions[i], n) != 0.0) continue; // not touching that wall
                g.positions.push_back(g.positions[i] - n);
                g.bodies.push_back({Vec<2>{}, wall_mass});
                GroupContact<2> w;
                w.a = i;
                w.b = static_cast<std::uint32_t>(g.bodies.size() - 1);
                w.normal = n;
                w.restitution = e;
                g.contacts.push_back(w);
            }
    }
    return g;
}

// The sequential plastic fallback written as the header describes it, with a plain scan
// for the most approaching contact (the lowest index among equals): the reference for
// the solver's tournament tree, which must choose the same contacts in the same order.
template <int D>
std::vector<Vec<D>> sequential_by_scan(const Group<D>& g, double approach_tolerance) {
    std::vector<Vec<D>> v;
    for (const auto& body : g.bodies) v.push_back(body.velocity);
    const double floor = approach_tolerance * speed_scale(g);
    for (;;) {
        std::size_t worst = 0;
        double u_worst = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < g.contacts.size(); ++k) {
            const double u = approach(v, g.contacts[k]);
            if (u < u_worst) u_worst = u, worst = k;
        }
        if (!(u_worst < -floor)) return v;
        const GroupContact<D>& c = g.contacts[worst];
        const double inv_a = g.bodies[c.a].inverse_mass(), inv_b = g.bodies[c.b].inverse_mass();
        const Vec<D> impulse = c.normal * (-u_worst / (inv_a + inv_b));
        v[c.a] += impulse * inv_a;
        v[c.b] -= impulse * inv_b;
    }
}

template <int D>
void check_agree(const Group<D>& g, const GroupResult<D>& sparse, const GroupResult<D>& dense) {
    const double V = speed_scale(g), P = V * heaviest(g);
    REQUIRE(sparse.fallback == dense.fallback);
    for (std::size_t i = 0; i < g.bodies.size(); ++i) {
        CAPTURE(i);
        CHECK(norm(sparse.velocities[i] - dense.velocities[i]) <= agree * V);
    }
    // Impulses agree where they are unique (no dependent contacts).
    if (!dense.singular)
        for (std::size_t k = 0; k < g.contacts.size(); ++k) {
            CAPTURE(k);
            CHECK(norm(sparse.impulses[k] - dense.impulses[k]) <= agree * P);
        }
}

} // namespace

TEST_CASE_TEMPLATE("group rule: sparse and dense solves agree on medium groups", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    RandomVectors rnd(91 + D);
    std::vector<Group<D>> groups;
    for (int trial = 0; trial < 3; ++trial) {
        const int n = 50 + 25 * trial; // 50 .. 100 contacts: the dense solve is the cost
        const double e = trial % 2 ? 1.0 : rnd.uniform(0.0, 1.0);
        groups.push_back(chain<D>(rnd, n, 0.0, false, false, e));
        groups.push_back(chain<D>(rnd, n, 0.3, true, trial % 2 == 0, e));
        groups.push_back(random_tree<D>(rnd, n, trial % 2 == 1, trial % 2 == 0));
    }
    groups.push_back(lattice<D>(rnd, D == 2 ? 8 : 4, false, 1.0));
    groups.push_back(lattice<D>(rnd, D == 2 ? 7 : 4, true, 0.7));
    int sparse_solves = 0, compared = 0;
    for (std::size_t t = 0; t < groups.size(); ++t) {
        CAPTURE(t);
        const Group<D>& g = groups[t];
        const auto sparse = resolve_group<D>(g.bodies, g.contacts, sparse_always());
        const auto dense = resolve_group<D>(g.bodies, g.contacts, dense_only());
        CHECK(dense.sparse_solves == 0);
        sparse_solves += sparse.sparse_solves;
        check_laws(g, sparse);
        check_agree(g, sparse, dense);
        ++compared;
    }
    CHECK(compared == 11);
    CHECK(sparse_solves >= 11); // the sparse path did the work, not the dense fallback
}

TEST_CASE("group rule: sparse solve on rings and singular piles") {
    RandomVectors rnd(97);
    for (const int n : {40, 120}) {
        for (const bool inwards : {true, false}) {
            CAPTURE(n);
            CAPTURE(inwards);
            const Group<2> g = ring(rnd, n, inwards, inwards ? 0.8 : 1.0);
            const auto sparse = resolve_group<2>(g.bodies, g.contacts, sparse_always());
            const auto dense = resolve_group<2>(g.bodies, g.contacts, dense_only());
            CHECK(sparse.sparse_solves > 0);
            check_laws(g, sparse);
            check_agree(g, sparse, dense);
            if (inwards) // all approach, symmetric: every disc leaves at -0.8 its speed
                for (std::size_t k = 0; k < g.bodies.size(); ++k)
                    CHECK(norm(sparse.velocities[k] + g.bodies[k].velocity * 0.8) <=
                          agree * speed_scale(g));
        }
    }
    // Triangular piles: the all-active system is singular. The sparse factorisation drops
    // the dependent pivots and gives a basic solution, as the dense elimination does. The
    // velocities of one solve are unique, but the split of the impulses among dependent
    // contacts is not, and with it which contacts the round finds pulling and drops: the
    // two paths take different rounds (here 5 solves against 7, and 10 against 14) to
    // different admissible answers. So each answer is held to every law, not to the other.
    int singular = 0;
    for (const int side : {6, 8}) {
        CAPTURE(side);
        Group<2> g = triangular(rnd, side, 1.0);
        REQUIRE(g.contacts.size() > 2 * g.bodies.size());
        // Squeezed (v = -x about the centre, plus noise on the larger pile): every
        // contact approaches at 2, so the first system holds all of them.
        const Vec<2> centre = g.positions[g.positions.size() / 2];
        for (std::size_t i = 0; i < g.bodies.size(); ++i)
            g.bodies[i].velocity = (centre - g.positions[i]) + rnd.vec<2>(side == 8 ? 0.1 : 0.0);
        const auto sparse = resolve_group<2>(g.bodies, g.contacts, sparse_always());
        const auto dense = resolve_group<2>(g.bodies, g.contacts, dense_only());
        CHECK(sparse.sparse_solves > 0);
        singular += sparse.singular ? 1 : 0;
        check_laws(g, sparse);
        check_laws(g, dense);
    }
    CHECK(singular == 2);
}

TEST_CASE("group rule: large singular piles by the sparse solve") {
    RandomVectors rnd(103);
    // Elastic piles of 900 discs (2581 contacts), equal and random masses: the rounds
    // end without the fallback, so energy is conserved (check_laws: dE = 0 to 1e-12).
    // The dense elimination of one such system would take minutes.
    for (const bool masses : {false, true}) {
        CAPTURE(masses);
        const Group<2> g = triangular(rnd, 30, 1.0, masses);
        const auto out = resolve_group<2>(g.bodies, g.contacts);
        CHECK_FALSE(out.fallback);
        CHECK(out.singular);
        CHECK(out.sparse_solves > 0);
        check_laws(g, out);
        const double E = kinetic(g.bodies, [&] {
            std::vector<Vec<2>> v;
            for (const auto& body : g.bodies) v.push_back(body.velocity);
            return v;
        }());
        CHECK(std::abs(out.energy_change) <= tight * E);
    }
}

TEST_CASE("group rule: the sequential fallback on a large pile chooses as a scan would") {
    RandomVectors rnd(107);
    // An inelastic pile with random masses in the corner of two walls: the rounds do not
    // end within their cap, so the answer is the sequential plastic one (about 1e5
    // steps). The solver finds each step's contact in a tournament tree; the scan of
    // every contact must give the same velocities to the bit.
    const Group<2> g = triangular(rnd, 10, 0.5, true, true);
    const auto out = resolve_group<2>(g.bodies, g.contacts);
    REQUIRE(out.fallback);
    CHECK_FALSE(out.unresolved);
    check_laws(g, out);
    const std::vector<Vec<2>> scanned = sequential_by_scan(g, GroupTolerances{}.approach);
    for (std::size_t i = 0; i < g.bodies.size(); ++i) {
        CAPTURE(i);
        CHECK(out.velocities[i] == scanned[i]);
    }
}

TEST_CASE_TEMPLATE("group rule: large groups by the sparse solve obey every law", DT,
                   std::integral_constant<int, 2>, std::integral_constant<int, 3>) {
    constexpr int D = DT::value;
    RandomVectors rnd(101 + D);
    std::vector<Group<D>> groups;
    groups.push_back(chain<D>(rnd, 5000, 0.0, false, false, 1.0));
    groups.push_back(chain<D>(rnd, 2000, 0.2, true, true, 0.6));
    for (std::size_t t = 0; t < groups.size(); ++t) {
        CAPTURE(t);
        const Group<D>& g = groups[t];
        const auto out = resolve_group<D>(g.bodies, g.contacts); // default threshold
        CHECK(out.sparse_solves == out.solves);
        CHECK_FALSE(out.fallback);
        check_laws(g, out);
    }
    // The straight elastic chain of equal masses: one solve of the whole chain; momentum
    // 1 and energy 1/2 are shared so that every contact separates at -u (Newton's
    // cradle's simultaneous form). The striker's momentum ends in the chain.
    const Group<D>& straight = groups[0];
    const auto out = resolve_group<D>(straight.bodies, straight.contacts);
    Vec<D> p{};
    for (const auto& v : out.velocities) p += v;
    CHECK(std::abs(p[0] - 1.0) <= tight * 5000);
}

} // namespace test_group_rule
