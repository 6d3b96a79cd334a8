// Extended XYZ frames (read by ASE and OVITO): one frame per sample time, every number in
// shortest round-trip form so a frame read back is bit-for-bit the state written.
// 2D frames are written with z = 0.
#pragma once

#include "../box.hpp"
#include "../particles.hpp"

#include <array>
#include <ostream>
#include <string>
#include <vector>

namespace choc {

// Writes the state at time `now` (positions advanced along free flight on the fly, the
// stored states are not touched; periodic coordinates folded into [0, L)).
template <int D>
void write_xyz_frame(std::ostream& out, const Box<D>& box, const Particles<D>& particles,
                     double now);

struct XyzFrame {
    int dimension = 3;
    std::array<double, 3> box{};           // edge lengths from Lattice=
    std::array<bool, 3> periodic{};        // from pbc=
    double time = 0.0;
    std::vector<std::string> species;      // per particle
    std::vector<std::array<double, 3>> position, velocity;
};

// Last frame of an extended XYZ file written by choc. Throws InputError naming the file
// (and the line) when it cannot be read or parsed.
XyzFrame read_last_xyz_frame(const std::string& path);

extern template void write_xyz_frame<2>(std::ostream&, const Box<2>&, const Particles<2>&, double);
extern template void write_xyz_frame<3>(std::ostream&, const Box<3>&, const Particles<3>&, double);

} // namespace choc
