// The ordering of the sparse solver (sparse_ldlt.hpp): reverse Cuthill–McKee by Boost.Graph.
#include "choc/kernel/sparse_ldlt.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>

namespace choc {

std::vector<std::size_t>
reverse_cuthill_mckee(std::size_t n,
                      const std::vector<std::pair<std::size_t, std::size_t>>& edges) {
    using Graph =
        boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                              boost::property<boost::vertex_color_t, boost::default_color_type,
                                              boost::property<boost::vertex_degree_t, int>>>;
    Graph graph(n);
    for (const auto& [i, j] : edges)
        if (i != j) boost::add_edge(i, j, graph);
    // Boost writes the Cuthill–McKee order; filling it from the back reverses it
    // (RCM: the same envelope size or smaller, George & Liu §4.3).
    std::vector<std::size_t> order(n, 0);
    boost::cuthill_mckee_ordering(graph, order.rbegin(), get(boost::vertex_color, graph),
                                  boost::make_degree_map(graph));
    return order;
}

} // namespace choc
