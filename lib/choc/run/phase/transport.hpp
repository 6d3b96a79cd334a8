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

template <int D>
class TransportObserver final : public ObserverFields<TransportObserver<D>, D> {
  public:
    static std::unique_ptr<TransportObserver> make(const PhaseSetup<D>& setup) {
        if (!setup.engine.keeps_fluxes()) return nullptr;
        return std::unique_ptr<TransportObserver>(new TransportObserver(setup));
    }

    const char* name() const override { return "transport windows"; }
    double next_time() const override { return transport_ ? transport_->next_time() : never; }
    void sample(PhaseStop<D>&) override {
        transport_->sample(*engine_.flux_moments(), engine_.kinetic_integral());
    }
    template <class Archive>
    void fields(Archive& ar) {
        optional_field(ar, transport_, [] { return TransportWindows<D>(); });
    }
    void summarise(Summary& s, const SummaryContext<D>& c) const override {
        if (transport_)
            if (const auto moments = engine_.flux_moments())
                transport_summary(s, c, *transport_, *moments);
    }

  private:
    explicit TransportObserver(const PhaseSetup<D>& setup) : engine_(setup.engine) {
        if (setup.stepped() && setup.engine.flux_moments() && !setup.engine.box().sheared()) {
            double mass = 0.0;
            Vec<D> momentum{};
            engine_.visit(engine_.time(), [&](std::uint32_t, const ParticleState<D>& p) {
                const double m = engine_.particles().table.species[p.species].mass;
                mass += m;
                momentum += p.v * m;
            });
            transport_.emplace(setup.step, setup.start, mass, momentum * (1.0 / mass));
        }
    }

    const EngineView<D>& engine_;
    std::optional<TransportWindows<D>> transport_;
};

} // namespace choc
