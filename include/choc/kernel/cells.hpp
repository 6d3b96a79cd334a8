// Linked-cell grid in flat per-cell index arrays. A cell is at least one largest
// diameter wide on every axis, so two particles can touch only while they sit in the
// same or neighbouring cells: a prediction looks at 3^D cells, and a particle that
// enters a new cell looks only at the layer of cells that just became adjacent.
// Size-disperse particles have a grid per level of sizes (cell_levels.hpp): a grid then
// lists its level's particles and also keeps the cell of the larger particles, which are
// not in its lists but look into them over a wider ball of cells (`cells_at`).
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/grid_error.hpp"
#include "choc/kernel/huge_pages.hpp"
#include "choc/kernel/predict.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace choc {

// x / d and x % d for a fixed divisor d >= 1 and any 32-bit x, by one multiplication: a
// hardware division takes tens of cycles, and every scan turns a cell index into
// coordinates. With M = floor((2^64 - 1) / d) + 1, i.e. M = (2^64 + e) / d for some
// integer 0 <= e < d,
//     M x / 2^64 = x / d + e x / (d 2^64),
// and the error term is below 1/d because e x < d 2^32 <= 2^64: it cannot carry x / d,
// whose fractional part is at most (d - 1) / d, past the next integer, so the floor is
// exact (Lemire, Kaser and Kurz 2019). d = 1 would need M = 2^64: handled apart.
class FastDivisor {
  public:
    FastDivisor() = default;
    explicit FastDivisor(std::uint32_t d) : d_(d), m_(d == 1 ? 0 : ~std::uint64_t{0} / d + 1) {}
    std::uint32_t quotient(std::uint32_t x) const {
        __extension__ using u128 = unsigned __int128;
        return d_ == 1 ? x : static_cast<std::uint32_t>((u128{m_} * x) >> 64);
    }
    std::uint32_t divisor() const { return d_; }

  private:
    std::uint32_t d_ = 1;
    std::uint64_t m_ = 0;
};

template <int D>
class Cells {
  public:
    static constexpr int around_count = D == 3 ? 27 : 9, layer_count = D == 3 ? 9 : 3;
    // A cell's list has this many slots until some cell overflows them (rare; see grow).
    static constexpr std::uint32_t usual_slots = 7;

    // The neighbouring cells a scan visits, and for each the shift that brings its
    // particles next to ours: the image of particle j seen from our cell is x_j + shift.
    // Away from the edges every shift is zero, so the usual scan writes the indices only.
    struct Stencil {
        std::array<std::uint32_t, around_count> cell;
        int size;
        bool edge; // some shift is not zero: they are in edge_shift
        std::array<Vec<D>, around_count> edge_shift;
        static constexpr std::array<Vec<D>, around_count> no_shift{};

        const Vec<D>* shift() const { return edge ? edge_shift.data() : no_shift.data(); }
    };

    // Cells are at least `min_width` (the largest diameter) wide. A dilute gas would get
    // far more cells than particles, so the width also grows until there are at most
    // 8 N + 4096 cells (but never below three per periodic axis): wider cells stay
    // correct, and memory stays O(N).
    Cells(const Box<D>& box, double min_width, std::size_t n_particles)
        : Cells(box, min_width, n_particles, n_particles) {}
    // A grid whose lists will hold `n_listed` of the `n_particles` (one level of sizes):
    // the number of cells follows the listed ones, the cells kept follow them all.
    Cells(const Box<D>& box, double min_width, std::size_t n_listed, std::size_t n_particles)
        : Cells(box, min_width, n_listed, NoLists{}) {
        stride_ = usual_slots + 1;
        blocks_.assign(std::size_t{cells_} * stride_, 0);
        cell_.assign(n_particles, 0);
        slot_.assign(n_particles, 0);
    }
    // The grid alone (cell_at, around), without the lists: for a caller that keeps its
    // own, such as max_overlap.
    struct NoLists {};
    Cells(const Box<D>& box, double min_width, std::size_t n_particles, NoLists) {
        double width = min_width;
        const double most = 8.0 * static_cast<double>(n_particles) + 4096.0;
        double longest = 0.0;
        for (int a = 0; a < D; ++a) longest = std::max(longest, box.length[a]);
        auto cells_along = [&](int a) {
            const double fit = std::floor(box.length[a] / width);
            const bool three = box.periodic[a] && box.length[a] >= 3 * min_width;
            return std::max(three ? 3.0 : 1.0, fit);
        };
        auto total_cells = [&] {
            double t = 1.0;
            for (int a = 0; a < D; ++a) t *= cells_along(a);
            return t;
        };
        while (total_cells() > most && width < longest) width *= 1.25;
        std::size_t total = 1;
        for (int a = 0; a < D; ++a) {
            n_[a] = static_cast<int>(cells_along(a));
            if (box.periodic[a] && box.length[a] < 3 * min_width)
                throw PeriodicEdgeTooShort(a, box.length[a], min_width);
            width_[a] = box.length[a] / n_[a];
            divide_[a] = FastDivisor(static_cast<std::uint32_t>(n_[a]));
            length_[a] = box.length[a];
            periodic_[a] = box.periodic[a];
            // Across a sliding face (lees_edwards.hpp) the neighbours move with the offset:
            // stencils stop at it, and the engine looks across it on its own.
            seen_across_[a] = box.periodic[a] && !(box.sheared() && a == 1);
            total *= static_cast<std::size_t>(n_[a]);
        }
        cells_ = static_cast<std::uint32_t>(total);
        make_offsets();
    }

    std::size_t size() const { return cells_; }
    // Frees the lists (Engine::retire): the grid answers nothing about particles after.
    void release() {
        blocks_ = FastVector<std::uint32_t>();
        cell_ = FastVector<std::uint32_t>();
        slot_ = FastVector<std::uint32_t>();
    }
    std::size_t bytes() const {
        return held_bytes(blocks_) + held_bytes(cell_) + held_bytes(slot_);
    }
    const std::array<int, D>& counts() const { return n_; }
    const Vec<D>& width() const { return width_; }
    std::uint32_t cell_of(std::uint32_t i) const { return cell_[i]; }
    [[gnu::always_inline]] void prefetch_place(std::uint32_t i) const {
        __builtin_prefetch(&cell_[i]); // inlined: GCC would delete a call to it as pure
    }

    // Cell containing x (clamped into the grid).
    std::uint32_t cell_at(const Vec<D>& x) const {
        std::array<int, D> c;
        for (int a = 0; a < D; ++a)
            c[a] = std::clamp(static_cast<int>(std::floor(x[a] / width_[a])), 0, n_[a] - 1);
        return flat(c);
    }

    void insert(std::uint32_t i, std::uint32_t cell) {
        if (block(cell)[0] == stride_ - 1) grow();
        std::uint32_t* b = block(cell);
        slot_[i] = b[0];
        b[1 + b[0]++] = i;
        cell_[i] = cell;
    }

    // Keeps the cell of a particle that is not in the lists (a larger one: see the top).
    void place(std::uint32_t i, std::uint32_t cell) { cell_[i] = cell; }

    void remove(std::uint32_t i) {
        const std::uint32_t cell = cell_[i];
        std::uint32_t* b = block(cell);
        const std::uint32_t last = b[1 + --b[0]];
        b[1 + slot_[i]] = last;
        slot_[last] = slot_[i];
    }

    void clear() {
        for (std::uint32_t c = 0; c < cells_; ++c) block(c)[0] = 0;
    }

    void move(std::uint32_t i, std::uint32_t to) {
        remove(i);
        insert(i, to);
    }

    // i's place in its cell's list (the order a scan meets them in).
    std::uint32_t slot_of(std::uint32_t i) const { return slot_[i]; }
    // Undoes move(i, to), made when i was at `slot` in cell `from`, when no list has changed
    // since: i is the last of to's list, and the one move's remove put at `slot` of from's
    // (its last) goes back to the end, i to its place. The lists are then as before the
    // move, order included (GroupStep's crossings made ahead, undone in reverse order).
    void unmove(std::uint32_t i, std::uint32_t from, std::uint32_t slot) {
        remove(i);
        insert(i, from);
        std::uint32_t* b = block(from);
        const std::uint32_t end = b[0] - 1, other = b[1 + slot];
        b[1 + slot] = i, b[1 + end] = other;
        slot_[other] = end, slot_[i] = slot;
    }

    // Its checkpoint (archive.hpp): the lists as they stand, with the order inside each cell
    // (a scan meets a cell's particles in that order and the first of equal times wins),
    // read back into a grid of the same shape (the same box and largest diameter) and
    // checked with check_restored.
    template <class Archive>
    void fields(Archive& ar) {
        ar(stride_, blocks_, cell_, slot_);
    }
    // Lists read back for `particles` particles, of which i is listed when listed(i), and
    // otherwise only placed: whole and consistent, or ArchiveError.
    template <class Listed>
    void check_restored(std::size_t particles, Listed&& listed) const {
        if (stride_ < usual_slots + 1 || blocks_.size() != std::size_t{cells_} * stride_ ||
            cell_.size() != particles || slot_.size() != particles)
            throw ArchiveError("the state's cell lists do not fit its box");
        std::size_t in_lists = 0;
        for (std::uint32_t c = 0; c < cells_; ++c) {
            if (block(c)[0] >= stride_)
                throw ArchiveError("the state's cell lists are inconsistent");
            in_lists += block(c)[0];
        }
        for (std::uint32_t i = 0; i < particles; ++i) {
            if (cell_[i] >= cells_) throw ArchiveError("the state's cell lists are inconsistent");
            if (!listed(i)) continue;
            if (in_lists-- == 0 || slot_[i] >= block(cell_[i])[0] ||
                block(cell_[i])[1 + slot_[i]] != i)
                throw ArchiveError("the state's cell lists are inconsistent");
        }
        if (in_lists != 0) throw ArchiveError("the state's cell lists are inconsistent");
    }

    // Particles of one cell: its block holds the count, then the indices, so one cache
    // line serves a typical cell. `prefetch` asks for that line ahead of use.
    const std::uint32_t* begin(std::uint32_t cell) const { return block(cell) + 1; }
    const std::uint32_t* end(std::uint32_t cell) const { return begin(cell) + block(cell)[0]; }
    [[gnu::always_inline]] void prefetch(std::uint32_t cell) const {
        __builtin_prefetch(block(cell)); // inlined: GCC would delete a call to it as pure
    }
    // The lists' storage as a plain pointer and stride, for a scan's inner loop.
    struct Lists {
        const std::uint32_t* blocks;
        std::uint32_t stride;
        const std::uint32_t* begin(std::uint32_t cell) const {
            return blocks + std::size_t{cell} * stride + 1;
        }
        std::uint32_t count(std::uint32_t cell) const { return blocks[std::size_t{cell} * stride]; }
        std::uint32_t slots() const { return stride - 1; }
    };
    Lists lists() const { return {blocks_.data(), stride_}; }
    // Every cell's list has room for `slots()` entries, all readable (the first
    // `end - begin` of them are its particles): a scan may copy them all without a branch.
    std::uint32_t slots() const { return stride_ - 1; }

    std::array<int, D> coords(std::uint32_t cell) const {
        std::array<int, D> c;
        for (int a = 0; a < D - 1; ++a) {
            const std::uint32_t q = divide_[a].quotient(cell);
            c[a] = static_cast<int>(cell - q * divide_[a].divisor());
            cell = q;
        }
        c[D - 1] = static_cast<int>(cell); // the last axis: what is left
        return c;
    }
    std::uint32_t flat(const std::array<int, D>& c) const {
        std::uint32_t f = 0;
        for (int a = D - 1; a >= 0; --a) f = f * n_[a] + c[a];
        return f;
    }

    // The 3^D cells around `cell` (itself included). Offsets that leave the grid on a
    // walled axis are skipped.
    void around(std::uint32_t cell, Stencil& s) const {
        const auto c = coords(cell);
        if (interior(c)) return offset(cell, around_.data(), around_count, s);
        collect(c, -1, -1, s);
    }
    // The 3^(D-1) cells that became adjacent after entering `cell` along `axis` in
    // direction `dir` (+1 or -1): the layer at offset `dir` on that axis.
    void layer(std::uint32_t cell, int axis, int dir, Stencil& s) const {
        const auto c = coords(cell);
        if (interior(c)) return offset(cell, layers_[2 * axis + (dir > 0)].data(), layer_count, s);
        collect(c, axis, dir, s);
    }

    // Cells around a cell given as offsets from it (a Neighbourhood's, below): what a larger
    // particle scans in the grid of a smaller level (cell_levels.hpp). They may be
    // thousands, so they live in vectors (reused from scan to scan), with their shifts.
    struct WideStencil {
        std::vector<std::uint32_t> cell;
        std::vector<Vec<D>> edge_shift; // filled in only when `edge`
        int size = 0;
        bool edge = false;
        const Vec<D>* shift() const { return edge_shift.data(); }
    };
    using Offset = std::array<int, D>;
    // The cells at these offsets from `cell`, none further than `reach` on any axis; on a
    // walled axis those past the edge are left out. A periodic axis must have at least
    // 2 reach + 1 cells, so that no cell is met twice (CellLevels ensures it).
    void cells_at(std::uint32_t cell, const std::vector<Offset>& offsets,
                  const std::array<int, D>& reach, WideStencil& out) const {
        const auto c = coords(cell);
        bool inside = true;
        for (int a = 0; a < D; ++a) inside = inside && c[a] >= reach[a] && c[a] + reach[a] < n_[a];
        out.cell.resize(offsets.size());
        std::size_t k = 0;
        if (inside) { // the usual case: flat index arithmetic, no shifts
            out.edge = false;
            for (const Offset& o : offsets) {
                std::int64_t d = o[D - 1];
                for (int a = D - 2; a >= 0; --a) d = d * n_[a] + o[a];
                out.cell[k++] = static_cast<std::uint32_t>(cell + d);
            }
            out.size = static_cast<int>(k);
            return;
        }
        out.edge = true;
        out.edge_shift.resize(offsets.size());
        for (const Offset& o : offsets) {
            std::array<int, D> q;
            Vec<D> shift{};
            bool kept = true;
            for (int a = 0; a < D; ++a) {
                q[a] = c[a] + o[a];
                if (q[a] >= 0 && q[a] < n_[a]) continue;
                if (!seen_across_[a]) {
                    kept = false;
                    break;
                }
                shift[a] = q[a] < 0 ? -length_[a] : length_[a];
                q[a] += q[a] < 0 ? n_[a] : -n_[a];
            }
            if (!kept) continue;
            out.cell[k] = flat(q);
            out.edge_shift[k++] = shift;
        }
        out.size = static_cast<int>(k);
    }

    // `cell` with its coordinate on `axis` moved to the far edge the particle re-enters
    // from after leaving through a periodic face in direction `dir`: 0 after leaving at
    // the top, the last cell after leaving at the bottom.
    std::uint32_t reentered(std::uint32_t cell, int axis, int dir) const {
        auto c = coords(cell);
        c[axis] = dir > 0 ? 0 : n_[axis] - 1;
        return flat(c);
    }

    // Neighbour of `cell` one step along `axis` in `dir`, and whether the step wraps
    // around a periodic edge. Only called for steps that stay in the box or wrap.
    std::uint32_t step(std::uint32_t cell, int axis, int dir, bool& wrapped) const {
        auto c = coords(cell);
        c[axis] += dir;
        wrapped = false;
        if (c[axis] < 0)
            c[axis] += n_[axis], wrapped = true;
        else if (c[axis] >= n_[axis])
            c[axis] -= n_[axis], wrapped = true;
        return flat(c);
    }

    // Whether a particle in `cell` can leave it through its face on `axis` in direction
    // `dir` (+1 or -1): not through the outer face of a walled axis.
    bool open(std::uint32_t cell, int axis, int dir) const {
        if (periodic_[axis]) return true;
        const int c = coords(cell)[axis];
        return dir > 0 ? c < n_[axis] - 1 : c > 0;
    }
    // The coordinate of that face.
    double bound(std::uint32_t cell, int axis, int dir) const {
        const int c = coords(cell)[axis];
        return (dir > 0 ? c + 1 : c) * width_[axis];
    }

    // Where the particle at x (velocity v, both at time t0) next leaves its cell:
    // earliest time over the axes and the axis and direction of the crossing, never
    // before `now` (a particle on a boundary by round-off crosses at once). A walled axis
    // has no crossing out of its outer cells (the wall event comes first).
    struct Crossing {
        double time;
        int axis;
        int dir;
    };
    Crossing next_crossing(std::uint32_t cell, const Vec<D>& x, const Vec<D>& v, double t0,
                           double now) const {
        const auto c = coords(cell);
        Crossing best{std::numeric_limits<double>::infinity(), 0, 0};
        for (int a = 0; a < D; ++a) {
            if (v[a] == 0.0) continue;
            const int dir = v[a] > 0.0 ? 1 : -1;
            if (!periodic_[a] && ((dir > 0 && c[a] == n_[a] - 1) || (dir < 0 && c[a] == 0)))
                continue;
            const double bound = (dir > 0 ? c[a] + 1 : c[a]) * width_[a];
            // x_a(t) = x_a + v_a (t - t0) reaches the bound at t0 + (bound - x_a) / v_a
            const double t = std::max(now, t0 + crossing_time(x[a], v[a], bound));
            if (t < best.time) best = {t, a, dir};
        }
        return best;
    }

  private:
    // A cell at least one cell away from every edge: its neighbours are at fixed flat
    // offsets with no periodic shift, the common case a scan takes without collect().
    bool interior(const std::array<int, D>& c) const {
        for (int a = 0; a < D; ++a)
            if (c[a] < 1 || c[a] > n_[a] - 2) return false;
        return true;
    }
    void offset(std::uint32_t cell, const std::int32_t* offsets, int n, Stencil& s) const {
        for (int k = 0; k < n; ++k) s.cell[k] = static_cast<std::uint32_t>(cell + offsets[k]);
        s.edge = false;
        s.size = n;
    }

    // The flat offsets of the 3^D neighbours and of each new layer, in collect()'s order
    // (x fastest), so that both paths list candidates alike.
    void make_offsets() {
        auto offset = [&](const std::array<int, D>& d) {
            std::int32_t f = 0;
            for (int a = D - 1; a >= 0; --a) f = f * n_[a] + d[a];
            return f;
        };
        int k = 0;
        std::array<int, 2 * D> in_layer{};
        for (int code = 0; code < around_count; ++code) {
            std::array<int, D> d;
            int rest = code;
            for (int a = 0; a < D; ++a) d[a] = rest % 3 - 1, rest /= 3;
            around_[k++] = offset(d);
            for (int a = 0; a < D; ++a)
                if (d[a] != 0) {
                    const int l = 2 * a + (d[a] > 0);
                    layers_[l][in_layer[l]++] = offset(d);
                }
        }
    }

    void collect(const std::array<int, D>& c, int fixed_axis, int fixed_dir, Stencil& out) const {
        // Per axis: up to three (coordinate, shift) choices.
        std::array<std::array<int, 3>, D> cc;
        std::array<std::array<double, 3>, D> sh;
        std::array<int, D> m{};
        for (int a = 0; a < D; ++a) {
            const int lo = a == fixed_axis ? fixed_dir : -1;
            const int hi = a == fixed_axis ? fixed_dir : 1;
            for (int o = lo; o <= hi; ++o) {
                int k = c[a] + o;
                double s = 0.0;
                if (k < 0 || k >= n_[a]) {
                    if (!seen_across_[a]) continue;
                    // j across the low edge sits at x_j - L seen from here, and vice versa
                    s = k < 0 ? -length_[a] : length_[a];
                    k = k < 0 ? k + n_[a] : k - n_[a];
                }
                cc[a][m[a]] = k;
                sh[a][m[a]] = s;
                ++m[a];
            }
        }
        int count = 0;
        auto add = [&](std::uint32_t cell, const Vec<D>& shift) {
            out.cell[count] = cell;
            out.edge_shift[count++] = shift;
        };
        if constexpr (D == 2) {
            for (int y = 0; y < m[1]; ++y)
                for (int x = 0; x < m[0]; ++x)
                    add(static_cast<std::uint32_t>(cc[1][y] * n_[0] + cc[0][x]),
                        Vec<2>{{sh[0][x], sh[1][y]}});
        } else {
            for (int z = 0; z < m[2]; ++z)
                for (int y = 0; y < m[1]; ++y)
                    for (int x = 0; x < m[0]; ++x)
                        add(static_cast<std::uint32_t>((cc[2][z] * n_[1] + cc[1][y]) * n_[0] +
                                                       cc[0][x]),
                            Vec<3>{{sh[0][x], sh[1][y], sh[2][z]}});
        }
        out.edge = true;
        out.size = count;
    }

    std::uint32_t* block(std::uint32_t cell) { return &blocks_[std::size_t{cell} * stride_]; }
    const std::uint32_t* block(std::uint32_t cell) const {
        return &blocks_[std::size_t{cell} * stride_];
    }

    // A cell is full: every block doubles (rare; the count of a cell is bounded by packing).
    void grow() {
        const std::uint32_t wider = stride_ * 2;
        FastVector<std::uint32_t> b(std::size_t{cells_} * wider);
        for (std::size_t c = 0; c < cells_; ++c)
            std::copy_n(&blocks_[c * stride_], stride_, &b[c * wider]);
        blocks_.swap(b);
        stride_ = wider;
    }

    std::array<int, D> n_{};
    std::array<FastDivisor, D> divide_{};
    std::array<std::int32_t, around_count> around_{};
    std::array<std::array<std::int32_t, layer_count>, 2 * D> layers_{};
    Vec<D> width_, length_;
    std::array<bool, D> periodic_{};
    std::array<bool, D> seen_across_{}; // periodic, and not the sliding face's axis
    std::uint32_t cells_ = 0;
    std::uint32_t stride_ = 0;         // slots per cell: the count, then stride_ - 1 indices
    FastVector<std::uint32_t> blocks_; // stride_ slots per cell
    FastVector<std::uint32_t> cell_;   // cell of each particle
    FastVector<std::uint32_t> slot_;   // its index within that cell
};

// Compiled once, in lib/choc/kernel/kernel_cells.cpp (explicit instantiations), and linked:
// not again in every source that includes this header. Members defined in the class are
// still inlined where they are called.
extern template class Cells<2>;
extern template class Cells<3>;

} // namespace choc
