// output.histogram and output.velocity_histogram with `every`: the histogram of the speeds
// (or of the x velocities) at snapshots of the measured phase, one column pair per snapshot
// in one CSV, so that a relaxation is seen in one file (docs/REFERENCE.md, "Histogram
// series").
//
// The bins are fixed at the first snapshot in which anything moves, wide enough for
// Maxwell–Boltzmann at that snapshot's temperature (series_range in the .cpp), and stay
// so: columns of different times are then comparable bin by bin. A value outside them
// later (a heated or cooled gas) is counted in the snapshot's `outside` fraction, never
// dropped silently, so that each density integrates to 1 - outside.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/observers/velocity_distribution.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace choc {

enum class HistogramVariable : std::uint8_t { speed = 0, vx = 1 };

class HistogramSeries {
  public:
    HistogramSeries(HistogramVariable variable, std::vector<std::string> species_names);

    // One snapshot at `time` (the time of the time series' rows): binned at once, with its
    // temperature and the KS distance and p-value of the histogrammed variable.
    void add(double time, const SpeedSample& sample);

    std::size_t snapshots() const { return snapshots_.size(); }
    double last_time() const;

    // The CSV (docs/REFERENCE.md): a comment table of the snapshots, then a row per bin.
    std::string csv() const;

    // Its checkpoint (archive.hpp): everything added so far (the variable and names come
    // from the config). For ArchiveWriter and ArchiveReader, in the .cpp.
    template <class Archive>
    void fields(Archive& ar);

  private:
    struct Snapshot {
        double time = 0.0, temperature = 0.0, ks_distance = 0.0, ks_pvalue = 0.0;
        bool at_rest = false; // every particle at rest (taken before the bins were fixed)
        // counts[b * (species + 1)]: all particles in bin b, then one entry per species;
        // empty for a snapshot at rest until the bins are fixed
        std::vector<std::uint64_t> counts;
        std::vector<std::uint64_t> outside; // all particles, then per species

        template <class Archive>
        void fields(Archive& ar) {
            ar(time, temperature, ks_distance, ks_pvalue, at_rest, counts, outside);
        }
    };

    void fix_bins(const SpeedSample& sample, double kT);
    void bin(Snapshot& snap, const std::vector<double>& values,
             const std::vector<std::uint32_t>& species) const;

    HistogramVariable variable_;
    std::vector<std::string> names_;
    int dimension_ = 3;
    std::vector<double> mass_;         // per species
    std::vector<std::uint64_t> count_; // particles per species
    std::uint64_t bins_ = 0;           // 0: not fixed yet
    double low_ = 0.0, high_ = 0.0;
    std::vector<Snapshot> snapshots_;
};

} // namespace choc
