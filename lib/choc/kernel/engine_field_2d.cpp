// The event-driven engine for gravity and drag in 2D: compiled here once, linked by every
// program that uses it (engine.hpp declares it extern).
#include "choc/kernel/engine.hpp"

namespace choc {
template class Engine<2, DefaultCalendar, Field<2>>;
} // namespace choc
