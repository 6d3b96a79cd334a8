// The prefetch of the event loop (engine.hpp, run): members of Engine, defined apart
// from the class.
#pragma once

#include "choc/kernel/engine.hpp"

#include <array>
#include <cstdint>

namespace choc {

// The event after this one is almost always one the calendar already has next in line
// (the top's successors; the top itself is about to move later): ask for their records
// now, so that they are in cache when their turn comes. Always inlined: GCC finds a
// function of nothing but prefetches free of side effects and deletes the call to it.
template <int D, Calendar Cal, Motion<D> Motion>
[[gnu::always_inline]] inline void Engine<D, Cal, Motion>::prefetch_upcoming() const {
    if constexpr (requires(const Cal& c, std::uint32_t* out) { c.upcoming(out); }) {
        std::array<std::uint32_t, 4> next;
        const std::size_t n = calendar_.upcoming(next.data());
        for (std::size_t k = 0; k < n; ++k) {
            __builtin_prefetch(&schedule_[next[k]]);
            __builtin_prefetch(&particles_.state[next[k]]);
            grids_.cells().prefetch_place(next[k]);
            prefetch_calendar(next[k]);
        }
    }
}

template <int D, Calendar Cal, Motion<D> Motion>
[[gnu::always_inline]] inline void
Engine<D, Cal, Motion>::prefetch_calendar(std::uint32_t i) const {
    if constexpr (requires(const Cal& c) { c.prefetch(i); }) calendar_.prefetch(i);
}

} // namespace choc
