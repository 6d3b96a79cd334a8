// The measured phase's observers (observers.hpp), built for each dimension here once:
// the observers read the engine through EngineView (engine_view.hpp), so the run's four
// engines of a dimension share them.
#include "choc/run/phase/observers.hpp"

namespace choc {

template <int D>
PhaseObservers<D> make_observers(const PhaseSetup<D>& setup) {
    PhaseObservers<D> list;
    const auto add = [&list](auto observer) {
        auto* raw = observer.get();
        if (observer) list.push_back(std::move(observer));
        return raw;
    };
    const auto* crossing = add(CrossingObserver<D>::make(setup));
    const auto* windows = add(DiffusionWindowsObserver<D>::make(setup));
    add(VacfObserver<D>::make(setup));
    add(ProfileObserver<D>::make(setup));
    add(TransportObserver<D>::make(setup));
    auto* displacement = add(DisplacementObserver<D>::make(setup, windows));
    auto* frames = add(FramesObserver<D>::make(setup));
    add(RowsObserver<D>::make(setup, *displacement, crossing, frames));
    add(HistogramObserver<D>::make(setup, HistogramVariable::speed));
    add(HistogramObserver<D>::make(setup, HistogramVariable::vx));
    return list;
}

template PhaseObservers<2> make_observers<2>(const PhaseSetup<2>&);
template PhaseObservers<3> make_observers<3>(const PhaseSetup<3>&);

} // namespace choc
