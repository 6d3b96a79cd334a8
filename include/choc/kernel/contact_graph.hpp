// The contact graph of simultaneous collisions: bodies are vertices, contacts are edges,
// and each connected component (Boost.Graph connected_components) is one collision
// group, resolved together by the group rule. (Compiled in lib/choc/kernel/contact_graph.cpp:
// Boost.Graph's headers take seconds to compile, so they stay out of every header.)
//
// Walls. A wall has infinite mass: its velocity does not change, whatever its contacts
// do, so it transmits nothing from one contact to another. Two bodies that both touch
// the same wall, and nothing else in common, are two independent collisions. So a wall
// must not be one shared vertex (that would merge them into one needlessly large, and
// often singular, system); every wall contact gets a vertex of its own, which has that
// one edge and therefore never joins two components.
#pragma once

#include <cstdint>
#include <span>
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
std::vector<ContactComponent> contact_components(std::span<const ContactPair> contacts);

} // namespace choc
