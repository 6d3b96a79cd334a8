// What the observers of a measured phase read of the engine, whichever engine it is
// (event-driven or time-stepped, straight flights or a field): a narrow interface, so that
// the observers are compiled once per dimension (phase/observers.cpp) and not once for
// each of the run's four engines of that dimension.
//
// Called at samples, checkpoints and summaries, never in the event loop: virtual, and a
// visit costs one indirect call per particle, beside the work each sample does with it.
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/flux_tally.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tally.hpp"

#include <cstdint>
#include <functional>
#include <optional>

namespace choc {

template <int D>
class EngineView {
  public:
    using Visitor = std::function<void(std::uint32_t, const ParticleState<D>&)>;

    virtual ~EngineView() = default;
    virtual double time() const = 0;
    virtual const Box<D>& box() const = 0;
    // The engine's own particles (its order and time stamps): for their count and table.
    virtual const Particles<D>& particles() const = 0;
    virtual const Tally& tally() const = 0;
    // The kinetic energy of species s now, and its time integral over the measured phase.
    virtual double kinetic(std::uint32_t species) const = 0;
    virtual double kinetic_integral() const = 0;
    // Whether the engine can keep the momentum and energy flux integrals (the event-driven
    // one can, in a bulk fluid), and their moments now if it keeps them.
    virtual bool keeps_fluxes() const = 0;
    virtual std::optional<FluxMoments<D>> flux_moments() const = 0;
    // The particles in the caller's order at absolute time t (Engine::snapshot).
    virtual Particles<D> snapshot(double t) const = 0;
    // f(id, state at t) for every particle, in the engine's order (Engine::visit).
    virtual void visit(double t, const Visitor& f) const = 0;
};

// The view of an engine of type EngineT (Engine or StepEngine), which must outlive it.
template <int D, class EngineT>
class EngineViewOf final : public EngineView<D> {
  public:
    explicit EngineViewOf(const EngineT& engine) : engine_(engine) {}
    double time() const override { return engine_.time(); }
    const Box<D>& box() const override { return engine_.box(); }
    const Particles<D>& particles() const override { return engine_.particles(); }
    const Tally& tally() const override { return engine_.tally(); }
    double kinetic(std::uint32_t species) const override { return engine_.kinetic(species); }
    double kinetic_integral() const override { return engine_.kinetic_integral(); }
    bool keeps_fluxes() const override { return has_fluxes; }
    std::optional<FluxMoments<D>> flux_moments() const override {
        if constexpr (has_fluxes)
            return engine_.flux_moments();
        else
            return std::nullopt;
    }
    Particles<D> snapshot(double t) const override { return engine_.snapshot(t); }
    void visit(double t, const typename EngineView<D>::Visitor& f) const override {
        engine_.visit(t, f);
    }

  private:
    static constexpr bool has_fluxes = EngineT::keeps_fluxes;
    const EngineT& engine_;
};

} // namespace choc
