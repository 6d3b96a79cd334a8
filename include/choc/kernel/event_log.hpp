// What the engine tells an event log: every pair and wall collision, at its absolute time,
// with the caller's particle indices (engine.hpp, Engine::id). The differential oracle of
// the soak tests compares this stream with a reference simulator's.
//
// An interface called through a pointer, not a template parameter of the engine: the tests
// watch the very engines choc runs (compiled once, in lib/choc/kernel/), instead of four
// more instantiations of their own. A run without a log pays one test of a null pointer per
// collision, beside the hundreds of instructions a collision's predictions take.
#pragma once

#include <cstdint>

namespace choc {

class EventLog {
  public:
    virtual ~EventLog() = default;
    virtual void pair(double time, std::uint32_t a, std::uint32_t b) = 0;
    // `wall`: the obstacle index (plane walls, then three per segment; engine.hpp)
    virtual void wall(double time, std::uint32_t particle, std::uint32_t wall) = 0;
};

} // namespace choc
