// Transport coefficients from many time origins: a ladder of window lengths, each giving
// estimates from pairs of consecutive windows, whose mean and spread improve as the run goes.
//
// A transport coefficient is the growth rate of an Einstein–Helfand moment M(t): a particle's
// unwrapped position for self-diffusion, the time integral of the momentum or energy flux for
// viscosity or heat conduction. Its mean-squared change is linear at long lags,
//     < |M(t + tau) - M(t)|^2 > = 2 c (tau - t_c),
// with an offset t_c from the correlated start. Two consecutive windows of length tau, over
// which M changes by a and then by b, cancel the offset:
//     < |a + b|^2 - (|a|^2 + |b|^2) / 2 > = 2 c (2 tau - t_c) - 2 c (tau - t_c) = 2 c tau.
// So each pair of consecutive windows estimates c: the mean of that over the moments, divided
// by 2 tau (and by the moment's number of components q when c is wanted per component: the
// d axes of a displacement). Pairs that do not overlap are nearly independent (they are correlated
// only through the slow tail of the flux's autocorrelation). The mean over all pairs so far is c at
// lag tau, and its error is their spread over the square root of their number. Windows are cut at
// every 2^l samples for every level l (tau_l = 2^l step), so a run of T has about T / (2 tau_l)
// pairs at level l: short lags are well sampled, long ones approach the limit.
//
// T is the type of one moment: a Vec<D> (|a|^2 its squared norm) or a double.
// Memory: two moments per moment and level while a pair is half done, one otherwise.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace choc {

template <class T>
class WindowLadder {
  public:
    // The summary's value: the longest lag with at least this many pairs.
    static constexpr std::uint64_t least_pairs = 16;

    // c at one lag: the windows' length, how many pairs of windows, and the estimate.
    struct Lag {
        double lag = 0.0;
        std::uint64_t pairs = 0;
        double value = 0.0;
        std::optional<double> error; // absent with fewer than two pairs
    };

    // Moments whose values at t0 are `origin`, to be sampled every `step` from t0; q
    // components to each (above).
    WindowLadder(std::vector<T> origin, double step, double t0, double q = 1.0)
        : step_(step), t0_(t0), q_(q), origin_(std::move(origin)) {}

    double step() const { return step_; }
    // The time of the next sample.
    double next_time() const { return t0_ + static_cast<double>(samples_ + 1) * step_; }
    std::size_t size() const { return origin_.size(); }

    // The moments at next_time().
    void advance(const std::vector<T>& moments) {
        ++samples_;
        // every level whose window ends now: level l every 2^l samples
        for (std::size_t l = 0; (samples_ & ((std::uint64_t{1} << l) - 1)) == 0; ++l) {
            if (l == levels_.size()) {
                if (samples_ != (std::uint64_t{1} << l)) break; // (cannot happen)
                levels_.emplace_back();
                levels_.back().start = origin_; // its first window starts at t0
            }
            end_window(l, moments);
        }
    }

    // c at every lag so far (level l: lag 2^l step), shortest first, each estimate
    // multiplied by `scale`.
    std::vector<Lag> lags(double scale = 1.0) const {
        std::vector<Lag> out;
        for (std::size_t l = 0; l < levels_.size(); ++l) {
            const Level& v = levels_[l];
            if (v.pairs == 0) continue;
            Lag lag{std::ldexp(step_, static_cast<int>(l)), v.pairs, 0.0, std::nullopt};
            const double n = static_cast<double>(v.pairs);
            const double mean = v.sum / n;
            lag.value = scale * mean;
            if (v.pairs > 1)
                lag.error = std::abs(scale) *
                            std::sqrt(std::max(0.0, v.sum2 / n - mean * mean) / (n - 1.0));
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

    // Its checkpoint (archive.hpp): the clock, the origin and each level (its count first).
    // A reader must be a ladder of as many moments as the saved one.
    template <class Archive>
    void fields(Archive& ar) {
        const std::size_t n = origin_.size();
        auto levels = std::uint64_t{levels_.size()};
        ar(step_, t0_, q_, samples_, origin_, levels);
        if constexpr (Archive::loading) {
            // (a level per doubling of the samples: 64 would take 2^63 of them)
            if (levels >= 64) throw ArchiveError("the state's transport windows are damaged");
            levels_.resize(levels);
        }
        for (Level& v : levels_) ar(v);
        if constexpr (Archive::loading) {
            bool fits = origin_.size() == n;
            for (const Level& v : levels_)
                fits = fits && v.start.size() == n && v.first.size() == (v.half ? n : 0);
            if (!fits) throw ArchiveError("the state's transport windows do not match the run");
        }
    }

  private:
    static double square(double x) { return x * x; }
    template <int D>
    static double square(const Vec<D>& x) {
        return norm2(x);
    }

    struct Level {
        std::vector<T> start, first; // M at the window's start; the pair's first window
        bool half = false;           // the first window of a pair is done
        std::uint64_t pairs = 0;
        double sum = 0.0, sum2 = 0.0; // of the pairs' estimates, and of their squares

        template <class Archive>
        void fields(Archive& ar) {
            ar(start, first, half, pairs, sum, sum2);
        }
    };

    // Level l's window ends now: b = M - start. The second window of a pair gives
    // c = < |a + b|^2 - (|a|^2 + |b|^2) / 2 > / (2 q tau).
    void end_window(std::size_t l, const std::vector<T>& moments) {
        Level& v = levels_[l];
        const double tau = std::ldexp(step_, static_cast<int>(l));
        const std::size_t n = origin_.size();
        if (!v.half) {
            v.first.resize(n);
            for (std::size_t m = 0; m < n; ++m) v.first[m] = moments[m] - v.start[m];
        } else {
            double total = 0.0;
            for (std::size_t m = 0; m < n; ++m) {
                const T a = v.first[m], b = moments[m] - v.start[m];
                total += square(a + b) - 0.5 * (square(a) + square(b));
            }
            const double estimate = total / static_cast<double>(n) / (2.0 * q_ * tau);
            ++v.pairs;
            v.sum += estimate;
            v.sum2 += estimate * estimate;
            v.first.clear(); // (kept only while half a pair is open)
        }
        v.half = !v.half;
        v.start = moments;
    }

    double step_, t0_, q_;
    std::uint64_t samples_ = 0;
    std::vector<T> origin_; // the moments at t0
    std::vector<Level> levels_;
};

} // namespace choc
