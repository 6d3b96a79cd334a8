// contact_components: the collision groups of a contact list, against hand-made cases
// (walls must not join groups) and a union-find oracle on random contact lists.
#include <doctest/doctest.h>

#include "random_vectors.hpp"

#include <choc/kernel/contact_graph.hpp>

#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <vector>

namespace test_groups {

using choc::contact_components;
using choc::ContactComponent;
using choc::ContactPair;

namespace {

using Ids = std::vector<std::uint32_t>;

// Union-find with path halving: the obviously right way to get components.
struct UnionFind {
    std::map<std::uint32_t, std::uint32_t> parent;
    std::uint32_t find(std::uint32_t x) {
        parent.try_emplace(x, x);
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    }
    void join(std::uint32_t x, std::uint32_t y) { parent[find(x)] = find(y); }
};

} // namespace

TEST_CASE("contact_components: chains, separate groups and the order of the output") {
    // Contacts 0: 4-7, 1: 7-9, 2: 1-2, 3: 9-4 (a triangle 4-7-9) and a pair 1-2.
    const std::vector<ContactPair> contacts = {{4, 7}, {7, 9}, {1, 2}, {9, 4}};
    const auto groups = contact_components(contacts);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].contacts == Ids{0, 1, 3});
    CHECK(groups[0].bodies == Ids{4, 7, 9});
    CHECK(groups[1].contacts == Ids{2});
    CHECK(groups[1].bodies == Ids{1, 2});
    CHECK(contact_components({}).empty());
}

TEST_CASE("contact_components: a wall does not join the bodies touching it") {
    // Bodies 0 and 1 both touch wall 0, and nothing else: two independent collisions.
    const std::vector<ContactPair> apart = {{0, 0, true}, {1, 0, true}};
    auto groups = contact_components(apart);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].contacts == Ids{0});
    CHECK(groups[0].bodies == Ids{0});
    CHECK(groups[1].contacts == Ids{1});
    CHECK(groups[1].bodies == Ids{1});

    // Body 0 touches wall 3 and body 5; body 5 touches wall 3 too: one group through the
    // pair 0-5, holding both wall contacts. Wall index 5 is not body 5.
    const std::vector<ContactPair> joined = {{0, 3, true}, {0, 5}, {5, 3, true}, {8, 5, true}};
    groups = contact_components(joined);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].contacts == Ids{0, 1, 2});
    CHECK(groups[0].bodies == Ids{0, 5});
    CHECK(groups[1].contacts == Ids{3});
    CHECK(groups[1].bodies == Ids{8});
}

TEST_CASE("contact_components: a body in contact with itself is refused") {
    const std::vector<ContactPair> bad = {{3, 3}};
    CHECK_THROWS_AS(contact_components(bad), std::invalid_argument);
}

TEST_CASE("contact_components: random contact lists against union-find") {
    RandomVectors rnd(21);
    for (int trial = 0; trial < 300; ++trial) {
        CAPTURE(trial);
        const std::uint32_t bodies = 2 + static_cast<std::uint32_t>(rnd.bits() % 40);
        const std::size_t count = rnd.bits() % 60;
        std::vector<ContactPair> contacts;
        UnionFind oracle;
        // Wall contacts get oracle vertices of their own, far above any body id.
        std::uint32_t wall_vertex = 1000;
        for (std::size_t k = 0; k < count; ++k) {
            ContactPair c;
            c.a = static_cast<std::uint32_t>(rnd.bits() % bodies);
            c.wall = rnd.bits() % 4 == 0;
            c.b = static_cast<std::uint32_t>(rnd.bits() % (c.wall ? 3 : bodies));
            if (!c.wall && c.a == c.b) continue;
            contacts.push_back(c);
            oracle.join(c.a, c.wall ? wall_vertex++ : c.b);
        }
        const auto groups = contact_components(contacts);

        // Every contact is in exactly one group, and two contacts share a group exactly
        // when the oracle puts their first bodies in one set.
        std::vector<int> group_of(contacts.size(), -1);
        for (std::size_t g = 0; g < groups.size(); ++g)
            for (std::uint32_t k : groups[g].contacts) {
                CHECK(group_of[k] == -1);
                group_of[k] = static_cast<int>(g);
            }
        for (std::size_t k = 0; k < contacts.size(); ++k) {
            REQUIRE(group_of[k] >= 0);
            for (std::size_t l = 0; l < k; ++l)
                CHECK((group_of[k] == group_of[l]) ==
                      (oracle.find(contacts[k].a) == oracle.find(contacts[l].a)));
        }
        // A group's bodies are exactly the bodies its contacts touch.
        for (const ContactComponent& g : groups) {
            std::set<std::uint32_t> touched;
            for (std::uint32_t k : g.contacts) {
                touched.insert(contacts[k].a);
                if (!contacts[k].wall) touched.insert(contacts[k].b);
            }
            CHECK(Ids(touched.begin(), touched.end()) == g.bodies);
        }
    }
}

} // namespace test_groups
