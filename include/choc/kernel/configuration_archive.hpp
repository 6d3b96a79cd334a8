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

template <int D>
void save_configuration(ArchiveWriter& out, const Box<D>& box, const Particles<D>& particles) {
    out.put(box.length);
    out.put(box.periodic);
    out.put(box.walls);
    out.put(box.segments);
    out.put(box.triangles);
    out.put(box.shear_rate);
    out.put(std::uint64_t{particles.table.size()});
    for (const auto& s : particles.table.species) {
        out.put(s.name);
        out.put(s.radius);
        out.put(s.mass);
    }
    out.put(particles.state);
}

// What save_configuration wrote. Throws ArchiveError when the species table or a
// particle's species is out of range.
template <int D>
std::pair<Box<D>, Particles<D>> restore_configuration(ArchiveReader& in) {
    Box<D> box;
    in.get(box.length);
    in.get(box.periodic);
    in.get(box.walls);
    in.get(box.segments);
    in.get(box.triangles);
    in.get(box.shear_rate);
    const auto species = in.get<std::uint64_t>();
    if (species == 0 || species > max_species)
        throw ArchiveError("the state's species table is damaged");
    std::vector<Species> table(species);
    for (auto& s : table) {
        in.get(s.name);
        in.get(s.radius);
        in.get(s.mass);
    }
    Particles<D> particles;
    particles.table = SpeciesTable(std::move(table));
    in.get(particles.state);
    for (const auto& p : particles.state)
        if (p.species >= species) throw ArchiveError("the state's particles are damaged");
    return {std::move(box), std::move(particles)};
}

} // namespace choc
