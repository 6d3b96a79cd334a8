// The logged engines of the tests (logged_engine.hpp), compiled once for all of them.
#include "logged_engine.hpp"

namespace choc {
template class Engine<2, DefaultCalendar, Ballistic<2>, ForwardingLog>;
template class Engine<3, DefaultCalendar, Ballistic<3>, ForwardingLog>;
template class Engine<2, DefaultCalendar, Field<2>, ForwardingLog>;
template class Engine<3, DefaultCalendar, Field<3>, ForwardingLog>;
} // namespace choc
