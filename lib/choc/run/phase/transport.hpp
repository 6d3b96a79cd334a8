// Shear viscosity, heat conduction and the pressure tensor of a bulk fluid
// (observers/transport_windows.hpp): the engine's flux moments in window ladders, sampled
// every window_step. Only the event-driven engine keeps the flux integrals (in a bulk
// fluid); none are measured between sliding boundaries.
#pragma once

#include "choc/observers/transport_windows.hpp"
#include "choc/run/phase/observer.hpp"

#include <memory>
#include <optional>

namespace choc {

template <int D, class EngineT>
class TransportObserver final : public ObserverFields<TransportObserver<D, EngineT>, D, EngineT> {
  public:
    static constexpr bool keeps_fluxes = requires(const EngineT& e) { e.flux_moments(); };

    static std::unique_ptr<TransportObserver> make(const PhaseSetup<D, EngineT>& setup) {
        if constexpr (!keeps_fluxes) {
            return nullptr;
        } else {
            return std::unique_ptr<TransportObserver>(new TransportObserver(setup));
        }
    }

    const char* name() const override { return "transport windows"; }
    double next_time() const override { return transport_ ? transport_->next_time() : never; }
    void sample(PhaseStop<D, EngineT>&) override {
        if constexpr (keeps_fluxes)
            transport_->sample(*engine_.flux_moments(), engine_.kinetic_integral());
    }
    template <class Archive>
    void fields(Archive& ar) {
        optional_field(ar, transport_, [] { return TransportWindows<D>(); });
    }
    void summarise(Summary& s, const SummaryContext<D>& c) const override {
        if constexpr (keeps_fluxes)
            if (transport_)
                if (const auto moments = engine_.flux_moments())
                    transport_summary(s, c, *transport_, *moments);
    }

  private:
    explicit TransportObserver(const PhaseSetup<D, EngineT>& setup) : engine_(setup.engine) {
        if constexpr (keeps_fluxes)
            if (setup.stepped() && setup.engine.flux_moments() && !setup.engine.box().sheared()) {
                double mass = 0.0;
                Vec<D> momentum{};
                engine_.visit(engine_.time(), [&](std::uint32_t, const auto& p) {
                    const double m = engine_.particles().table.species[p.species].mass;
                    mass += m;
                    momentum += p.v * m;
                });
                transport_.emplace(setup.step, setup.start, mass, momentum * (1.0 / mass));
            }
    }

    const EngineT& engine_;
    std::optional<TransportWindows<D>> transport_;
};

} // namespace choc
