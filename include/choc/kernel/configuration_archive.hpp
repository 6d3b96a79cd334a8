// The box and the particles in a checkpoint's state (archive.hpp), written and read alike
// by the event-driven engine (engine.hpp) and the time-stepped one (step_engine.hpp):
// the box's edges, periodic axes, walls, segments and triangles, the species table, then every
// particle's hot record.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tolerances.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace choc {

// The one field list (archive.hpp): a reader checks the species table and every
// particle's species as it reads them (ArchiveError when out of range).
template <class Archive, int D>
void configuration_fields(Archive& ar, Box<D>& box, Particles<D>& particles) {
    ar(box.length, box.periodic, box.walls, box.segments, box.triangles, box.shear_rate);
    std::vector<Species> table;
    if constexpr (!Archive::loading) table = particles.table.species;
    auto species = std::uint64_t{table.size()};
    ar(species);
    if constexpr (Archive::loading) {
        if (species == 0 || species > max_species)
            throw ArchiveError("the state's species table is damaged");
        table.resize(species);
    }
    for (auto& s : table) ar(s.name, s.radius, s.mass);
    if constexpr (Archive::loading) particles.table = SpeciesTable(std::move(table));
    ar(particles.state);
    if constexpr (Archive::loading)
        for (const auto& p : particles.state)
            if (p.species >= species) throw ArchiveError("the state's particles are damaged");
}

template <int D>
void save_configuration(ArchiveWriter& out, const Box<D>& box, const Particles<D>& particles) {
    // (the writer only reads them)
    configuration_fields(out, const_cast<Box<D>&>(box), const_cast<Particles<D>&>(particles));
}

// What save_configuration wrote.
template <int D>
std::pair<Box<D>, Particles<D>> restore_configuration(ArchiveReader& in) {
    Box<D> box;
    Particles<D> particles;
    configuration_fields(in, box, particles);
    return {std::move(box), std::move(particles)};
}

} // namespace choc
