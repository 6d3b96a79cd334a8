// Periodic image counts for trajectory frames (output.trajectory): for every particle and
// periodic axis a, the whole number n_a of box edges its path has crossed since the
// measured phase began, so that a frame's folded position x and its count give the
// unwrapped position x_a + n_a L_a exactly (integers carry no round-off, however long the
// run), as H5MD's `image` and LAMMPS's image flags do. An MSD from unwrapped frames is then
// the one choc measures (observers/displacement.hpp).
//
// The counts move on from one set of folded positions to the next: a step of more than half
// an edge along a periodic axis is a crossing, x_new - x_old = s - n L with |s| < L/2 the
// true step, so n = -round((x_new - x_old) / L). That holds while no particle moves half an
// edge between two calls: the caller calls as often as the displacement's unwrapping does
// (an eighth of the shortest edge at the fastest speed, run/phase/observer.hpp) and at every
// frame, and `largest_step` says the worst step seen, as a fraction of its edge.
//
// Under sliding (Lees-Edwards) boundaries a crossing of the gradient face (y) also moves x
// by the images' offset, and the flow carries x along: the flow axis (x) has no count there
// (always 0), as it has no displacement in the measured MSD; y and z count as usual.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace choc {

template <int D>
class ImageCounts {
  public:
    using Count = std::array<std::int64_t, D>;

    ImageCounts() = default;
    // Counts of zero at the folded positions `start` (the phase's first frame, or its start).
    explicit ImageCounts(std::vector<Vec<D>> start)
        : last_(std::move(start)), counts_(last_.size(), Count{}) {}

    // Moves the counts on to the folded positions `now` of the same particles (caller's
    // order), each less than half an edge from where the last call saw it.
    void advance(const Box<D>& box, const std::vector<Vec<D>>& now) {
        for (std::size_t i = 0; i < now.size() && i < last_.size(); ++i) {
            for (int a = 0; a < D; ++a) {
                if (!box.periodic[a] || (a == 0 && box.sheared())) continue;
                const double edge = box.length[a];
                const double step = now[i][a] - last_[i][a];
                const double crossed = std::nearbyint(step / edge);
                counts_[i][a] -= static_cast<std::int64_t>(crossed);
                largest_step_ = std::max(largest_step_, std::abs(step - crossed * edge) / edge);
            }
            last_[i] = now[i];
        }
    }

    const std::vector<Count>& counts() const { return counts_; }
    // The largest |step| / edge seen (a step near 1/2 may have been counted the wrong way).
    double largest_step() const { return largest_step_; }

    // Its checkpoint (archive.hpp).
    template <class Archive>
    void fields(Archive& ar) {
        ar(last_, counts_, largest_step_);
    }

  private:
    std::vector<Vec<D>> last_;
    std::vector<Count> counts_;
    double largest_step_ = 0.0;
};

} // namespace choc
