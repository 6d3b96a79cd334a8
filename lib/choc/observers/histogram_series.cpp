#include "choc/observers/histogram_series.hpp"

#include "choc/observers/ks_pvalue.hpp"
#include "choc/observers/maxwell_boltzmann.hpp"
#include "choc/observers/speed_histogram.hpp"
#include "choc/run/run_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace choc {
namespace {

// The bins reach this many thermal speeds sqrt(kT / m) of the lightest species at the
// snapshot that fixes them (or the largest value then, if that is further): Maxwell–
// Boltzmann leaves less than 1e-7 of the particles beyond (3D speeds: 7e-8; 2D: 2e-8;
// one component, both tails: 2e-9), so an equilibrated gas at that temperature has
// nothing outside, while a start far from it (equal speeds) is covered as it relaxes.
constexpr double thermal_speeds = 6.0;

const char* variable_name(HistogramVariable v) {
    return v == HistogramVariable::speed ? "speed" : "vx";
}

} // namespace

HistogramSeries::HistogramSeries(HistogramVariable variable, std::vector<std::string> names)
    : variable_(variable), names_(std::move(names)) {}

double HistogramSeries::last_time() const {
    return snapshots_.empty() ? -std::numeric_limits<double>::infinity() : snapshots_.back().time;
}

// The bins of the whole series, as many as the final-state histogram's (histogram_bins);
// the range covers the values now and Maxwell–Boltzmann at
// kT (thermal_speeds).
void HistogramSeries::fix_bins(const SpeedSample& s, double kT) {
    double lightest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < s.mass.size(); ++k)
        if (s.count[k] > 0) lightest = std::min(lightest, s.mass[k]);
    double top = thermal_speeds * std::sqrt(kT / lightest);
    if (variable_ == HistogramVariable::speed)
        for (double v : s.speed) top = std::max(top, v);
    else
        for (double v : s.vx) top = std::max(top, std::abs(v));
    low_ = variable_ == HistogramVariable::speed ? 0.0 : -top;
    high_ = top;
    bins_ = histogram_bins(s.speed.size());
}

void HistogramSeries::bin(Snapshot& snap, const std::vector<double>& values,
                          const std::vector<std::uint32_t>& species) const {
    const std::size_t columns = mass_.size() + 1;
    snap.counts.assign(bins_ * columns, 0);
    snap.outside.assign(columns, 0);
    const double width = (high_ - low_) / static_cast<double>(bins_);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double x = values[i];
        if (!(x >= low_ && x <= high_)) {
            ++snap.outside[0];
            ++snap.outside[1 + species[i]];
            continue;
        }
        // (x = high_, or round-off just below it, belongs to the last bin)
        const auto b = std::min(bins_ - 1, static_cast<std::uint64_t>((x - low_) / width));
        ++snap.counts[b * columns];
        ++snap.counts[b * columns + 1 + species[i]];
    }
}

void HistogramSeries::add(double time, const SpeedSample& s) {
    dimension_ = s.dimension;
    mass_ = s.mass;
    count_ = s.count;
    Snapshot snap;
    snap.time = time;
    snap.temperature = sample_temperature(s);
    const auto n = static_cast<std::uint64_t>(s.speed.size());
    if (variable_ == HistogramVariable::speed) {
        // the statistics of the time series: mass-scaled speeds against one MB
        const VelocityStats stats = velocity_stats(s);
        snap.ks_distance = stats.ks_distance;
        snap.ks_pvalue = stats.ks_pvalue;
    } else {
        snap.ks_distance = component_ks_distance(s, snap.temperature);
        snap.ks_pvalue = ks_pvalue(snap.ks_distance, n);
    }
    snap.at_rest = !(snap.temperature > 0.0);
    if (bins_ == 0 && !snap.at_rest) {
        fix_bins(s, snap.temperature);
        // the snapshots before, every particle at rest: all at 0, inside the bins
        const std::vector<double> zeros(n, 0.0);
        for (auto& before : snapshots_) bin(before, zeros, s.species);
    }
    if (bins_ > 0) bin(snap, variable_ == HistogramVariable::speed ? s.speed : s.vx, s.species);
    snapshots_.push_back(std::move(snap));
}

std::string HistogramSeries::csv() const {
    const std::size_t species = mass_.size(), columns = species + 1;
    const bool per_species = species > 1;
    const auto n =
        static_cast<double>(std::accumulate(count_.begin(), count_.end(), std::uint64_t{0}));
    auto fraction = [](std::uint64_t part, double whole) {
        return whole > 0.0 ? static_cast<double>(part) / whole : 0.0;
    };
    // The snapshots as a comment table: a CSV of its own once "# " is cut off each line.
    std::string out = "# snapshot,time,temperature,ks_distance,ks_pvalue,outside";
    if (per_species)
        for (const auto& name : names_) out += ",outside_" + name;
    out += "\n";
    for (std::size_t k = 0; k < snapshots_.size(); ++k) {
        const Snapshot& s = snapshots_[k];
        out += fmt::format("# {},{},{},{},{},{}", k, s.time, s.temperature, s.ks_distance,
                           s.ks_pvalue, s.outside.empty() ? 0.0 : fraction(s.outside[0], n));
        if (per_species)
            for (std::size_t j = 0; j < species; ++j)
                out += fmt::format(
                    ",{}", s.outside.empty()
                               ? 0.0
                               : fraction(s.outside[1 + j], static_cast<double>(count_[j])));
        out += "\n";
    }
    const char* v = variable_name(variable_);
    out += fmt::format("{0}_low,{0}_high,{0}", v);
    for (std::size_t k = 0; k < snapshots_.size(); ++k) {
        out += fmt::format(",density_{0},maxwell_boltzmann_{0}", k);
        if (per_species)
            for (const auto& name : names_)
                out += fmt::format(",density_{0}_{1},maxwell_boltzmann_{0}_{1}", name, k);
    }
    out += "\n";
    const double width = bins_ > 0 ? (high_ - low_) / static_cast<double>(bins_) : 0.0;
    auto reference = [&](double x, double kT, double m) {
        return variable_ == HistogramVariable::speed ? maxwell_speed_density(dimension_, x, kT, m)
                                                     : maxwell_component_density(x, kT, m);
    };
    for (std::uint64_t b = 0; b < bins_; ++b) {
        const double from = low_ + static_cast<double>(b) * width, to = from + width;
        const double mid = 0.5 * (from + to);
        out += fmt::format("{},{},{}", from, to, mid);
        for (const Snapshot& s : snapshots_) {
            // no Maxwell–Boltzmann to compare with at kT = 0
            const double nan = std::numeric_limits<double>::quiet_NaN();
            double mixed = 0.0;
            for (std::size_t j = 0; j < species; ++j)
                mixed += static_cast<double>(count_[j]) / n *
                         (s.at_rest ? nan : reference(mid, s.temperature, mass_[j]));
            out += fmt::format(",{},{}", static_cast<double>(s.counts[b * columns]) / (n * width),
                               mixed);
            if (per_species)
                for (std::size_t j = 0; j < species; ++j)
                    out +=
                        fmt::format(",{},{}",
                                    count_[j] ? static_cast<double>(s.counts[b * columns + 1 + j]) /
                                                    (static_cast<double>(count_[j]) * width)
                                              : 0.0,
                                    s.at_rest ? nan : reference(mid, s.temperature, mass_[j]));
        }
        out += "\n";
    }
    return out;
}

// The dimension as 32 bits whatever int is, and the snapshots' count before them (checked
// before anything is allocated for them).
template <class Archive>
void HistogramSeries::fields(Archive& ar) {
    auto dimension = static_cast<std::int32_t>(dimension_);
    auto snapshots = std::uint64_t{snapshots_.size()};
    ar(dimension, mass_, count_, bins_, low_, high_, snapshots);
    if constexpr (Archive::loading) {
        dimension_ = dimension;
        if (snapshots > max_histogram_snapshots || mass_.size() != count_.size() ||
            (dimension_ != 2 && dimension_ != 3))
            throw ArchiveError("the state's histogram series is damaged");
        snapshots_.assign(snapshots, {});
    }
    const std::size_t columns = mass_.size() + 1;
    for (auto& s : snapshots_) {
        ar(s);
        if constexpr (Archive::loading)
            if (bins_ > 0 && (s.counts.size() != bins_ * columns || s.outside.size() != columns))
                throw ArchiveError("the state's histogram series is damaged");
    }
}
template void HistogramSeries::fields(ArchiveWriter&);
template void HistogramSeries::fields(ArchiveReader&);

} // namespace choc
