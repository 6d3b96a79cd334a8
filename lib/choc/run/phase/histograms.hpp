// output.histogram and output.velocity_histogram with `every`: speed or x-velocity
// histograms of snapshots of the measured phase on bins fixed at the first
// (observers/histogram_series.hpp), kept in memory and written whole at the end, with the
// final state as the last snapshot.
#pragma once

#include "choc/errors.hpp"
#include "choc/observers/histogram_series.hpp"
#include "choc/observers/velocity_distribution.hpp"
#include "choc/run/phase/observer.hpp"
#include "choc/run/run_limits.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace choc {

template <int D>
class HistogramObserver final : public ObserverFields<HistogramObserver<D>, D> {
  public:
    static std::unique_ptr<HistogramObserver> make(const PhaseSetup<D>& setup,
                                                   HistogramVariable v) {
        const auto& output = v == HistogramVariable::speed ? setup.config.histogram
                                                           : setup.config.velocity_histogram;
        if (!output || !output->every) return nullptr;
        return std::unique_ptr<HistogramObserver>(new HistogramObserver(setup, v, *output->every));
    }

    const char* name() const override {
        return variable_ == HistogramVariable::speed ? "output.histogram"
                                                     : "output.velocity_histogram";
    }
    double next_time() const override { return snapshots_.next(start_); }
    // At most max_histogram_snapshots with the final state, as config.cpp allows for a run
    // of given time; only a run bounded by collisions alone can ask for more, and stops here.
    void sample(PhaseStop<D>& now) override {
        if (snapshots_.done + 1 >= max_histogram_snapshots)
            throw InputError(fmt::format(
                "output.{}.every: the run would take more than {} "
                "histogram snapshots",
                variable_ == HistogramVariable::speed ? "histogram" : "velocity_histogram",
                max_histogram_snapshots));
        series_.add(label_ + (now.time() - start_), speed_sample(now.snapshot()));
        ++snapshots_.done;
    }
    template <class Archive>
    void fields(Archive& ar) {
        ar(start_, snapshots_.done, series_);
    }

    HistogramVariable variable() const { return variable_; }
    // The CSV with the final state's velocities `final` as its last snapshot, unless a
    // snapshot was taken at this very time.
    std::string csv(const SpeedSample& final) const {
        const double now = label_ + (engine_.time() - start_);
        if (series_.snapshots() > 0 && series_.last_time() == now) return series_.csv();
        auto with_final = series_;
        with_final.add(now, final);
        return with_final.csv();
    }

  private:
    HistogramObserver(const PhaseSetup<D>& setup, HistogramVariable v, double every)
        : engine_(setup.engine), variable_(v), start_(setup.start), label_(setup.label),
          series_(v, species_names(setup.engine)) {
        snapshots_.every = every;
    }
    static std::vector<std::string> species_names(const EngineView<D>& engine) {
        std::vector<std::string> names;
        for (const auto& s : engine.particles().table.species) names.push_back(s.name);
        return names;
    }

    const EngineView<D>& engine_;
    HistogramVariable variable_;
    double start_; // the phase's start (a continuation's restored)
    double label_; // the clock of snapshots at the phase's start (init.from's time)
    Every snapshots_;
    HistogramSeries series_;
};

} // namespace choc
