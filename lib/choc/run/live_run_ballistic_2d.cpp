// The run in 2D with straight flights (live_run.hpp), event-driven or time-stepped: one of
// four sources that compile side by side (simulation_impl.hpp).
#include "choc/run/live_run.hpp"

namespace choc::live {
template std::unique_ptr<Simulation::Impl>
live_run_for<2, Ballistic<2>>(const Config&, const RunOptions&, const std::string&, Ballistic<2>,
                              const Checkpoint*, const StageStart*);
} // namespace choc::live
