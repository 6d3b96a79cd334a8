// Which triangles (triangle.hpp) a particle can touch while its centre stays in a cell of
// the grid: for every cell, the triangles that come within `reach` (the largest radius)
// of it, by the triangles' separating-axis test. A particle then tests the few triangles
// of its own cell, however many the mesh has; its cell crossing makes it look again.
//
// Kept as one array sorted by cell (an offset per cell, an entry per listed pair), built
// once: the triangles do not move. A triangle is listed in the cells of its bounding box
// grown by the reach that pass the test, so building costs about the cells it covers.
// Each entry carries what a prediction's first tests read (the sphere round the vertices,
// the plane, whether it is one-sided), so that the tests stream through one cell's entries
// instead of reaching into a large mesh's triangles at random (a cache miss each, measured
// as most of the cost).
#pragma once

#include "choc/kernel/cells.hpp"
#include "choc/kernel/triangle.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace choc {

template <int D>
class TriangleCells {
  public:
    TriangleCells() = default;
    TriangleCells(const Cells<D>& cells, const std::vector<Triangle<D>>& triangles, double reach) {
        if (triangles.empty()) return;
        first_.assign(cells.size() + 1, 0);
        std::vector<std::uint32_t> fill; // where each cell's next entry goes
        // twice over the same cells: count, then fill
        for (int pass = 0; pass < 2; ++pass) {
            for (std::uint32_t k = 0; k < triangles.size(); ++k)
                for_each_cell(cells, triangles[k], reach, [&](std::uint32_t c) {
                    if (pass == 0)
                        ++first_[c + 1];
                    else
                        index_[fill[c]++] = {triangles[k].centre,
                                             triangles[k].radius,
                                             triangles[k].normal,
                                             dot(triangles[k].vertex[0], triangles[k].normal),
                                             k,
                                             triangles[k].one_sided};
                });
            if (pass == 0) {
                for (std::size_t c = 1; c < first_.size(); ++c) first_[c] += first_[c - 1];
                index_.assign(first_.back(), Entry{});
                fill.assign(first_.begin(), first_.end() - 1);
            }
        }
    }

    bool empty() const { return first_.empty(); }
    struct Entry {
        Vec<D> centre; // the triangle's (triangle.hpp): every point within
        double radius; // radius of centre
        Vec<D> normal; // its plane: height(x) = dot(x, normal) - offset
        double offset;
        std::uint32_t index; // in the box's triangles
        bool one_sided;      // the triangle's (in the padding: the entry stays 72 bytes)
    };
    static_assert(D != 3 || sizeof(Entry) == 72, "an entry of a 3D cell: nine doubles");
    const Entry* begin(std::uint32_t cell) const { return index_.data() + first_[cell]; }
    const Entry* end(std::uint32_t cell) const { return index_.data() + first_[cell + 1]; }
    // the listed (cell, triangle) pairs
    std::size_t listed() const { return index_.size(); }
    std::size_t bytes() const {
        return first_.capacity() * sizeof(std::uint32_t) + index_.capacity() * sizeof(Entry);
    }

  private:
    // Calls f(cell) for every cell whose box [lo, hi] the triangle may reach.
    template <class F>
    static void for_each_cell(const Cells<D>& cells, const Triangle<D>& t, double reach, F&& f) {
        std::array<int, D> from, to;
        for (int a = 0; a < D; ++a) {
            double lo = t.vertex[0][a], hi = lo;
            for (const auto& v : t.vertex) lo = std::min(lo, v[a]), hi = std::max(hi, v[a]);
            const int last = cells.counts()[a] - 1;
            // cell c, grown by the reach, meets [lo, hi] on this axis when
            //   (lo - reach)/w - 1 <= c <= (hi + reach)/w;
            // a millionth of a cell more on each side for the round-off of the bounds
            const double w = cells.width()[a];
            from[a] =
                std::clamp(static_cast<int>(std::ceil((lo - reach) / w - 1.0 - 1e-6)), 0, last);
            to[a] = std::clamp(static_cast<int>(std::floor((hi + reach) / w + 1e-6)), 0, last);
        }
        std::array<int, D> c = from;
        while (true) {
            const std::uint32_t cell = cells.flat(c);
            Vec<D> lo, hi;
            for (int a = 0; a < D; ++a)
                lo[a] = cells.bound(cell, a, -1), hi[a] = cells.bound(cell, a, 1);
            if (t.may_reach(lo, hi, reach)) f(cell);
            int a = 0;
            while (a < D && c[a] == to[a]) c[a] = from[a], ++a;
            if (a == D) break;
            ++c[a];
        }
    }

    std::vector<std::uint32_t> first_; // cell c's triangles are index_[first_[c] .. first_[c+1])
    std::vector<Entry> index_;
};

} // namespace choc
