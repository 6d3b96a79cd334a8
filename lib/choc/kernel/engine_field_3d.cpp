// The event-driven engine for gravity and drag in 3D: compiled here once, linked by every
// program that uses it (engine.hpp declares it extern).
#include "choc/kernel/engine.hpp"

namespace choc {
template class Engine<3, DefaultCalendar, Field<3>>;
} // namespace choc
