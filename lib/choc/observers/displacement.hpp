// Mean-squared displacement and the self-diffusion coefficient, from positions sampled now
// and then.
//
// Sampled positions live in the periodic box, so each particle's path is unwrapped
// between successive samples with the minimum image: the step x(t_k) - x(t_{k-1}) is
// taken as its nearest periodic image. That is right while no particle moves half an
// edge between two samples; the caller samples often enough (see run/phase/observer.hpp) and
// `largest_step` reports the worst step seen, as a fraction of the edge, to check it.
//
// D comes from the Einstein relation MSD(t) -> 2 d D t + const at long times: the slope of
// a least-squares line through the MSD samples in the second half of the measured phase
// (the first half holds the ballistic start, MSD ~ <v^2> t^2 for t below the mean free
// time, and the approach to the linear regime). The particles of each species are dealt
// into 16 groups (caller's index i mod 16), each group gives its own slope, and D_err is
// the standard error of their mean: particles are nearly independent walkers, so the
// groups are nearly independent estimates. A species' own D comes from its groups alone.
//
// The record is split in two: the per-particle part (last position, displacement so far:
// 6 doubles per particle in 3D) stays in `Displacement`; what the summary needs (the
// samples) is `DisplacementSamples`, small enough to copy, so that a summary can add the
// final state as one more sample without copying the particles' record.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/observers/standard_error.hpp"

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace choc {

// Slope fit of the MSD samples of each group (msd[k][g]: group g at times[k]) over
// times >= times.back() / 2, divided by 2 d; groups [first_group, last_group) only, and of
// those only the ones with particles (group_sizes > 0). Absent with fewer than three
// samples there or no such group.
std::optional<Estimate> diffusion_fit(int d, const std::vector<double>& times,
                                      const std::vector<std::vector<double>>& msd,
                                      const std::vector<double>& group_sizes,
                                      std::size_t first_group = 0,
                                      std::size_t last_group = ~std::size_t{0});

// The mean-squared displacement samples: per group of particles, at each sample time.
class DisplacementSamples {
  public:
    // Groups per species: group s * groups_per_species + (i mod groups_per_species) holds
    // the particles i of species s.
    static constexpr std::size_t groups_per_species = 16;

    DisplacementSamples(int dimension, std::vector<double> group_size)
        : dimension_(dimension), group_size_(std::move(group_size)) {}

    // A sample at time t (since t0) from every particle's squared displacement r2[i], in
    // group group[i], the largest step since the last sample counted.
    void add(double t, const std::vector<double>& r2, const std::vector<std::uint32_t>& group,
             double largest_step);

    // Mean over particles of |x(t) - x(t0)|^2 at the last sample (0 before any).
    double msd() const { return last_msd_; }
    // Largest |step component| / edge over periodic axes and all samples so far.
    double largest_step() const { return largest_step_; }
    // D of all particles. In a mixture, the species' own D weighted by their numbers, with
    // their errors combined as independent: the spread between groups of different species
    // is the species' real difference, not noise.
    std::optional<Estimate> diffusion() const;
    // Species s's own D (its groups only).
    std::optional<Estimate> diffusion(std::size_t s) const {
        return diffusion_fit(dimension_, times_, msd_, group_size_, s * groups_per_species,
                             (s + 1) * groups_per_species);
    }
    // The samples' times since t0, and the mean over all particles of |x(t) - x(t0)|^2 at
    // each (the groups' means weighted by their sizes).
    const std::vector<double>& times() const { return times_; }
    std::vector<double> msd_samples() const;

    // Its checkpoint (archive.hpp), for ArchiveWriter and ArchiveReader (in the .cpp). A
    // reader must have as many groups as the saved samples.
    template <class Archive>
    void fields(Archive& ar);

  private:
    int dimension_;
    std::vector<double> group_size_;
    std::vector<double> times_;
    std::vector<std::vector<double>> msd_;
    double last_msd_ = 0.0, largest_step_ = 0.0;
};

// What Displacement reads positions from: visit(f) calls f(i, x_i, species_i) for every
// particle i.
template <class V, int D>
concept PositionVisit = std::invocable<V&, void (*)(std::size_t, const Vec<D>&, std::uint32_t)>;

template <int D>
class Displacement {
  public:
    static constexpr std::size_t most_groups = DisplacementSamples::groups_per_species;

    // n particles of `species` species whose positions at t0 `visit` gives (as for
    // `sample`); n = 0 keeps no record (and takes no sample).
    template <class Visit>
    Displacement(const Box<D>& box, std::size_t n, std::size_t species, Visit&& visit, double t0)
        : box_(box), t0_(t0), last_(n), moved_(n), samples_(D, {}) {
        if (n == 0) return;
        std::vector<double> size(species * most_groups, 0.0);
        visit([&](std::size_t i, const Vec<D>& x, std::uint32_t s) {
            last_[i] = x;
            size[group_of(i, s)] += 1.0;
        });
        samples_ = DisplacementSamples(D, std::move(size));
    }
    Displacement(const Box<D>& box, const Particles<D>& start, double t0)
        : Displacement(box, start.size(), start.table.size(), positions_of(start), t0) {}

    // Positions of the same particles at time t, later than the last sample: `visit(f)`
    // calls f(i, x_i, species_i) once for every particle i (caller's index), in any order.
    template <PositionVisit<D> Visit>
    void sample(Visit&& visit, double t) {
        if (!due(t)) return;
        double largest = 0.0;
        std::vector<std::uint32_t> group;
        const auto r2 = squared_displacements(*this, visit, group, largest);
        samples_.add(t - t0_, r2, group, largest);
    }
    void sample(const Particles<D>& now, double t) { sample(positions_of(now), t); }

    // The samples so far with one more at time t from the positions `visit` gives (as
    // `sample`), the record itself unchanged.
    template <PositionVisit<D> Visit>
    DisplacementSamples with_sample(Visit&& visit, double t) const {
        DisplacementSamples s = samples_;
        if (!due(t)) return s;
        double largest = 0.0;
        std::vector<std::uint32_t> group;
        const auto r2 = squared_displacements(*this, visit, group, largest);
        s.add(t - t0_, r2, group, largest);
        return s;
    }
    DisplacementSamples with_sample(const Particles<D>& now, double t) const {
        return with_sample(positions_of(now), t);
    }

    const DisplacementSamples& samples() const { return samples_; }
    double msd() const { return samples_.msd(); }
    double largest_step() const { return samples_.largest_step(); }

    // Its checkpoint (archive.hpp): everything sampled so far (the box and groups follow
    // from the particles, which the caller gives again). A reader must be a record of as
    // many particles as the saved one.
    template <class Archive>
    void fields(Archive& ar) {
        const std::size_t n = last_.size();
        ar(t0_, last_, moved_);
        if constexpr (Archive::loading)
            if (last_.size() != n || moved_.size() != n)
                throw ArchiveError("the state's displacement record does not match its particles");
        ar(samples_);
    }

  private:
    static std::uint32_t group_of(std::size_t i, std::uint32_t species) {
        return static_cast<std::uint32_t>(species * most_groups + i % most_groups);
    }
    bool due(double t) const {
        return !last_.empty() && (samples_.times().empty() || t > t0_ + samples_.times().back());
    }
    static auto positions_of(const Particles<D>& now) {
        return [&now](auto&& f) {
            for (std::size_t i = 0; i < now.size(); ++i) f(i, now.state[i].x, now.state[i].species);
        };
    }
    // |x_i(t) - x_i(t0)|^2 of every particle, by caller's index, unwrapped from the
    // positions `visit` gives, and its group; `largest` takes the largest step. A non-const
    // `self` moves its record on to these positions.
    template <class Self, class Visit>
    static std::vector<double> squared_displacements(Self& self, Visit& visit,
                                                     std::vector<std::uint32_t>& group,
                                                     double& largest) {
        std::vector<double> r2(self.last_.size());
        group.assign(self.last_.size(), 0);
        visit([&](std::size_t i, const Vec<D>& x, std::uint32_t species) {
            group[i] = group_of(i, species);
            Vec<D> step = self.box_.minimum_image(x - self.last_[i]);
            // Under sliding boundaries a crossing of the y face moves x by the images'
            // offset and the flow carries x along: only the other axes are displacements.
            if (self.box_.sheared()) step[0] = 0.0;
            for (int a = 0; a < D; ++a)
                if (self.box_.periodic[a])
                    largest = std::max(largest, std::abs(step[a]) / self.box_.length[a]);
            const Vec<D> moved = self.moved_[i] + step;
            r2[i] = norm2(moved);
            if constexpr (!std::is_const_v<Self>) {
                self.last_[i] = x;
                self.moved_[i] = moved;
            }
        });
        return r2;
    }

    Box<D> box_;
    double t0_;
    std::vector<Vec<D>> last_, moved_;
    DisplacementSamples samples_;
};

} // namespace choc
