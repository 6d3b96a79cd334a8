// The engine's checkpoint (docs/ARCHITECTURE.md, "The engine's parts"; archive.hpp): its
// one field list, what a restored state is checked against, save and restore. Members of
// Engine, defined apart from the class.
#pragma once

#include "choc/kernel/engine.hpp"

namespace choc {

// The engine's one field list (archive.hpp), after the box and the particles: the cell
// lists, the candidate events and TC clocks, the rest model and glides, the tallies and
// the ledger, the clock, the sliding boundaries. save() writes it and restore() reads it
// back, then check_restored checks what it read.
template <int D, Calendar Cal, Motion<D> Motion>
template <class Archive>
inline void Engine<D, Cal, Motion>::fields(Archive& ar) {
    ar(grids_);
    ar.section(archive_tag + 2, "cell lists");
    ar(schedule_, last_partner_, id_, clocks_); // (the TC clocks: their times, then tc)
    ar.section(archive_tag + 3, "candidate events");
    ar(group_.resting(), rest_, glides_); // (the rest model's, then the glides' fields)
    ar.section(archive_tag + 4, "rest model");
    ar(accounts_, emission_); // (the ledger, the tally and the flux integrals first)
    ar.section(archive_tag + 5, "tallies");
    ar(now_, stopped_at_, origin_, invariants_.events_at_now(), since_maintenance_, processed_,
       short_flights_);
    ar.section(archive_tag + 6, "clock");
    ar(sliding_);
    ar.section(archive_tag + 7, "sliding boundaries");
}

template <int D, Calendar Cal, Motion<D> Motion>
inline auto Engine<D, Cal, Motion>::shape() const -> Shape {
    return {clocks_.clocks(), glides_.particles(), glides_.obstacles()};
}

// What `fields` read: whole and consistent with the particles, the box and `shape`, or
// ArchiveError. Then the calendar is rebuilt from the candidates.
template <int D, Calendar Cal, Motion<D> Motion>
inline void Engine<D, Cal, Motion>::check_restored(const Shape& shape) {
    const std::size_t n = particles_.size();
    grids_.check_restored(n, [&](std::uint32_t i) { return level_of(i); });
    glides_.check_restored(shape.obstacles, motion_);
    if (schedule_.size() != n || last_partner_.size() != n || id_.size() != n ||
        clocks_.clocks() != shape.tc_clocks || glides_.particles() != shape.glides)
        throw ArchiveError("the state's per-particle arrays do not match its particles");
    accounts_.check_restored(particles_.table.size(), box_.walls.size());
    std::vector<std::uint8_t> seen(n, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
        const auto& s = schedule_[i];
        if (id_[i] >= n || seen[id_[i]]++ || (s.pair.partner != none && s.pair.partner >= n) ||
            (s.runner_up.partner != none && s.runner_up.partner >= n) ||
            (last_partner_[i] != none && last_partner_[i] >= n) ||
            (particles_.state[i].gliding() && !glides_.glide_faces_valid(particles_, i)))
            throw ArchiveError("the state's particle indices are damaged");
    }
    for (std::uint32_t i = 0; i < n; ++i) reschedule(i);
}

template <int D, Calendar Cal, Motion<D> Motion>
void Engine<D, Cal, Motion>::save(ArchiveWriter& out) const {
    out.tag(archive_tag);
    save_configuration(out, box_, particles_);
    out.tag(archive_tag + 1);
    const_cast<Engine&>(*this).fields(out); // (the writer only reads)
}

template <int D, Calendar Cal, Motion<D> Motion>
auto Engine<D, Cal, Motion>::restore(ArchiveReader& in, Settings settings, Motion motion)
    -> Engine {
    in.expect(archive_tag, "start");
    auto [box, particles] = restore_configuration<D>(in);
    in.expect(archive_tag + 1, "particles");
    Engine e(std::move(box), std::move(particles), settings, motion, Unscheduled{});
    const Shape shape = e.shape();
    e.fields(in);
    e.check_restored(shape);
    return e;
}

} // namespace choc
