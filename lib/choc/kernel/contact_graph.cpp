// The contact graph's components (contact_graph.hpp, which argues the wall vertices).
#include "choc/kernel/contact_graph.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>

#include <algorithm>
#include <stdexcept>

namespace choc {

std::vector<ContactComponent> contact_components(std::span<const ContactPair> contacts) {
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
