// The measured phase's observers (phase/observer.hpp), registered in observers.cpp in the
// order they are sampled at a stop they share and saved in a checkpoint. A new observer is
// one file in run/phase/ (a PhaseObserver: due time, sample, save and restore from one
// field list, summarise), its include below and one line in make_observers; a
// checkpoint's layout changes with the list (run/checkpoint.hpp: checkpoint_format).
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

template <int D>
using PhaseObservers = std::vector<std::unique_ptr<PhaseObserver<D>>>;

// The observers the run's config and box ask for (each make() gives none when not).
// Compiled once per dimension, in observers.cpp.
template <int D>
PhaseObservers<D> make_observers(const PhaseSetup<D>& setup);
extern template PhaseObservers<2> make_observers<2>(const PhaseSetup<2>&);
extern template PhaseObservers<3> make_observers<3>(const PhaseSetup<3>&);

} // namespace choc
