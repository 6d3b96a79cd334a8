// output.vacf: the velocity autocorrelation C(t) of up to 1024 particles
// (observers/velocity_autocorrelation.hpp), sampled every vacf_step.
#pragma once

#include "choc/observers/enskog.hpp"
#include "choc/observers/velocity_autocorrelation.hpp"
#include "choc/run/phase/observer.hpp"

#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <string>

namespace choc {

// The step of the velocity autocorrelation: a quarter of Enskog's mean free time of a
// one-size fluid of the largest diameter at the box's density and the particles' mean
// v^2 / d (a rough guess for a mixture or far from equilibrium; it sets only the resolution),
// 1 / (4 Gamma) with Gamma = 4 n sigma^2 g sqrt(pi kT / m) in 3D, 2 n sigma g sqrt(pi kT / m)
// in 2D. Infinite when nothing moves.
template <int D>
double vacf_step(const EngineView<D>& engine) {
    double v2 = 0.0, volume = 1.0, occupied = 0.0;
    engine.visit(engine.time(), [&](std::uint32_t, const auto& p) { v2 += norm2(p.v); });
    const auto& table = engine.particles().table;
    for (const auto& p : engine.particles().state)
        occupied +=
            D == 3 ? std::numbers::pi / 6.0 * std::pow(2.0 * table.species[p.species].radius, 3)
                   : std::numbers::pi / 4.0 * std::pow(2.0 * table.species[p.species].radius, 2);
    const auto n = static_cast<double>(engine.particles().size());
    if (n == 0.0 || v2 == 0.0) return never;
    for (int a = 0; a < D; ++a) volume *= engine.box().length[a];
    const double sigma = table.largest_diameter(), density = n / volume;
    const double g = enskog::contact_value(D, std::min(occupied / volume, 0.6));
    const double speed = std::sqrt(std::numbers::pi * v2 / (n * D)); // sqrt(pi kT / m)
    const double rate =
        D == 3 ? 4.0 * density * sigma * sigma * g * speed : 2.0 * density * sigma * g * speed;
    return 1.0 / (4.0 * rate);
}

template <int D>
class VacfObserver final : public ObserverFields<VacfObserver<D>, D> {
  public:
    static std::unique_ptr<VacfObserver> make(const PhaseSetup<D>& setup) {
        if (!setup.config.vacf) return nullptr;
        return std::unique_ptr<VacfObserver>(new VacfObserver(setup));
    }

    const char* name() const override { return "output.vacf"; }
    double next_time() const override { return vacf_ ? vacf_->next_time() : never; }
    void sample(PhaseStop<D>& now) override {
        vacf_->sample_visit([&](auto&& f) {
            engine_.visit(now.time(), [&](std::uint32_t id, const auto& p) { f(id, p.v); });
        });
    }
    // (like the diffusion windows, it exists when the saved phase's particles moved; its
    // step and origin replace those of the one built to restore into)
    template <class Archive>
    void fields(Archive& ar) {
        optional_field(ar, vacf_, [&] {
            return VelocityAutocorrelation<D>(engine_.particles().size(), 1.0, start_);
        });
    }

    // output.vacf's CSV so far; none when nothing moved at the start.
    std::optional<std::string> csv() const {
        return vacf_ ? std::optional(vacf_->csv()) : std::nullopt;
    }

  private:
    explicit VacfObserver(const PhaseSetup<D>& setup) : engine_(setup.engine), start_(setup.start) {
        const double every = vacf_step<D>(setup.engine);
        if (std::isfinite(every) && start_ + every > start_)
            vacf_.emplace(setup.engine.particles().size(), every, start_);
    }

    const EngineView<D>& engine_;
    double start_;
    std::optional<VelocityAutocorrelation<D>> vacf_;
};

} // namespace choc
