// Group-rule benchmark: the dense elimination against the sparse Delassus solve
// (group_rule.hpp) on one collision group of K contacts, for growing K: a striker
// hitting a straight chain (2D and 3D, e = 1) and a square lattice of touching discs
// with random velocities (cycles, several active-set rounds). Prints the time per
// resolve of each path, the solves it took, and the largest velocity difference between
// the two, relative to the group's speed scale. The crossover of the two times is the
// basis of GroupTolerances::sparse_from.
//
//   build/bench/bench_group            small and medium groups, both paths
//   build/bench/bench_group --large    also chains of 1000 .. 5000 (dense up to 1000)
#include <choc/kernel/group_rule.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace choc;

template <int D>
struct Group {
    std::vector<GroupBody<D>> bodies;
    std::vector<GroupContact<D>> contacts;
};

template <int D>
Group<D> chain(int contacts) {
    Group<D> g;
    for (int k = 0; k <= contacts; ++k) {
        Vec<D> v{};
        if (k == 0) v[0] = 1.0;
        g.bodies.push_back({v, 1.0});
        if (k > 0) {
            GroupContact<D> c;
            c.a = static_cast<std::uint32_t>(k);
            c.b = static_cast<std::uint32_t>(k - 1);
            c.normal[0] = 1.0;
            g.contacts.push_back(c);
        }
    }
    return g;
}

// side x side discs 2 apart, random velocities in [-1, 1]^2.
Group<2> lattice(int side) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Group<2> g;
    for (int i = 0; i < side * side; ++i) g.bodies.push_back({Vec<2>{{u(rng), u(rng)}}, 1.0});
    for (int i = 0; i < side * side; ++i)
        for (int a = 0; a < 2; ++a) {
            const int r = i % side, c = i / side;
            if ((a == 0 ? r : c) + 1 >= side) continue;
            GroupContact<2> contact;
            contact.a = static_cast<std::uint32_t>(i + (a == 0 ? 1 : side));
            contact.b = static_cast<std::uint32_t>(i);
            contact.normal[a] = 1.0;
            g.contacts.push_back(contact);
        }
    return g;
}

template <int D>
double time_resolve(const Group<D>& g, std::size_t sparse_from, GroupResult<D>& out) {
    GroupTolerances t;
    t.sparse_from = sparse_from;
    GroupSolver<D> solver;
    int repeats = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0.0;
    // Repeat for at least 0.2 s (at least once), so small groups are timed well.
    do {
        out = solver.resolve(g.bodies, g.contacts, t);
        ++repeats;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < 0.2);
    return elapsed / repeats;
}

template <int D>
void row(const char* name, const Group<D>& g, bool dense) {
    constexpr std::size_t never = std::numeric_limits<std::size_t>::max();
    GroupResult<D> s, d;
    const double ts = time_resolve(g, 0, s);
    double td = std::numeric_limits<double>::quiet_NaN(), diff = td;
    if (dense) {
        td = time_resolve(g, never, d);
        diff = 0.0;
        for (std::size_t i = 0; i < g.bodies.size(); ++i)
            diff = std::max(diff, norm(s.velocities[i] - d.velocities[i]));
    }
    std::printf("%-10s %6zu %12.6f %12.6f %7d %7d %10.2e\n", name, g.contacts.size(), td * 1e3,
                ts * 1e3, dense ? d.solves : 0, s.solves, diff);
}

} // namespace

int main(int argc, char** argv) {
    const bool large = argc > 1 && std::strcmp(argv[1], "--large") == 0;
    std::printf("%-10s %6s %12s %12s %7s %7s %10s\n", "group", "K", "dense_ms", "sparse_ms",
                "solves", "solves", "max|dv|");
    for (int k : {4, 8, 12, 16, 24, 32, 48, 64, 128, 256}) row("chain2d", chain<2>(k), true);
    for (int k : {4, 8, 12, 16, 24, 32, 48, 64, 128, 256}) row("chain3d", chain<3>(k), true);
    for (int side : {3, 4, 5, 6, 8, 12}) row("lattice2d", lattice(side), true);
    if (large) {
        for (int k : {1000, 2000, 5000}) row("chain2d", chain<2>(k), k <= 1000);
        for (int k : {1000, 2000, 5000}) row("chain3d", chain<3>(k), false);
        for (int side : {30, 50}) row("lattice2d", lattice(side), false);
    }
}
