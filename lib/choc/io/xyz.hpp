// Extended XYZ frames (read by ASE and OVITO): one frame per sample time, every number in
// shortest round-trip form so a frame read back is bit-for-bit the state written.
//
//   N
//   Lattice="Lx 0 0 0 Ly 0 0 0 Lz" Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:masses:R:1:
//     momenta:R:3:image:I:3 Time=t pbc="T T T" dimension=D [provenance keys]  (one line)
//   name x y z vx vy vz radius mass px py pz nx ny nz                        (N lines)
//
// `velo` is the exact velocity (choc's reader and OVITO's Velocity); `momenta` (m v) and
// `masses` are the names ASE turns into Atoms arrays, so that get_velocities() (= momenta /
// masses, within a rounding or two of velo), get_masses() and get_kinetic_energy() are
// right. `image` (trajectories) counts the box edges each particle crossed on each periodic
// axis since the measured phase began: pos + image * L is its unwrapped position (ASE
// keeps it as an integer array). The species name is in a `type` column rather than `species`: ASE
// turns `species` into chemical symbols and rejects names like "A"; it keeps `type` as a string
// array (atoms are element X), and OVITO maps `type` to Particle Type. 2D frames have z = 0, pz =
// 0, Lz = 1 and a third pbc entry F. The reader also takes files of the earlier layout (type pos
// velo radius mass, without momenta).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace choc {

// A position as frames give it: periodic coordinates folded into [0, L) (wrap can land
// exactly on L when x is a hair below 0: that is folded onto 0).
template <int D>
Vec<D> folded_position(const Box<D>& box, const Vec<D>& position) {
    Vec<D> x = box.wrap(position);
    for (int a = 0; a < D; ++a)
        if (box.periodic[a] && x[a] >= box.length[a]) x[a] = 0.0;
    return x;
}
// A particle's position in a frame at time `now`: advanced along free flight, then folded.
// The XYZ and H5MD writers share it, so their frames agree to the bit.
template <int D>
Vec<D> frame_position(const Box<D>& box, const ParticleState<D>& p, double now) {
    return folded_position(box, p.position_at(now));
}

// Each particle's periodic image counts (observers/image_counts.hpp): x + n L unwrapped.
template <int D>
using ImageCountList = std::vector<std::array<std::int64_t, D>>;

// Writes the state at time `now` (positions advanced along free flight on the fly, the
// stored states are not touched; periodic coordinates folded into [0, L)). `keys` is added
// to the end of the comment line as it is: key=value pairs made with xyz_quoted and xyz_json (the
// run's provenance), empty for none. With `images` (one per particle), an `image:I:3`
// column after momenta holds them (0 on a third axis in 2D).
template <int D>
void write_xyz_frame(std::ostream& out, const Box<D>& box, const Particles<D>& particles,
                     double now, std::string_view keys = {},
                     const std::type_identity_t<ImageCountList<D>>* images = nullptr);

// A comment-line value in double quotes, with `\` and `"` escaped by a backslash, as ASE's
// key_val_str_to_dict and choc's reader take it back (it must not hold a line break).
std::string xyz_quoted(std::string_view text);
// A value that may hold anything, line breaks included: xyz_quoted("_JSON " + the JSON
// text), which ASE decodes with json.loads into atoms.info (a string or a list).
std::string xyz_json(const std::string& json_text);

struct XyzFrame {
    int dimension = 3;
    std::array<double, 3> box{};    // edge lengths from Lattice=
    std::array<bool, 3> periodic{}; // from pbc=
    double time = 0.0;
    std::vector<std::string> species; // per particle
    std::vector<std::array<double, 3>> position, velocity;
    // The radius:R:1 and masses:R:1 (or mass:R:1) columns when present (empty otherwise),
    // and the file line of particle 0, so that a disagreement with the config names its line.
    std::vector<double> radius, mass;
    std::size_t first_line = 0;
};

// Last frame of an extended XYZ file written by choc. Throws InputError naming the file
// (and the line) when it cannot be read or parsed.
XyzFrame read_last_xyz_frame(const std::string& path);

extern template void write_xyz_frame<2>(std::ostream&, const Box<2>&, const Particles<2>&, double,
                                        std::string_view, const ImageCountList<2>*);
extern template void write_xyz_frame<3>(std::ostream&, const Box<3>&, const Particles<3>&, double,
                                        std::string_view, const ImageCountList<3>*);

} // namespace choc
