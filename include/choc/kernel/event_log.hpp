// What the engine tells an event log: every pair and wall collision, at its absolute time,
// with the caller's particle indices (engine.hpp, Engine::id). The differential oracle of
// the soak tests compares this stream with a reference simulator's. The default log keeps
// nothing, and its empty calls compile away.
#pragma once

#include <cstdint>

namespace choc {

struct NoEventLog {
    void pair(double /*time*/, std::uint32_t /*a*/, std::uint32_t /*b*/) {}
    // `wall`: the obstacle index (plane walls, then three per segment; engine.hpp)
    void wall(double /*time*/, std::uint32_t /*particle*/, std::uint32_t /*wall*/) {}
};

} // namespace choc
