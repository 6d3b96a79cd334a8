// output.timeseries: one CSV row per sample of the measured phase, written atomically
// (the file appears complete at the end of the run, or not at all). The run's provenance
// comes first as "# " comment lines (`header`), before the column names; `footer`, also
// comment lines, ends the file at commit (docs/REFERENCE.md, "Time series").
#pragma once

#include "choc/io/atomic_file.hpp"
#include "choc/observers/velocity_distribution.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

namespace choc {

struct TimeSeriesRow {
    double time = 0.0;                    // since the measured phase began
    double collisions_per_particle = 0.0; // 2 * collisions / N so far
    double temperature = 0.0;             // instantaneous kT = 2 KE / (d N)
    std::vector<double> species_temperature;
    double Z = 0.0; // running 1 + W / (2 K) over the measured phase
    VelocityStats velocities;
    double msd = 0.0;              // mean-squared displacement since the measured phase began
    std::optional<double> crossed; // output.crossing: net crossings of its plane so far
};

// The column line (with its newline) and one row's line, as the file holds them: numbers
// in shortest round-trip form, a quantity not defined yet `nan`.
inline std::string timeseries_columns(const std::vector<std::string>& species, bool crossing) {
    std::string out = "time,collisions_per_particle,temperature";
    for (const auto& name : species) out += ",temperature_" + name;
    return out + ",Z,kurtosis,ks_distance,ks_pvalue,H,msd" + (crossing ? ",crossed\n" : "\n");
}
inline std::string timeseries_line(const TimeSeriesRow& r) {
    std::string out = fmt::format("{},{},{}", r.time, r.collisions_per_particle, r.temperature);
    for (double t : r.species_temperature) out += fmt::format(",{}", t);
    out += fmt::format(",{},{},{},{},{},{}", r.Z, r.velocities.kurtosis, r.velocities.ks_distance,
                       r.velocities.ks_pvalue, r.velocities.H, r.msd);
    return out + (r.crossed ? fmt::format(",{}\n", *r.crossed) : "\n");
}

class TimeSeries {
  public:
    // `in_place`: a checkpointed run (atomic_file.hpp); resuming one, the header is
    // already in the file.
    TimeSeries(const std::string& path, const std::vector<std::string>& species, bool crossing,
               const std::string& header = {}, std::optional<InPlace> in_place = std::nullopt)
        : out_(path, "output.timeseries.path", in_place) {
        if (in_place && in_place->resume) return;
        out_.stream() << header << timeseries_columns(species, crossing);
    }

    void write(const TimeSeriesRow& r) { out_.stream() << timeseries_line(r); }

    void commit(const std::string& footer = {}) {
        out_.stream() << footer;
        out_.commit();
    }

    OutputMark mark() { return out_.mark(); }
    bool in_place() const { return out_.in_place(); }
    const std::string& path() const { return out_.path(); }

  private:
    AtomicOutput out_;
};

} // namespace choc
