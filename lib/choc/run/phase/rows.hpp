// output.timeseries: a row every `every` (time, collisions per particle, temperatures, the
// running Z, the velocity statistics, the MSD, the crossings), written in place in a
// checkpointed run, kept in memory without files (RunOptions::files).
#pragma once

#include "choc/errors.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/observers/pressure.hpp"
#include "choc/observers/time_series.hpp"
#include "choc/observers/velocity_distribution.hpp"
#include "choc/run/phase/crossing.hpp"
#include "choc/run/phase/displacement.hpp"
#include "choc/run/phase/frames.hpp"
#include "choc/run/phase/observer.hpp"
#include "choc/run/provenance_text.hpp"
#include "choc/run/run_limits.hpp"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace choc {

template <int D>
class RowsObserver final : public ObserverFields<RowsObserver<D>, D> {
  public:
    // Each row samples `displacement` for its MSD, reads `crossing` if any, and goes to the
    // trajectory's observables too (`frames`, if any: H5MD keeps them).
    static std::unique_ptr<RowsObserver> make(const PhaseSetup<D>& setup,
                                              DisplacementObserver<D>& displacement,
                                              const CrossingObserver<D>* crossing,
                                              FramesObserver<D>* frames) {
        if (!setup.config.timeseries) return nullptr;
        return std::unique_ptr<RowsObserver>(
            new RowsObserver(setup, displacement, crossing, frames));
    }

    const char* name() const override { return "output.timeseries"; }
    double next_time() const override { return rows_.next(start_); }
    void sample(PhaseStop<D>& now) override { write_row(now.snapshot()); }
    template <class Archive>
    void fields(Archive& ar) {
        ar(start_, rows_.done);
    }

    // The rows of a run without files, in memory.
    const std::vector<TimeSeriesRow>& rows() const { return kept_; }
    // Where the file stands, for a checkpoint (none unless written in place).
    std::optional<StreamMark> mark() {
        if (!series_ || !series_->in_place()) return std::nullopt;
        return StreamMark{series_->path(), series_->mark()};
    }
    // The file into place, with its footer.
    void publish(const std::string& footer) {
        if (series_) series_->commit(footer);
    }

  private:
    RowsObserver(const PhaseSetup<D>& setup, DisplacementObserver<D>& displacement,
                 const CrossingObserver<D>* crossing, FramesObserver<D>* frames)
        : engine_(setup.engine), displacement_(displacement), crossing_(crossing), frames_(frames),
          start_(setup.start), label_(setup.label) {
        const auto& config = setup.config;
        rows_.every = config.timeseries->every;
        std::vector<std::string> names;
        for (const auto& s : engine_.particles().table.species) names.push_back(s.name);
        if (setup.options.files)
            series_.emplace(
                config.timeseries->path, names, config.crossing.has_value(),
                provenance_header(setup.origin),
                placement(setup.streams, setup.streams.series, config.timeseries->path));
    }

    // At most max_frames rows, the count config.cpp allows for a run of given time; only a
    // run bounded by collisions alone can ask for more, and stops here.
    void write_row(const Particles<D>& snapshot) {
        if (rows_.done >= max_frames)
            throw InputError("output.timeseries.every: the run would write more than " +
                             std::to_string(max_frames) + " rows");
        displacement_.displacement().sample(snapshot, engine_.time());
        const auto& t = engine_.tally();
        const auto n = static_cast<double>(snapshot.size());
        TimeSeriesRow row;
        row.time = label_ + (engine_.time() - start_);
        row.collisions_per_particle = 2.0 * static_cast<double>(t.collisions) / n;
        // kT = 2 KE / (d N), overall and per species, from the engine's running energies.
        const auto& species = snapshot.table.species;
        std::vector<double> count(species.size(), 0.0);
        for (const auto& p : snapshot.state) count[p.species] += 1.0;
        double kinetic = 0.0;
        for (std::size_t k = 0; k < species.size(); ++k) {
            const double k_now = engine_.kinetic(static_cast<std::uint32_t>(k));
            kinetic += k_now;
            row.species_temperature.push_back(count[k] > 0 ? temperature(k_now, count[k], D)
                                                           : std::nan(""));
        }
        row.temperature = temperature(kinetic, n, D);
        row.Z = running_z(t.virial, engine_.kinetic_integral());
        row.velocities = velocity_stats(speed_sample(snapshot));
        row.msd = displacement_.displacement().msd();
        if (crossing_) row.crossed = static_cast<double>(crossing_->crossed());
        if (series_)
            series_->write(row);
        else
            kept_.push_back(row);
        if (frames_) frames_->write_observables(row);
        ++rows_.done;
    }

    const EngineView<D>& engine_;
    DisplacementObserver<D>& displacement_;
    const CrossingObserver<D>* crossing_;
    FramesObserver<D>* frames_;
    double start_; // the phase's start (a continuation's restored)
    double label_; // the clock of rows at the phase's start (init.from's time)
    Every rows_;
    std::optional<TimeSeries> series_;
    std::vector<TimeSeriesRow> kept_; // without files
};

} // namespace choc
