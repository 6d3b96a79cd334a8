// The particles the rest model woke at the present instant, and those of them it put to
// rest again at that same instant (RestModel::wake, put_to_rest, meet_resting).
//
// Why. A fast impact wakes a particle at rest and is an ordinary collision; the particle
// struck may be caught at once by its own contacts and put to rest again where it lies
// (Engine::trapped), at the same instant, while the striker, slowed but still moving
// towards it, strikes it again: woken, stopped, struck, for ever, and the clock does not
// move (seen in the 2D hourglass: a chain of five discs woken and put to rest again at
// one instant, issue 40). The rule: a particle put to rest again at the instant it was
// woken is not woken again at that instant; a fast impact meets it as a fixed sphere, as
// a slow one does. At the next instant it is woken as any other.
//
// Keys are ids, which maintenance does not renumber. The memory belongs to one instant
// and is part of the engine's saved state, as RestingContacts is.
#pragma once

#include "choc/kernel/archive.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace choc {

class RestCycle {
  public:
    enum Mark : std::uint32_t { woken = 0, again = 1 };

    void record(double instant, std::uint32_t id, Mark mark) {
        if (instant != instant_) {
            marks_.clear();
            instant_ = instant;
        }
        marks_.emplace_back(id, mark);
    }
    bool holds(double instant, std::uint32_t id, Mark mark) const {
        return instant == instant_ && std::find(marks_.begin(), marks_.end(),
                                                std::pair{id, std::uint32_t{mark}}) != marks_.end();
    }

    // The clock's origin moved by `by` (Engine::rebase).
    void shift(double by) { instant_ -= by; }

    // Its checkpoint (archive.hpp): each mark packed as id << 1 | mark.
    template <class Archive>
    void fields(Archive& ar) {
        std::vector<std::uint64_t> packed;
        if constexpr (!Archive::loading)
            for (const auto& [id, mark] : marks_) packed.push_back(std::uint64_t{id} << 1 | mark);
        ar(instant_, packed);
        if constexpr (Archive::loading) {
            marks_.clear();
            for (const std::uint64_t k : packed)
                marks_.emplace_back(static_cast<std::uint32_t>(k >> 1),
                                    static_cast<std::uint32_t>(k & 1));
        }
    }

  private:
    double instant_ = -1.0; // the engine's clock never runs below 0
    std::vector<std::pair<std::uint32_t, std::uint32_t>> marks_; // (id, mark)
};

} // namespace choc
