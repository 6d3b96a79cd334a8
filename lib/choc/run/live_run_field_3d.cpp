// The run in 3D with gravity and drag (live_run.hpp), event-driven or time-stepped: one of
// four sources that compile side by side (simulation_impl.hpp).
#include "choc/run/live_run.hpp"

namespace choc::live {
template std::unique_ptr<Simulation::Impl>
live_run_for<3, Field<3>>(const Config&, const RunOptions&, const std::string&, Field<3>,
                          const Checkpoint*, const StageStart*);
} // namespace choc::live
