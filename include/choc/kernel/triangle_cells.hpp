// Which triangles (triangle.hpp) a particle can touch while its centre stays in a cell of
// the grid: for every cell, the triangles that come within `reach` (the largest radius)
// of it, by the triangles' separating-axis test. A particle then tests the few triangles
// of its own cell, however many the mesh has; its cell crossing makes it look again.
//
// Kept as one array sorted by cell (an offset per cell, an entry per listed pair), built
// once: the triangles do not move. A triangle is listed in the cells of its bounding box
// grown by the reach that pass the test, so building costs about the cells it covers (a
// million facets of a floor: seconds).
// Each entry carries what a prediction's first tests read (the sphere round the vertices,
// the plane, whether it is one-sided), so that the tests stream through one cell's entries
// instead of reaching into a large mesh's triangles at random (a cache miss each, measured
// as most of the cost).
//
// Flat patches (the engine's lists, built with PatchRadii): where a cell's triangles
// include coplanar two-sided ones of one restitution that cover all of their plane a
// centre in the cell can come within a radius of (plane_cover.hpp), the distance from such
// a centre to them is its distance to the plane, so they are met exactly when the plane is:
// one plane test stands for all of them, their faces, edges and corners. A cell's entries
// are its loose triangles first, then each patch's triangles (a patch names its range), so
// that a prediction streams through the loose ones and the patches' planes alone. A finely
// meshed flat wall, the commonest large mesh, then costs a cell one plane.
//
// Building the lists of a large mesh takes seconds: it calls between_chunks every so often
// (between_chunks.hpp), where a program that stops on SIGINT or SIGTERM stops it at once
// (`choc run`: stop_if_interrupted, run/interrupt.hpp), before the run has written anything.
#pragma once

#include "choc/kernel/between_chunks.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/plane_cover.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/triangle.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace choc {

template <int D>
class TriangleCells {
  public:
    // What finding flat patches needs of the particles: the largest radius (the reach less
    // its round-off margin: the slab about a plane a centre must enter to touch it) and the
    // smallest (a patch's triangles may leave gaps of round-off, patch_gap_tolerance of it).
    struct PatchRadii {
        double largest = 0.0, smallest = 0.0;
    };

    TriangleCells() = default;
    TriangleCells(const Cells<D>& cells, std::span<const Triangle<D>> triangles, double reach,
                  std::optional<PatchRadii> patches = std::nullopt) {
        if (triangles.empty()) return;
        // Each triangle's cells, found once, as (cell, triangle) pairs in the triangles'
        // order; then the triangles by cell (a counting sort, which keeps a cell's in that
        // order), and the entries written in turn (a large mesh's lists run to hundreds of
        // megabytes: written once, not cleared first).
        std::vector<std::uint32_t> first(cells.size() + 1, 0);
        std::vector<std::array<std::uint32_t, 2>> pairs;
        pairs.reserve(triangles.size());
        for (std::uint32_t k = 0; k < triangles.size(); ++k) {
            if ((k & 4095) == 0) between_chunks("listing the triangles by cell");
            for_each_cell(cells, triangles[k], reach, [&](std::uint32_t c) {
                ++first[c + 1];
                pairs.push_back({c, k});
            });
        }
        for (std::size_t c = 1; c < first.size(); ++c) first[c] += first[c - 1];
        std::vector<std::uint32_t> by_cell(pairs.size());
        std::vector<std::uint32_t> fill(first.begin(), first.end() - 1); // each cell's next
        for (const auto& [c, k] : pairs) by_cell[fill[c]++] = k;
        pairs = {};
        index_.reserve(by_cell.size());
        for (const std::uint32_t k : by_cell) {
            const Triangle<D>& t = triangles[k];
            const double offset = dot(t.vertex[0], t.normal);
            index_.push_back(Entry{t.centre, t.radius, t.normal, offset, k, t.one_sided});
        }
        heads_.resize(first.size());
        for (std::size_t c = 0; c < first.size(); ++c) { // every entry loose, no patch
            const std::uint32_t end = c + 1 < first.size() ? first[c + 1] : first[c];
            heads_[c] = {first[c], end, 0};
        }
        if constexpr (D == 3)
            if (patches) find_patches(cells, triangles, reach, *patches);
    }

    bool empty() const { return heads_.empty(); }
    struct Entry {
        Vec<D> centre; // the triangle's (triangle.hpp): every point within
        double radius; // radius of centre
        Vec<D> normal; // its plane: height(x) = dot(x, normal) - offset
        double offset;
        std::uint32_t index; // in the box's triangles
        bool one_sided;      // the triangle's (in the padding: the entry stays 72 bytes)
    };
    static_assert(D != 3 || sizeof(Entry) == 72, "an entry of a 3D cell: nine doubles");
    // A flat patch of the cell: coplanar triangles that are met where their plane is.
    struct Patch {
        Vec<D> normal; // the plane: height(x) = dot(x, normal) - offset
        double offset;
        std::uint32_t first, last; // its triangles' entries
    };

    // All of the cell's triangles (loose ones, then the patches')
    const Entry* begin(std::uint32_t cell) const { return index_.data() + heads_[cell].first; }
    const Entry* end(std::uint32_t cell) const { return index_.data() + heads_[cell + 1].first; }
    // ... the loose ones alone: [begin, loose_end)
    const Entry* loose_end(std::uint32_t cell) const { return index_.data() + heads_[cell].loose; }
    // ... and its patches
    const Patch* patches_begin(std::uint32_t cell) const {
        return patches_.data() + heads_[cell].patches;
    }
    const Patch* patches_end(std::uint32_t cell) const {
        return patches_.data() + heads_[cell + 1].patches;
    }
    // The patch's triangle that holds the contact of a centre at x (met where the plane
    // is): the one nearest to x, looked for among those whose sphere holds the point of
    // the plane under x (all of them if round-off left it in none).
    std::uint32_t holder(const Patch& p, const Vec<D>& x,
                         const std::vector<Triangle<D>>& triangles) const {
        const Vec<D> foot = x - p.normal * (dot(x, p.normal) - p.offset);
        std::uint32_t best = index_[p.first].index;
        double best_d2 = std::numeric_limits<double>::infinity();
        for (const bool all : {false, true}) {
            for (std::uint32_t k = p.first; k < p.last; ++k) {
                const Entry& e = index_[k];
                const double r = e.radius * (1.0 + patch_holder_margin);
                if (!all && norm2(foot - e.centre) > r * r) continue;
                const double d2 = triangles[e.index].distance_squared(x);
                if (d2 < best_d2) best = e.index, best_d2 = d2;
            }
            if (best_d2 < std::numeric_limits<double>::infinity()) break;
        }
        return best;
    }

    // the listed (cell, triangle) pairs
    std::size_t listed() const { return index_.size(); }
    // the flat patches over all cells, and the triangles they hold
    std::size_t patches() const { return patches_.size(); }
    std::size_t in_patches() const {
        std::size_t n = 0;
        for (const Patch& p : patches_) n += p.last - p.first;
        return n;
    }
    std::size_t bytes() const {
        return heads_.capacity() * sizeof(Head) + index_.capacity() * sizeof(Entry) +
               patches_.capacity() * sizeof(Patch);
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
            // (cell_range_round_off)
            const double w = cells.width()[a];
            from[a] = std::clamp(
                static_cast<int>(std::ceil((lo - reach) / w - 1.0 - cell_range_round_off)), 0,
                last);
            to[a] = std::clamp(
                static_cast<int>(std::floor((hi + reach) / w + cell_range_round_off)), 0, last);
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

    // Sorts every cell's entries into loose ones and flat patches. A patch is grown from a
    // two-sided entry by the other two-sided entries of its restitution whose plane agrees
    // with the seed's everywhere in the cell (within coplanar_tolerance of the smallest
    // radius), and kept if they cover the shadow of the cell's part within the
    // largest radius of the plane: every point of it within patch_gap_tolerance of the
    // smallest radius of a triangle. (A centre a gap g beside the triangles is met by them
    // at sqrt(h² + g²) rather than |h|: a sphere is bounced at most g²/2a early, 5e-13 a.)
    // Seeds are taken in the cell's order, each with the entries after it not yet taken.
    //
    // A centre may stray from its cell by the reach's round-off margin m (the listing
    // grows the cell by it). The shadow is taken of the cell itself, in a slab 2m wider,
    // and that margin is paid out of the gap allowed: a centre m beyond the cell on every
    // axis is within sqrt(3) m of a point of the cell no more than sqrt(3) m farther from
    // the plane, whose shadow the triangles cover to within the gap less 2m. (Growing the
    // shadow instead would leave strips m wide beyond a patch's edge wherever a mesh's
    // boundary falls on a cell's, as a box lined from wall to wall does everywhere.)
    //
    // Finding a seed's partners costs about the partners, not the cell's entries (a cell of
    // a finely meshed bumpy floor holds thousands, each its own plane: comparing every pair
    // took minutes for a million facets). Two planes that agree within t at the corners of
    // the grown cell differ by an affine function, so by at most t at every point inside,
    // and their heights h at one point p of the cell obey ||h_s(p)| - |h_j(p)|| <= t
    // (|a - b| >= ||a| - |b||, whichever orientation pairs them). The two-sided entries are
    // sorted by restitution, then by that key; a seed tests only those within t (and a
    // margin for round-off) of its own key, so the same entries pass the same test as when
    // all were compared. p is a point no mesh is likely to pass through at many angles (a
    // fan of planes through it would share the key and be compared in turn).
    void find_patches(const Cells<D>& cells, std::span<const Triangle<D>> triangles, double reach,
                      PatchRadii radii) {
        namespace pc = plane_cover;
        const double margin = reach - radii.largest;
        const double close = patch_gap_tolerance * radii.smallest - 2.0 * margin;
        const double tolerance = coplanar_tolerance * radii.smallest;
        // where p lies in the cell, per axis: irrational fractions, away from its middle,
        // faces and corners, where a mesh's vertices gather
        constexpr std::array<double, 3> probe_at{0.3819660112501051, 0.5772156649015329,
                                                 0.6931471805599453};
        std::vector<char> tried, patched;
        std::vector<std::uint32_t> group, members; // members: the patches' entries in turn,
        std::vector<std::uint32_t> sizes;          // so many for each patch
        std::vector<std::array<pc::Point, 3>> flat;
        std::vector<pc::Point> shadow;
        std::vector<Patch> found;
        std::vector<Entry> sorted;
        std::vector<Keyed> keyed;                   // the two-sided entries, in key order
        std::vector<std::uint32_t> position, after; // an entry's place in keyed; see untried
        for (std::uint32_t c = 0; c < cells.size(); ++c) {
            between_chunks("listing the triangles by cell");
            Entry* e = index_.data() + heads_[c].first;
            const std::uint32_t n = heads_[c + 1].first - heads_[c].first;
            heads_[c].patches = static_cast<std::uint32_t>(patches_.size());
            if (n == 0) continue;
            Vec<D> lo, hi, mid, grown_lo, grown_hi, probe;
            double extent = 0.0; // the largest coordinates' sum: the scale of a height's round-off
            for (int a = 0; a < D; ++a) {
                lo[a] = cells.bound(c, a, -1), hi[a] = cells.bound(c, a, 1);
                grown_lo[a] = lo[a] - margin, grown_hi[a] = hi[a] + margin;
                mid[a] = 0.5 * (lo[a] + hi[a]);
                probe[a] = lo[a] + probe_at[a] * (hi[a] - lo[a]);
                extent += std::max(std::abs(grown_lo[a]), std::abs(grown_hi[a]));
            }
            keyed.clear();
            double largest_offset = 0.0;
            for (std::uint32_t j = 0; j < n; ++j) {
                if (e[j].one_sided) continue;
                keyed.push_back({triangles[e[j].index].restitution,
                                 std::abs(dot(probe, e[j].normal) - e[j].offset), j});
                largest_offset = std::max(largest_offset, std::abs(e[j].offset));
            }
            std::sort(keyed.begin(), keyed.end());
            // each key's round-off is some 1e-16 of the coordinates and offsets; allowing 1e-12
            // of them (patch_key_round_off) only lets more entries be tested
            const double window = tolerance + patch_key_round_off * (extent + largest_offset);
            position.assign(n, 0);
            for (std::uint32_t k = 0; k < keyed.size(); ++k) position[keyed[k].entry] = k;
            // untried(k): the first place from k on whose entry is not yet tried, following
            // `after` (a place's own index while untried, a later place once tried) and
            // shortening the path as it goes
            after.resize(keyed.size() + 1);
            for (std::uint32_t k = 0; k <= keyed.size(); ++k) after[k] = k;
            const auto untried = [&](std::uint32_t k) {
                while (after[k] != k) k = after[k] = after[after[k]];
                return k;
            };
            const auto take = [&](std::uint32_t j) { tried[j] = 1, after[position[j]] += 1; };
            tried.assign(n, 0), patched.assign(n, 0);
            found.clear(), members.clear(), sizes.clear();
            for (std::uint32_t s = 0; s < n; ++s) {
                if (tried[s] || e[s].one_sided) continue;
                if ((s & 1023) == 1023) between_chunks("listing the triangles by cell");
                take(s);
                const auto slab =
                    pc::box_in_slab(lo, hi, e[s].normal, e[s].offset, radii.largest + 2.0 * margin);
                if (slab.empty()) continue;
                group.assign(1, s);
                // every untried entry comes after s: those before were seeds or taken
                const Keyed& own = keyed[position[s]];
                const Keyed from{own.restitution, own.key - window, 0};
                for (auto k = untried(static_cast<std::uint32_t>(
                         std::lower_bound(keyed.begin(), keyed.end(), from) - keyed.begin()));
                     k < keyed.size() && keyed[k].restitution == own.restitution &&
                     keyed[k].key <= own.key + window;
                     k = untried(k + 1))
                    if (same_plane(e[s], e[keyed[k].entry], grown_lo, grown_hi, tolerance))
                        group.push_back(keyed[k].entry), take(keyed[k].entry);
                std::sort(group.begin() + 1, group.end()); // in the cell's order
                const pc::PlaneFrame frame(e[s].normal, mid);
                shadow.clear();
                for (const auto& x : slab) shadow.push_back(frame(x));
                flat.clear();
                for (const std::uint32_t j : group) {
                    const auto& v = triangles[e[j].index].vertex;
                    flat.push_back({frame(v[0]), frame(v[1]), frame(v[2])});
                }
                if (!(pc::farthest_uncovered(pc::convex_hull(shadow), flat, close) <= close))
                    continue;
                found.push_back({e[s].normal, e[s].offset, 0, 0}); // (its range: below)
                sizes.push_back(static_cast<std::uint32_t>(group.size()));
                members.insert(members.end(), group.begin(), group.end());
                for (const std::uint32_t j : group) patched[j] = 1;
            }
            if (found.empty()) continue; // every entry loose, as listed
            // the cell's entries in their new order, in place: loose ones, then each patch's
            sorted.clear();
            for (std::uint32_t j = 0; j < n; ++j)
                if (!patched[j]) sorted.push_back(e[j]);
            heads_[c].loose = heads_[c].first + static_cast<std::uint32_t>(sorted.size());
            std::size_t next = 0;
            for (std::size_t p = 0; p < found.size(); ++p) {
                found[p].first = heads_[c].first + static_cast<std::uint32_t>(sorted.size());
                for (std::uint32_t k = 0; k < sizes[p]; ++k) sorted.push_back(e[members[next++]]);
                found[p].last = heads_[c].first + static_cast<std::uint32_t>(sorted.size());
            }
            std::copy(sorted.begin(), sorted.end(), e);
            patches_.insert(patches_.end(), found.begin(), found.end());
        }
        heads_.back().patches = static_cast<std::uint32_t>(patches_.size());
    }

    // A two-sided entry of a cell as find_patches looks its partners up: by restitution, then
    // by |height| at the cell's probe point.
    struct Keyed {
        double restitution, key;
        std::uint32_t entry; // in the cell
        bool operator<(const Keyed& o) const {
            return restitution != o.restitution ? restitution < o.restitution : key < o.key;
        }
    };

    // Whether two entries' planes agree (up to orientation) to within `tolerance` over the
    // box [lo, hi]: their heights differ by an affine function, largest at a corner.
    static bool same_plane(const Entry& s, const Entry& j, const Vec<D>& lo, const Vec<D>& hi,
                           double tolerance) {
        const double sign = dot(s.normal, j.normal) >= 0.0 ? 1.0 : -1.0;
        for (int k = 0; k < (1 << D); ++k) {
            Vec<D> x;
            for (int a = 0; a < D; ++a) x[a] = (k >> a) & 1 ? hi[a] : lo[a];
            const double hs = dot(x, s.normal) - s.offset, hj = dot(x, j.normal) - j.offset;
            if (!(std::abs(hs - sign * hj) <= tolerance)) return false;
        }
        return true;
    }

    // A cell's entries are index_[first .. next cell's first), the loose ones before
    // `loose`; its patches are patches_[patches .. next cell's patches).
    struct Head {
        std::uint32_t first = 0, loose = 0, patches = 0;
    };
    std::vector<Head> heads_; // one a cell and one more (their ends); none: no triangles
    std::vector<Entry> index_;
    std::vector<Patch> patches_;
};

// Compiled once, in lib/choc/kernel/kernel_cells.cpp (explicit instantiations), and linked:
// not again in every source that includes this header. Members defined in the class are
// still inlined where they are called. (Only 3D: flat patches exist only there, and an
// explicit instantiation would compile find_patches for 2D too.)
extern template class TriangleCells<3>;

} // namespace choc
