// The mean-squared displacement and D from one origin (observers/displacement.hpp), with
// g(r) (observers/pair_correlation.hpp) on the same snapshots: positions unwrapped every
// displacement_interval (a particle must not move half an edge between two), g(r) at most
// once per rdf_spacing N collisions of them. Its summary is D, with the diffusion windows'
// lags (phase/diffusion_windows.hpp). Always registered: the time series reads its MSD
// (phase/rows.hpp); it keeps no record when no one needs it.
#pragma once

#include "choc/observers/displacement.hpp"
#include "choc/observers/pair_correlation.hpp"
#include "choc/run/phase/diffusion_windows.hpp"
#include "choc/run/phase/observer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <optional>

namespace choc {

template <int D>
class DisplacementObserver final : public ObserverFields<DisplacementObserver<D>, D> {
  public:
    // `windows`: the diffusion windows whose lags the summary gives with D, if any.
    static std::unique_ptr<DisplacementObserver> make(const PhaseSetup<D>& setup,
                                                      const DiffusionWindowsObserver<D>* windows) {
        return std::unique_ptr<DisplacementObserver>(new DisplacementObserver(setup, windows));
    }

    const char* name() const override { return "displacement"; }
    double next_time() const override { return next_unwrap_; }
    void sample(PhaseStop<D>& now) override {
        const double t = now.time();
        displacement_.sample(positions_at(engine_, t), t);
        double fastest = 0.0;
        engine_.visit(
            t, [&](std::uint32_t, const auto& p) { fastest = std::max(fastest, norm(p.v)); });
        const auto collisions = engine_.tally().collisions;
        if (rdf_ && (rdf_->samples() == 0 ||
                     static_cast<double>(collisions - rdf_collisions_) >=
                         rdf_spacing * static_cast<double>(engine_.particles().size()))) {
            rdf_->sample(now.snapshot());
            rdf_collisions_ = collisions;
        }
        // A step below the clock's resolution would sample this time forever.
        const double next = t + displacement_interval(engine_.box(), fastest);
        next_unwrap_ = next > t ? next : never;
    }
    template <class Archive>
    void fields(Archive& ar) {
        bool rdf = rdf_.has_value();
        ar(next_unwrap_, rdf_collisions_, displacement_, rdf);
        if (rdf != rdf_.has_value())
            throw ArchiveError("the state's g(r) does not match the config");
        if (rdf_) ar(*rdf_);
    }
    void summarise(Summary& s, const SummaryContext<D>& c) const override {
        const auto displacement = samples(c.final, c.time);
        diffusion_summary<D>(s, c, displacement,
                             windows_ ? windows_->lags()
                                      : std::vector<typename DiffusionWindows<D>::Lag>{});
    }

    // The record the time series samples at its rows too.
    Displacement<D>& displacement() { return displacement_; }
    // The samples so far with the final state `final` at time t as one more (when the clock
    // moved past the last sample): a copy, so that the phase can go on with its own.
    DisplacementSamples samples(const Particles<D>& final, double t) const {
        auto s =
            next_unwrap_ != never ? displacement_.with_sample(final, t) : displacement_.samples();
        if (s.largest_step() > 0.25)
            spdlog::warn("a particle moved {:.3g} of a box edge between two displacement "
                         "samples: the unwrapped mean-squared displacement may be wrong",
                         s.largest_step());
        return s;
    }
    // g(r) so far with the final state sampled too (when collisions happened since the last
    // sample); none without output.rdf.
    std::optional<PairCorrelation<D>> rdf(const Particles<D>& final) const {
        auto r = rdf_;
        if (r && engine_.tally().collisions > rdf_collisions_) r->sample(final);
        return r;
    }

  private:
    DisplacementObserver(const PhaseSetup<D>& setup, const DiffusionWindowsObserver<D>* windows)
        : engine_(setup.engine), windows_(windows),
          displacement_(setup.engine.box(),
                        wants_displacement(setup.engine.box(), setup.config)
                            ? setup.engine.particles().size()
                            : 0,
                        setup.engine.particles().table.size(),
                        positions_at(setup.engine, setup.engine.time()), setup.engine.time()) {
        const auto& box = setup.engine.box();
        if (setup.config.rdf)
            rdf_.emplace(box,
                         PairCorrelation<D>::range(
                             box, rdf_range * setup.engine.particles().table.largest_diameter()),
                         rdf_bin * setup.engine.particles().table.largest_diameter());
        // g(r) is averaged over the displacement's sampling times.
        if (wants_displacement(box, setup.config) || rdf_) next_unwrap_ = setup.start;
    }

    // Diffusion needs the displacement in 3D with every axis periodic; the time series
    // shows it in any box. Other runs keep no record (its 2 positions per particle).
    static bool wants_displacement(const Box<D>& box, const Config& config) {
        return (D == 3 && bulk(box)) || config.timeseries.has_value();
    }
    // g(r) out to 5 largest diameters (or a third of the shortest edge) in shells of 1/50.
    static constexpr double rdf_range = 5.0, rdf_bin = 0.02;
    // g(r) costs about as much per particle as two pair collisions (every particle within
    // the 3^D cells around each one), so it is sampled at most once per 10 N collisions
    // (20 per particle, ~10 % of the run's time); snapshots that close are correlated
    // anyway.
    static constexpr double rdf_spacing = 10.0;

    const EngineView<D>& engine_;
    const DiffusionWindowsObserver<D>* windows_;
    Displacement<D> displacement_;
    std::optional<PairCorrelation<D>> rdf_;
    double next_unwrap_ = never;       // never: no displacement or g(r) snapshots wanted
    std::uint64_t rdf_collisions_ = 0; // collisions at the last g(r) sample
};

} // namespace choc
