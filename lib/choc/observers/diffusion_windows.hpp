// Self-diffusion from many time origins: D at a ladder of lags, each with an error that
// shrinks as the run goes on (window_ladder.hpp).
//
// The moment is each tagged particle's unwrapped displacement U: the mean-squared
// displacement is linear at long lags, MSD(tau) = 2 d D (tau - t_c), so the ladder's c per
// axis (q = d) is D.
//
// Positions are unwrapped between samples with the minimum image, so the step (set by the
// caller: run/phase/observer.hpp) must keep every flight between samples far below half a box
// edge; largest_step() reports the worst, as a fraction of the edge.
// Only up to `most_tagged` particles are followed, evenly spread over the caller's indices
// (m n / tagged for m = 0, 1, ...): beyond a few thousand, more particles add little that
// more windows do not.
// Memory: 48 bytes per tagged particle and level (about 5 MB for 4096 particles, 24 levels).
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/observers/window_ladder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace choc {

template <int D>
class DiffusionWindows {
    using Ladder = WindowLadder<Vec<D>>;

  public:
    static constexpr std::size_t most_tagged = 4096;
    static constexpr std::uint64_t least_pairs = Ladder::least_pairs;

    // D at one lag: the windows' length, how many pairs of windows, D and its error.
    using Lag = typename Ladder::Lag;

    // n particles (caller's indices 0 .. n-1), sampled every `step` from t0, whose
    // positions at t0 `position(i)` gives.
    template <class Position>
    DiffusionWindows(const Box<D>& box, std::size_t n, double step, double t0, Position&& position)
        : DiffusionWindows(box, n, step, t0) {
        for (std::size_t m = 0; m < last_.size(); ++m) last_[m] = position(tagged(m));
    }

    // The same from visit(f), which calls f(i, x_i, species_i) for every particle i in any
    // order (Displacement's PositionVisit).
    template <class Visit>
    static DiffusionWindows from_visit(const Box<D>& box, std::size_t n, double step, double t0,
                                       Visit&& visit) {
        DiffusionWindows w(box, n, step, t0);
        w.read(visit);
        w.last_ = w.scratch_;
        return w;
    }

    double step() const { return ladder_.step(); }
    // The time of the next sample.
    double next_time() const { return ladder_.next_time(); }
    // Caller's index of tagged particle m: m n / tagged, every index when n <= most_tagged.
    std::size_t tagged(std::size_t m) const { return m * n_ / last_.size(); }
    std::size_t tagged_count() const { return last_.size(); }

    // The sample at next_time(): position(i) gives caller's particle i there, or visit(f)
    // calls f(i, x_i, species_i) for every particle i.
    template <class Position>
    void sample(Position&& position) {
        scratch_.resize(last_.size());
        for (std::size_t m = 0; m < last_.size(); ++m) scratch_[m] = position(tagged(m));
        advance();
    }
    template <class Visit>
    void sample_visit(Visit&& visit) {
        read(visit);
        advance();
    }

    // D at every lag so far (level l: lag 2^l step), shortest first.
    std::vector<Lag> lags() const { return ladder_.lags(); }
    // Of these lags, the longest with at least least_pairs pairs; none if no lag has as many.
    static std::optional<Lag> longest(const std::vector<Lag>& lags) {
        return Ladder::longest(lags);
    }
    // Largest |step component| / edge over periodic axes and all samples so far.
    double largest_step() const { return largest_step_; }

    // Its checkpoint (archive.hpp): the tagged particles' positions and displacements, then
    // the ladder. A reader must tag as many particles as the saved windows (the box and the
    // count of particles are the run's).
    template <class Archive>
    void fields(Archive& ar) {
        const std::size_t tagged = last_.size();
        ar(largest_step_, last_, unwrapped_);
        if constexpr (Archive::loading)
            if (last_.size() != tagged || unwrapped_.size() != tagged)
                throw ArchiveError("the state's diffusion windows do not match its particles");
        ar(ladder_);
    }

  private:
    DiffusionWindows(const Box<D>& box, std::size_t n, double step, double t0)
        : box_(box), n_(n), last_(std::min(n, most_tagged)), unwrapped_(last_.size()),
          ladder_(unwrapped_, step, t0, D) {}

    // The sample whose tagged positions scratch_ holds: unwrapped with the nearest image.
    void advance() {
        for (std::size_t m = 0; m < last_.size(); ++m) {
            const Vec<D> x = scratch_[m];
            const Vec<D> step = box_.minimum_image(x - last_[m]);
            for (int a = 0; a < D; ++a)
                if (box_.periodic[a])
                    largest_step_ = std::max(largest_step_, std::abs(step[a]) / box_.length[a]);
            unwrapped_[m] += step;
            last_[m] = x;
        }
        ladder_.advance(unwrapped_);
    }

    // The tagged particles' positions from a visit, into scratch_.
    // Caller's index i is tagged particle m = ceil(i tagged / n) when tagged(m) is i.
    template <class Visit>
    void read(Visit& visit) {
        const std::size_t tagged_n = last_.size();
        scratch_.resize(tagged_n);
        visit([&](std::size_t i, const Vec<D>& x, std::uint32_t) {
            const std::size_t m = (i * tagged_n + n_ - 1) / n_;
            if (m < tagged_n && tagged(m) == i) scratch_[m] = x;
        });
    }

    Box<D> box_;
    std::size_t n_; // particles (caller's indices 0 .. n-1)
    double largest_step_ = 0.0;
    std::vector<Vec<D>> last_;      // wrapped position at the last sample
    std::vector<Vec<D>> unwrapped_; // U: displacement since t0, unwrapped
    Ladder ladder_;                 // of U, from U = 0 at t0
    std::vector<Vec<D>> scratch_;   // positions read by a visit
};

} // namespace choc
