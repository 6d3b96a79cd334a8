// The event-driven engine for straight flights in 3D: compiled here once, linked by every
// program that uses it (engine.hpp declares it extern).
#include "choc/kernel/engine.hpp"

namespace choc {
template class Engine<3>;
} // namespace choc
