// Mean-squared displacement and the self-diffusion coefficient, from snapshot copies.
//
// Snapshot positions live in the periodic box, so each particle's path is unwrapped
// between successive samples with the minimum image: the step x(t_k) - x(t_{k-1}) is
// taken as its nearest periodic image. That is right while no particle moves half an
// edge between two samples; the caller samples often enough (see run.cpp) and
// `largest_step` reports the worst step seen, as a fraction of the edge, to check it.
//
// D comes from the Einstein relation MSD(t) -> 2 d D t + const at long times: the slope of
// a least-squares line through the MSD samples in the second half of the measured phase
// (the first half holds the ballistic start, MSD ~ <v^2> t^2 for t below the mean free
// time, and the approach to the linear regime). The particles are dealt into `groups`
// groups (i mod groups), each group gives its own slope, and D_err is the standard error
// of their mean: particles are nearly independent walkers, so the groups are nearly
// independent estimates.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/observers/standard_error.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace choc {

// Slope fit of the MSD samples of each group (msd[k][g]: group g at times[k]) over
// times >= times.back() / 2, divided by 2 d. Absent with fewer than three samples there.
std::optional<Estimate> diffusion_fit(int d, const std::vector<double>& times,
                                      const std::vector<std::vector<double>>& msd,
                                      const std::vector<double>& group_sizes);

template <int D>
class Displacement {
  public:
    static constexpr std::size_t most_groups = 16;

    Displacement(const Box<D>& box, const Particles<D>& start, double t0)
        : box_(box), t0_(t0), last_(start.size()), moved_(start.size()),
          groups_(std::min(most_groups, start.size())), group_size_(groups_, 0.0) {
        for (std::size_t i = 0; i < start.size(); ++i) {
            last_[i] = start.state[i].x;
            group_size_[i % groups_] += 1.0;
        }
    }

    // Positions of the same particles (caller's order) at time t, later than the last.
    void sample(const Particles<D>& now, double t) {
        if (last_.empty() || (!times_.empty() && t <= t0_ + times_.back())) return;
        std::vector<double> group(groups_, 0.0);
        double total = 0.0;
        for (std::size_t i = 0; i < last_.size(); ++i) {
            const Vec<D> x = now.state[i].x;
            const Vec<D> step = box_.minimum_image(x - last_[i]);
            for (int a = 0; a < D; ++a)
                if (box_.periodic[a])
                    largest_step_ = std::max(largest_step_, std::abs(step[a]) / box_.length[a]);
            last_[i] = x;
            moved_[i] += step;
            const double r2 = norm2(moved_[i]);
            group[i % groups_] += r2;
            total += r2;
        }
        for (std::size_t g = 0; g < groups_; ++g) group[g] /= group_size_[g];
        times_.push_back(t - t0_);
        msd_.push_back(std::move(group));
        last_msd_ = total / static_cast<double>(last_.size());
    }

    // Mean over particles of |x(t) - x(t0)|^2 at the last sample (0 before any).
    double msd() const { return last_msd_; }
    // Largest |step component| / edge over periodic axes and all samples so far.
    double largest_step() const { return largest_step_; }
    std::optional<Estimate> diffusion() const {
        return diffusion_fit(D, times_, msd_, group_size_);
    }
    // The samples so far: their times since t0, and the mean over all particles of
    // |x(t) - x(t0)|^2 at each (the groups' means weighted by their sizes).
    const std::vector<double>& times() const { return times_; }
    std::vector<double> msd_samples() const {
        std::vector<double> out;
        double n = 0.0;
        for (double size : group_size_) n += size;
        for (const auto& groups : msd_) {
            double total = 0.0;
            for (std::size_t g = 0; g < groups.size(); ++g) total += groups[g] * group_size_[g];
            out.push_back(total / n);
        }
        return out;
    }

    // Everything sampled so far, for a checkpoint (the box and groups follow from the
    // particles, which the caller gives again).
    void save(ArchiveWriter& out) const {
        out.put(t0_);
        out.put(last_);
        out.put(moved_);
        out.put(times_);
        out.put(std::uint64_t{msd_.size()});
        for (const auto& m : msd_) out.put(m);
        out.put(last_msd_);
        out.put(largest_step_);
    }
    void restore(ArchiveReader& in) {
        const std::size_t n = last_.size();
        in.get(t0_);
        in.get(last_);
        in.get(moved_);
        in.get(times_);
        const auto samples = in.get<std::uint64_t>();
        if (last_.size() != n || moved_.size() != n || samples != times_.size())
            throw ArchiveError("the state's displacement record does not match its particles");
        msd_.resize(samples);
        for (auto& m : msd_) {
            in.get(m);
            if (m.size() != groups_) throw ArchiveError("the state's displacement is damaged");
        }
        in.get(last_msd_);
        in.get(largest_step_);
    }

  private:
    Box<D> box_;
    double t0_;
    std::vector<Vec<D>> last_, moved_;
    std::size_t groups_;
    std::vector<double> group_size_;
    std::vector<double> times_;
    std::vector<std::vector<double>> msd_;
    double last_msd_ = 0.0, largest_step_ = 0.0;
};

} // namespace choc
