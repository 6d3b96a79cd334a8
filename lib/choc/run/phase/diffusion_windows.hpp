// D from many time origins (observers/diffusion_windows.hpp): the unwrapped displacements
// of tagged particles in a window ladder, sampled every window_step, in bulk boxes (2D and
// 3D). Its lags go into the summary with the displacement's D (phase/displacement.hpp).
#pragma once

#include "choc/observers/diffusion_windows.hpp"
#include "choc/run/phase/observer.hpp"

#include <memory>
#include <optional>
#include <spdlog/spdlog.h>
#include <vector>

namespace choc {

template <int D>
class DiffusionWindowsObserver final : public ObserverFields<DiffusionWindowsObserver<D>, D> {
  public:
    using Lag = typename DiffusionWindows<D>::Lag;

    static std::unique_ptr<DiffusionWindowsObserver> make(const PhaseSetup<D>& setup) {
        if (!bulk(setup.engine.box())) return nullptr;
        return std::unique_ptr<DiffusionWindowsObserver>(new DiffusionWindowsObserver(setup));
    }

    const char* name() const override { return "diffusion windows"; }
    double next_time() const override { return windows_ ? windows_->next_time() : never; }
    void sample(PhaseStop<D>& now) override {
        windows_->sample_visit(positions_at(engine_, now.time()));
    }
    // The windows exist when the saved phase began with particles moving, which the state
    // now restored need not tell: follow the saved state (its step, origin and positions
    // replace those of the windows built to restore into).
    template <class Archive>
    void fields(Archive& ar) {
        optional_field(ar, windows_, [&] {
            return DiffusionWindows<D>::from_visit(engine_.box(), engine_.particles().size(), 1.0,
                                                   start_, positions_at(engine_, engine_.time()));
        });
    }

    // D at each lag so far; none when a particle moved too far between two samples
    // (particles sped up after the step was set, in a field say).
    std::vector<Lag> lags() const {
        if (!windows_) return {};
        if (windows_->largest_step() > 0.25) {
            spdlog::warn("a particle moved {:.3g} of a box edge between two diffusion-window "
                         "samples: diffusion.lags and diffusion.windows are left out",
                         windows_->largest_step());
            return {};
        }
        return windows_->lags();
    }

  private:
    explicit DiffusionWindowsObserver(const PhaseSetup<D>& setup)
        : engine_(setup.engine), start_(setup.start) {
        if (setup.stepped())
            windows_ =
                DiffusionWindows<D>::from_visit(setup.engine.box(), setup.engine.particles().size(),
                                                setup.step, start_, positions_at(engine_, start_));
    }

    const EngineView<D>& engine_;
    double start_;
    std::optional<DiffusionWindows<D>> windows_;
};

} // namespace choc
