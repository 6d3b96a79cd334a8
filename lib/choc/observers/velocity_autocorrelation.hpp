// The velocity autocorrelation function C(t) = < v_i(s) . v_i(s + t) > / d, averaged over
// tagged particles and over every sample s as a time origin, at lags that are even within a
// level and double from level to level, so that its long-time tail (t^(-d/2)) can be seen
// over decades.
//
// Level l holds the last `per_level` samples taken every 2^l steps, exactly as sampled (no
// averaging over blocks, unlike a multiple-tau correlator): at each of its samples, its
// lags k 2^l step, k = per_level / 2 .. per_level - 1 (k from 0 at level 0), are
// correlated with the newest sample. Level 0 gives lags 0 .. 15 steps, level 1 16 .. 30, level 2
// 32 .. 60, and so on. A lag's origins are every 2^l steps: at least as dense as its own
// spacing, which is all an average over origins needs.
//
// The error of each lag is the spread over 16 groups of the tagged particles (m mod 16) over
// the square root of 16: particles are nearly independent, origins are not.
// Memory: `levels` x `per_level` x tagged velocities (about 4 MB for 1024 particles, 12 levels).
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/vec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choc {

template <int D>
class VelocityAutocorrelation {
  public:
    static constexpr std::size_t most_tagged = 1024;
    static constexpr std::size_t groups = 16;
    static constexpr std::size_t per_level = 16;
    static constexpr std::size_t levels = 12; // lags to 16 x 2^11 steps

    struct Lag {
        double lag = 0.0;
        std::uint64_t origins = 0;
        double value = 0.0;          // C(lag): (kT / m) at lag 0 in equilibrium
        std::optional<double> error; // absent before every group has an origin
    };

    // n particles (caller's indices 0 .. n - 1), sampled every `step` from t0 (the first
    // sample is at t0 itself).
    VelocityAutocorrelation(std::size_t n, double step, double t0)
        : step_(step), t0_(t0), n_(n), tagged_(std::min(n, most_tagged)) {
        for (Level& v : levels_) {
            v.ring.assign(per_level * tagged_, Vec<D>{});
            v.sum.assign(per_level * groups, 0.0);
        }
    }

    double step() const { return step_; }
    double next_time() const { return t0_ + static_cast<double>(samples_) * step_; }

    // The sample at next_time(): visit(f) calls f(i, v_i) for every particle i.
    template <class Visit>
    void sample_visit(Visit&& visit) {
        scratch_.resize(tagged_);
        visit([&](std::size_t i, const Vec<D>& v) {
            const std::size_t m = (i * tagged_ + n_ - 1) / n_; // tagged(m) == i, if any
            if (m < tagged_ && m * n_ / tagged_ == i) scratch_[m] = v;
        });
        for (std::size_t l = 0; l < levels; ++l) {
            if ((samples_ & ((std::uint64_t{1} << l) - 1)) != 0) break;
            add(levels_[l], l);
        }
        ++samples_;
    }

    // C at every lag with an origin so far, shortest first.
    std::vector<Lag> lags() const {
        std::vector<Lag> out;
        for (std::size_t l = 0; l < levels; ++l) {
            const Level& v = levels_[l];
            for (std::size_t k = first_k(l); k < per_level; ++k) {
                if (v.origins[k] == 0) continue;
                Lag lag{std::ldexp(step_, static_cast<int>(l)) * static_cast<double>(k),
                        v.origins[k], 0.0, std::nullopt};
                // each group's mean over its particles and origins, then the groups' mean
                std::array<double, groups> means{};
                std::size_t filled = 0;
                for (std::size_t g = 0; g < groups; ++g) {
                    const std::size_t members = (tagged_ + groups - 1 - g) / groups;
                    if (members == 0) continue;
                    means[filled++] =
                        v.sum[k * groups + g] / (static_cast<double>(members * v.origins[k]) * D);
                }
                double mean = 0.0;
                for (std::size_t g = 0; g < filled; ++g) mean += means[g];
                mean /= static_cast<double>(filled);
                lag.value = mean;
                if (filled == groups) {
                    double var = 0.0;
                    for (const double x : means) var += (x - mean) * (x - mean);
                    lag.error = std::sqrt(var / (groups - 1.0) / groups);
                }
                out.push_back(lag);
            }
        }
        return out;
    }

    // The CSV of output.vacf: lag, C, its error, C / C(0), origins; one row per lag, numbers
    // in shortest round-trip form, `nan` where undefined.
    std::string csv() const {
        const auto all = lags();
        const double zero = all.empty() ? 0.0 : all.front().value;
        std::string text = "lag,vacf,vacf_err,normalized,origins\n";
        for (const Lag& l : all)
            text += fmt::format("{},{},{},{},{}\n", l.lag, l.value, l.error.value_or(std::nan("")),
                                zero != 0.0 ? l.value / zero : std::nan(""), l.origins);
        return text;
    }

    // Its checkpoint (archive.hpp): the clock, then every level (a fixed number, so no
    // count). A reader must tag as many particles as the saved one.
    template <class Archive>
    void fields(Archive& ar) {
        ar(step_, t0_, samples_);
        for (Level& v : levels_) {
            ar(v.ring, v.head, v.filled, v.origins, v.sum);
            if constexpr (Archive::loading)
                if (v.ring.size() != per_level * tagged_ || v.sum.size() != per_level * groups ||
                    v.head >= per_level || v.filled > per_level)
                    throw ArchiveError(
                        "the state's velocity autocorrelation does not match the run");
        }
    }

  private:
    static constexpr std::size_t first_k(std::size_t l) { return l == 0 ? 0 : per_level / 2; }

    struct Level {
        std::vector<Vec<D>> ring; // per_level samples of the tagged velocities, oldest overwritten
        std::uint64_t head = 0;   // where the next sample goes
        std::uint64_t filled = 0; // samples in the ring
        std::array<std::uint64_t, per_level> origins{}; // per k: origins so far
        std::vector<double> sum;                        // per k and group: sum of v(s) . v(s + lag)
    };

    // The sample in scratch_ enters level l's ring and is correlated with the ring's older
    // samples (and itself, k = 0).
    void add(Level& v, std::size_t l) {
        std::copy(scratch_.begin(), scratch_.end(), v.ring.begin() + v.head * tagged_);
        v.filled = std::min<std::uint64_t>(v.filled + 1, per_level);
        for (std::size_t k = first_k(l); k < v.filled; ++k) {
            const std::size_t then = (v.head + per_level - k) % per_level;
            const Vec<D>* old = v.ring.data() + then * tagged_;
            double* sum = v.sum.data() + k * groups;
            for (std::size_t m = 0; m < tagged_; ++m) sum[m % groups] += dot(old[m], scratch_[m]);
            ++v.origins[k];
        }
        v.head = (v.head + 1) % per_level;
    }

    double step_, t0_;
    std::size_t n_, tagged_;
    std::uint64_t samples_ = 0;
    std::array<Level, levels> levels_;
    std::vector<Vec<D>> scratch_;
};

} // namespace choc
