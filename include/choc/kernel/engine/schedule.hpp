// A particle's candidate events (engine.hpp, at the top: why two pair candidates are
// enough; docs/ARCHITECTURE.md, "The engine's parts"): its earliest pair candidate and the
// runner-up, its wall (obstacle) event and its cell crossing, of which the calendar holds
// the earliest, and the kind of that one. The engine keeps one per particle
// (Engine::Schedule) and checkpoints them as they lie in memory.
#pragma once

#include "choc/kernel/predict.hpp"

#include <cstdint>
#include <limits>

namespace choc {

// No partner (Engine::none).
inline constexpr std::uint32_t no_partner = std::numeric_limits<std::uint32_t>::max();

// The kind of a particle's next event.
enum class EventKind : std::uint8_t { pair, wall, crossing, nothing };

// A predicted pair collision of a particle with `partner`.
struct PairCandidate {
    double time = never;
    std::uint32_t partner = no_partner; // none: no candidate (see CandidateEvents::runner_up)
    std::uint32_t count = 0;            // partner's counter when predicted: stale if changed
};

// A particle's candidate events; the calendar holds the earliest.
struct CandidateEvents {
    PairCandidate pair; // the earliest pair candidate
    // The next one (another partner). Its time is also the horizon of i's last scans:
    // every pair they discarded comes no earlier. Once the runner-up has been promoted
    // to `pair`, the slot keeps that time with partner `none`, since the pairs
    // discarded behind it are still out there.
    PairCandidate runner_up;
    double wall_time = never;
    double crossing_time = never;
    // (after the doubles: between them, padding made the record 64 bytes, not 56)
    std::uint32_t wall = 0;
    std::int8_t axis = 0, dir = 0;
    EventKind kind = EventKind::nothing;
    std::uint8_t grid = 0; // the level whose grid the crossing is in (cell_levels.hpp)
};
static_assert(sizeof(CandidateEvents) == 56, "a particle's candidate events: 56 bytes");

} // namespace choc
