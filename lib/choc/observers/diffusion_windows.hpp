// Self-diffusion from many time origins: D at a ladder of lags, each with an error that
// shrinks as the run goes on.
//
// The mean-squared displacement is linear at long lags, MSD(tau) = 2 d D (tau - t_c), with an
// offset t_c from the ballistic start. Two consecutive windows of length tau, in which a
// particle moves by a and then by b, cancel the offset:
//     MSD(2 tau) - MSD(tau) = < |a + b|^2 - (|a|^2 + |b|^2) / 2 > = 2 d D tau.
// So each pair of consecutive windows gives an estimate of D, its mean over the tagged
// particles divided by 2 d tau. Pairs that do not overlap are nearly independent (they are
// correlated only through the velocity autocorrelation's slow tail). The mean over all pairs
// so far is D at lag tau, and its error is their spread over the square root of their number.
// Windows are cut at every 2^l steps for every level l (tau_l = 2^l step), so a run of T has
// about T / (2 tau_l) pairs at level l: short lags are well sampled, long ones approach the
// limit. The summary takes the longest lag with at least `least_pairs` pairs.
//
// Positions are unwrapped between samples with the minimum image, so the step (set by the
// caller: measured_phase.hpp) must keep every flight between samples far below half a box
// edge; largest_step() reports the worst, as a fraction of the edge.
// Only up to `most_tagged` particles are followed, evenly spread over the caller's indices
// (m n / tagged for m = 0, 1, ...): beyond a few thousand, more particles add little that
// more windows do not.
// Memory: 48 bytes per tagged particle and level (about 5 MB for 4096 particles, 24 levels).
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace choc {

template <int D>
class DiffusionWindows {
  public:
    static constexpr std::size_t most_tagged = 4096;
    static constexpr std::uint64_t least_pairs = 16;

    // D at one lag: the windows' length, how many pairs of windows, and the estimate.
    struct Lag {
        double lag = 0.0;
        std::uint64_t pairs = 0;
        double diffusion = 0.0;
        std::optional<double> error; // absent with fewer than two pairs
    };

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

    double step() const { return step_; }
    // The time of the next sample.
    double next_time() const { return t0_ + static_cast<double>(samples_ + 1) * step_; }
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
    std::vector<Lag> lags() const {
        std::vector<Lag> out;
        for (std::size_t l = 0; l < levels_.size(); ++l) {
            const Level& v = levels_[l];
            Lag lag{std::ldexp(step_, static_cast<int>(l)), v.pairs, 0.0, std::nullopt};
            if (v.pairs == 0) continue;
            const double n = static_cast<double>(v.pairs);
            lag.diffusion = v.sum / n;
            if (v.pairs > 1)
                lag.error = std::sqrt(std::max(0.0, v.sum2 / n - lag.diffusion * lag.diffusion) /
                                      (n - 1.0));
            out.push_back(lag);
        }
        return out;
    }
    // Of these lags, the longest with at least least_pairs pairs; none if no lag has as many.
    static std::optional<Lag> longest(const std::vector<Lag>& lags) {
        std::optional<Lag> best;
        for (const Lag& lag : lags)
            if (lag.pairs >= least_pairs) best = lag;
        return best;
    }
    // Largest |step component| / edge over periodic axes and all samples so far.
    double largest_step() const { return largest_step_; }

    void save(ArchiveWriter& out) const {
        out.put(step_);
        out.put(t0_);
        out.put(samples_);
        out.put(largest_step_);
        out.put(last_);
        out.put(unwrapped_);
        out.put(std::uint64_t{levels_.size()});
        for (const Level& v : levels_) {
            out.put(v.start);
            out.put(v.first);
            out.put(v.half);
            out.put(v.pairs);
            out.put(v.sum);
            out.put(v.sum2);
        }
    }
    void restore(ArchiveReader& in) {
        const std::size_t tagged = last_.size();
        in.get(step_);
        in.get(t0_);
        in.get(samples_);
        in.get(largest_step_);
        in.get(last_);
        in.get(unwrapped_);
        const auto levels = in.get<std::uint64_t>();
        if (levels >= 64) throw ArchiveError("the state's diffusion windows are damaged");
        levels_.resize(levels);
        bool fits = last_.size() == tagged && unwrapped_.size() == tagged;
        for (Level& v : levels_) {
            in.get(v.start);
            in.get(v.first);
            in.get(v.half);
            in.get(v.pairs);
            in.get(v.sum);
            in.get(v.sum2);
            fits = fits && v.start.size() == tagged && v.first.size() == (v.half ? tagged : 0);
        }
        if (!fits) throw ArchiveError("the state's diffusion windows do not match its particles");
    }

  private:
    DiffusionWindows(const Box<D>& box, std::size_t n, double step, double t0)
        : box_(box), step_(step), t0_(t0), n_(n), last_(std::min(n, most_tagged)),
          unwrapped_(last_.size()) {}

    // The sample whose tagged positions scratch_ holds: unwrapped with the nearest image.
    void advance() {
        ++samples_;
        for (std::size_t m = 0; m < last_.size(); ++m) {
            const Vec<D> x = scratch_[m];
            const Vec<D> step = box_.minimum_image(x - last_[m]);
            for (int a = 0; a < D; ++a)
                if (box_.periodic[a])
                    largest_step_ = std::max(largest_step_, std::abs(step[a]) / box_.length[a]);
            unwrapped_[m] += step;
            last_[m] = x;
        }
        // every level whose window ends now: level l every 2^l samples
        for (std::size_t l = 0; (samples_ & ((std::uint64_t{1} << l) - 1)) == 0; ++l) {
            if (l == levels_.size()) {
                if (samples_ != (std::uint64_t{1} << l)) break; // (cannot happen)
                levels_.emplace_back();
                levels_.back().start.assign(last_.size(), Vec<D>{}); // the origin: U = 0
            }
            end_window(l);
        }
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

    struct Level {
        std::vector<Vec<D>> start, first; // U at the window's start; the pair's first window
        bool half = false;                // the first window of a pair is done
        std::uint64_t pairs = 0;
        double sum = 0.0, sum2 = 0.0; // of the pairs' estimates of D, and of their squares
    };

    // Level l's window ends now: b = U - start. The second window of a pair gives
    // D = < |a + b|^2 - (|a|^2 + |b|^2) / 2 > / (2 d tau).
    void end_window(std::size_t l) {
        Level& v = levels_[l];
        const double tau = std::ldexp(step_, static_cast<int>(l));
        if (!v.half) {
            v.first.resize(last_.size());
            for (std::size_t m = 0; m < last_.size(); ++m) v.first[m] = unwrapped_[m] - v.start[m];
        } else {
            double total = 0.0;
            for (std::size_t m = 0; m < last_.size(); ++m) {
                const Vec<D> a = v.first[m], b = unwrapped_[m] - v.start[m];
                total += norm2(a + b) - 0.5 * (norm2(a) + norm2(b));
            }
            const double estimate = total / static_cast<double>(last_.size()) / (2.0 * D * tau);
            ++v.pairs;
            v.sum += estimate;
            v.sum2 += estimate * estimate;
            v.first.clear(); // (48 bytes per particle only while half a pair is open)
        }
        v.half = !v.half;
        v.start = unwrapped_;
    }

    Box<D> box_;
    double step_, t0_;
    std::size_t n_; // particles (caller's indices 0 .. n-1)
    std::uint64_t samples_ = 0;
    double largest_step_ = 0.0;
    std::vector<Vec<D>> last_;      // wrapped position at the last sample
    std::vector<Vec<D>> unwrapped_; // U: displacement since t0, unwrapped
    std::vector<Level> levels_;
    std::vector<Vec<D>> scratch_; // positions read by a visit
};

} // namespace choc
