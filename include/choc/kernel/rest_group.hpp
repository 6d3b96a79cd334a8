// Slow particles that hold one another up (RestModel::rests_together; docs/REFERENCE.md,
// "Resting together"): which of a gathered group can be put to rest together.
//
// The group: members 0..m-1, each with the unit normals of its supports at rest (walls,
// obstacles, particles at rest: they do not change while the group is judged) and its
// contacts with other members (normal from the other member towards it). A member is held
// when holds_against_gravity accepts its supports' normals and those of its contacts with
// members still in. The answer is the largest subset S of the group whose every member is
// held with the contacts inside S.
//
// Why it is unique and found by letting go. Being held is monotone in the normals: a cone
// only grows when a normal joins it, and holds_against_gravity tries every single, pair
// and triple of its list, so a longer list with the same relative order accepts whatever
// a shorter one does, to the bit. Letting go of members not held, in any order, therefore
// ends at the same S: one let go was not held by a superset of S, so not by S, and one
// left was checked again after its last neighbour went. A worklist checks a member again
// only when one of its contacts has left, instead of sweeping the whole group until
// nothing changes; the contacts of each member are indexed once. (The sweeps, with a
// linear search for each neighbour's slot, took 60 % of the 2D hourglass's time once its
// pile settled: a quarter of a million groups in 0.05 time units, issue 40.)
#pragma once

#include "choc/kernel/resting.hpp"
#include "choc/kernel/vec.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace choc {

template <int D>
class RestGroup {
  public:
    // A new group: no members, supports or contacts yet.
    void clear() {
        supports_.clear();
        support_end_.clear();
        contacts_.clear();
    }
    // The supports of members 0, 1, ... in turn: add_support for each of a member's, in
    // the order its list of normals takes them, then end_supports; the members are those
    // so closed.
    void add_support(const Vec<D>& n) { supports_.push_back(n); }
    void end_supports() { support_end_.push_back(static_cast<std::uint32_t>(supports_.size())); }
    // Member a touches member b; n the unit normal from b towards a. The order of calls is
    // the order in which a's contacts enter its list of normals.
    void add_contact(std::uint32_t a, std::uint32_t b, const Vec<D>& n) {
        contacts_.push_back({a, b, n});
    }

    // in[k] != 0 for the members of the largest subset each of whose members is held.
    const std::vector<char>& solve(const Vec<D>& g) {
        const std::size_t m = support_end_.size();
        index(m);
        in_.assign(m, 1);
        queued_.assign(m, 1);
        todo_.clear();
        for (std::size_t k = m; k-- > 0;) todo_.push_back(static_cast<std::uint32_t>(k));
        while (!todo_.empty()) {
            const std::uint32_t k = todo_.back();
            todo_.pop_back();
            queued_[k] = 0;
            if (!in_[k] || held(k, g)) continue;
            in_[k] = 0;
            // whoever leaned on k is judged again without it
            for (std::uint32_t c = by_b_first_[k]; c < by_b_first_[k + 1]; ++c) {
                const std::uint32_t a = contacts_[by_b_[c]].a;
                if (in_[a] && !queued_[a]) queued_[a] = 1, todo_.push_back(a);
            }
        }
        return in_;
    }

  private:
    struct Contact {
        std::uint32_t a, b;
        Vec<D> n;
    };

    bool held(std::uint32_t k, const Vec<D>& g) {
        normals_.assign(supports_.begin() + (k == 0 ? 0 : support_end_[k - 1]),
                        supports_.begin() + support_end_[k]);
        for (std::uint32_t c = by_a_first_[k]; c < by_a_first_[k + 1]; ++c) {
            const Contact& x = contacts_[by_a_[c]];
            if (in_[x.b]) normals_.push_back(x.n);
        }
        return holds_against_gravity<D>(normals_, g);
    }

    // Contacts by member, each list in the order the contacts were added (a stable
    // counting sort): by a for a member's own normals, by b for who leans on it.
    void index(std::size_t m) {
        sort_by(m, &Contact::a, by_a_first_, by_a_);
        sort_by(m, &Contact::b, by_b_first_, by_b_);
    }
    void sort_by(std::size_t m, std::uint32_t Contact::*key, std::vector<std::uint32_t>& first,
                 std::vector<std::uint32_t>& order) {
        first.assign(m + 1, 0);
        for (const Contact& c : contacts_) ++first[c.*key + 1];
        for (std::size_t k = 0; k < m; ++k) first[k + 1] += first[k];
        order.resize(contacts_.size());
        next_.assign(first.begin(), first.end() - 1);
        for (std::uint32_t c = 0; c < contacts_.size(); ++c) order[next_[contacts_[c].*key]++] = c;
    }

    std::vector<Vec<D>> supports_;
    std::vector<std::uint32_t> support_end_;
    std::vector<Contact> contacts_;
    std::vector<std::uint32_t> by_a_first_, by_a_, by_b_first_, by_b_;
    std::vector<std::uint32_t> next_; // (sort_by)
    std::vector<char> in_, queued_;
    std::vector<std::uint32_t> todo_;
    std::vector<Vec<D>> normals_;
};

} // namespace choc
