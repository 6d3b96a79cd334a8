// The measured phase's observers (phase/observer.hpp), registered here in the order they
// are sampled at a stop they share and saved in a checkpoint. A new observer is one file in
// run/phase/ (a PhaseObserver: due time, sample, save and restore from one field list,
// summarise) and one line below; a checkpoint's layout changes with the list
// (run/checkpoint.hpp: checkpoint_format).
#pragma once

#include "choc/run/phase/crossing.hpp"
#include "choc/run/phase/diffusion_windows.hpp"
#include "choc/run/phase/displacement.hpp"
#include "choc/run/phase/frames.hpp"
#include "choc/run/phase/histograms.hpp"
#include "choc/run/phase/observer.hpp"
#include "choc/run/phase/profile.hpp"
#include "choc/run/phase/rows.hpp"
#include "choc/run/phase/transport.hpp"
#include "choc/run/phase/vacf.hpp"

#include <memory>
#include <vector>

namespace choc {

template <int D, class EngineT>
using PhaseObservers = std::vector<std::unique_ptr<PhaseObserver<D, EngineT>>>;

// The observers the run's config and box ask for (each make() gives none when not).
template <int D, class EngineT>
PhaseObservers<D, EngineT> make_observers(const PhaseSetup<D, EngineT>& setup) {
    PhaseObservers<D, EngineT> list;
    const auto add = [&list](auto observer) {
        auto* raw = observer.get();
        if (observer) list.push_back(std::move(observer));
        return raw;
    };
    const auto* crossing = add(CrossingObserver<D, EngineT>::make(setup));
    const auto* windows = add(DiffusionWindowsObserver<D, EngineT>::make(setup));
    add(VacfObserver<D, EngineT>::make(setup));
    add(ProfileObserver<D, EngineT>::make(setup));
    add(TransportObserver<D, EngineT>::make(setup));
    auto* displacement = add(DisplacementObserver<D, EngineT>::make(setup, windows));
    auto* frames = add(FramesObserver<D, EngineT>::make(setup));
    add(RowsObserver<D, EngineT>::make(setup, *displacement, crossing, frames));
    add(HistogramObserver<D, EngineT>::make(setup, HistogramVariable::speed));
    add(HistogramObserver<D, EngineT>::make(setup, HistogramVariable::vx));
    return list;
}

} // namespace choc
