// Block edges on a doubling grid, for the block errors of a run whose length is not known in
// advance: a running sum is recorded at each block's end, and when there are 2 B blocks
// every other edge goes, so the blocks double in width and a run of any length keeps
// between B and 2 B of equal width (Z's blocks, the slab profiles' blocks).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace choc {

// Adds `edge` to `edges` (the first edge is the start); true when that thinned them, the
// blocks' width now doubled.
template <class T>
bool add_block_edge(std::vector<T>& edges, T edge, std::size_t blocks) {
    edges.push_back(std::move(edge));
    if (edges.size() < 2 * blocks + 1) return false;
    std::vector<T> kept;
    for (std::size_t k = 0; k < edges.size(); k += 2) kept.push_back(std::move(edges[k]));
    edges = std::move(kept);
    return true;
}

} // namespace choc
