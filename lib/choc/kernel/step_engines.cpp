// The time-stepped engines, 2D and 3D, straight flights and a field: compiled here once,
// linked by every program that uses them (step_engine.hpp declares them extern).
#include "choc/kernel/step_engine.hpp"

namespace choc {
template class StepEngine<2>;
template class StepEngine<3>;
template class StepEngine<2, Field<2>>;
template class StepEngine<3, Field<3>>;
} // namespace choc
