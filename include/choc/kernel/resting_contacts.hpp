// The pair contacts left at rest at the current instant (by the group rule, epsilon > 0,
// or by a long instant under a field), so that they are not predicted to collide again at
// that same instant.
//
// Why. The group rule (group_rule.hpp) calls a contact at rest when it approaches by at
// most group_approach_tolerance V, V the largest relative speed of its group: below that
// an approach cannot be told from the rounding of a solve, and a group with nothing
// approaching beyond it is left as it is. The pair prediction (predict.hpp) knows no such
// scale: a pair at contact that approaches by any amount, 1e-16 V of round-off included,
// collides now. A contact of a group that the rule left approaching by round-off (e = 0
// ends contacts at u' = 0 up to rounding, e < 1 touching rows too) was therefore
// predicted again at the same instant, handed back to the rule, left as it was, and
// predicted again, for ever (DEVELOPING's first "Known engine bug" until issue 40).
//
// The rule. A pair contact of a component that the group rule resolved is, at that
// instant, at rest or separating by the rule's own standard. It is not predicted to
// collide again at that instant while neither particle's velocity has changed since
// (each change counts up a particle's `count`), just as a pair that has just collided
// alone is not (Engine::last_partner_). What this accepts is what the rule already
// accepts: an approach of at most group_approach_tolerance V. For a contact whose
// relative velocity is not small against V (the usual case: a sliding contact
// approaching by round-off) the straight relative path r + v t never comes nearer than
// |r| (1 - (u / |v|)^2 / 2), an overlap of at most 5e-19 of a diameter; one that
// approaches head on (a touching row moving as one) would go on in until either
// particle's next event, so the engine predicts the pair to meet again where its path
// is a quarter of the contact tolerance deeper (Engine::held_contact_delay).
// The rest model's long instants (Engine::at_rest_contact) record their pairs here too.
//
// Keys are the particles' ids, which maintenance does not renumber. The memory belongs
// to one instant: recording at a later instant forgets the earlier one. It is part of
// the engine's saved state, so a run continued from a checkpoint taken between two
// events of one instant goes on as the uninterrupted run did.
#pragma once

#include "choc/kernel/archive.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace choc {

class RestingContacts {
  public:
    // Pair (id_a, id_b) with these collision counts was left at rest at `instant`.
    void record(double instant, std::uint32_t id_a, std::uint32_t id_b, std::uint32_t count_a,
                std::uint32_t count_b) {
        if (instant != instant_) {
            contacts_.clear();
            instant_ = instant;
        }
        if (id_b < id_a) std::swap(id_a, id_b), std::swap(count_a, count_b);
        contacts_[key(id_a, id_b)] = key(count_a, count_b);
    }

    // Whether pair (id_a, id_b), at these counts, was left at rest at `instant`.
    bool holds(double instant, std::uint32_t id_a, std::uint32_t id_b, std::uint32_t count_a,
               std::uint32_t count_b) const {
        if (instant != instant_ || contacts_.empty()) return false;
        if (id_b < id_a) std::swap(id_a, id_b), std::swap(count_a, count_b);
        const auto found = contacts_.find(key(id_a, id_b));
        return found != contacts_.end() && found->second == key(count_a, count_b);
    }

    // The clock's origin moved by `shift` (Engine::rebase).
    void shift(double by) { instant_ -= by; }

    // Its checkpoint (archive.hpp): the contacts in key order, so that equal states save
    // equal bytes.
    template <class Archive>
    void fields(Archive& ar) {
        std::vector<Entry> sorted;
        if constexpr (!Archive::loading) {
            for (const auto& [ids, counts] : contacts_) sorted.push_back({ids, counts});
            std::sort(sorted.begin(), sorted.end(),
                      [](const Entry& x, const Entry& y) { return x.ids < y.ids; });
        }
        ar(instant_, sorted);
        if constexpr (Archive::loading) {
            contacts_.clear();
            for (const Entry& e : sorted) contacts_[e.ids] = e.counts;
        }
    }

  private:
    struct Entry {
        std::uint64_t ids, counts;
    };
    static std::uint64_t key(std::uint32_t lo, std::uint32_t hi) {
        return std::uint64_t{lo} << 32 | hi;
    }

    double instant_ = -1.0; // the engine's clock never runs below 0
    std::unordered_map<std::uint64_t, std::uint64_t> contacts_; // ids -> counts
};

} // namespace choc
