// The contact graph of simultaneous collisions: bodies are vertices, contacts are edges,
// and each connected component (Boost.Graph connected_components) is one collision
// group, resolved together by the group rule.
//
// Walls. A wall has infinite mass: its velocity does not change, whatever its contacts
// do, so it transmits nothing from one contact to another. Two bodies that both touch
// the same wall, and nothing else in common, are two independent collisions. So a wall
// must not be one shared vertex (that would merge them into one needlessly large, and
// often singular, system); every wall contact gets a vertex of its own, which has that
// one edge and therefore never joins two components.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace choc {

// One contact: bodies a and b, or body a and wall b (b is then a wall index).
struct ContactPair {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
    bool wall = false;
};

// One collision group: indices into the caller's contact list, and the (finite-mass)
// bodies they touch, both in increasing order. Walls appear only through their contacts.
struct ContactComponent {
    std::vector<std::uint32_t> contacts;
    std::vector<std::uint32_t> bodies;
};

// The connected components of the contact graph, ordered by their first contact. Body
// indices are the caller's (any 32-bit ids; the graph is built on the distinct ones
// only, so its size is that of the contact list, not of the whole system).
inline std::vector<ContactComponent> contact_components(std::span<const ContactPair> contacts) {
    // Vertices: the distinct bodies, then one vertex per wall contact.
    std::vector<std::uint32_t> bodies;
    for (const ContactPair& c : contacts) {
        if (!c.wall && c.a == c.b) throw std::invalid_argument("contact of a body with itself");
        bodies.push_back(c.a);
        if (!c.wall) bodies.push_back(c.b);
    }
    std::sort(bodies.begin(), bodies.end());
    bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
    auto vertex_of = [&](std::uint32_t body) {
        return static_cast<std::size_t>(std::lower_bound(bodies.begin(), bodies.end(), body) -
                                        bodies.begin());
    };

    const auto wall_contacts = static_cast<std::size_t>(
        std::count_if(contacts.begin(), contacts.end(), [](const auto& c) { return c.wall; }));
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
    Graph graph(bodies.size() + wall_contacts);
    std::size_t next_wall_vertex = bodies.size();
    for (const ContactPair& c : contacts)
        boost::add_edge(vertex_of(c.a), c.wall ? next_wall_vertex++ : vertex_of(c.b), graph);

    std::vector<int> component(boost::num_vertices(graph));
    const int count = boost::connected_components(graph, component.data());

    // Boost numbers components by a depth-first sweep over the vertices; renumber them by
    // first contact so the order depends on the contact list alone.
    std::vector<int> order(static_cast<std::size_t>(count), -1);
    std::vector<ContactComponent> groups;
    for (std::size_t k = 0; k < contacts.size(); ++k) {
        const int boost_id = component[vertex_of(contacts[k].a)];
        int& id = order[static_cast<std::size_t>(boost_id)];
        if (id < 0) {
            id = static_cast<int>(groups.size());
            groups.emplace_back();
        }
        groups[static_cast<std::size_t>(id)].contacts.push_back(static_cast<std::uint32_t>(k));
    }
    for (std::size_t v = 0; v < bodies.size(); ++v)
        groups[static_cast<std::size_t>(order[static_cast<std::size_t>(component[v])])]
            .bodies.push_back(bodies[v]);
    return groups;
}

} // namespace choc
