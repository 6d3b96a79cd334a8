// Checkpoint files (output.checkpoint, `choc run --continue`): the complete state of a run
// so that it can go on as if it had never stopped.
//
//   "choc checkpoint\n"      16 bytes
//   format                   u32, checkpoint_format below
//   choc version, git commit strings (u64 length + bytes)
//   config                   the resolved config the run was started with (TOML)
//   config CRC-32            u32, of that text
//   dimension, field         u32, u8 (straight flights or gravity/drag)
//   state                    string: the run's state (run.cpp: engine, watch, phase)
//   CRC-32                   u32, of every byte before it
//
// Numbers are in the machine's byte order (archive.hpp): a checkpoint continues on the
// machine type that wrote it. Written with write_file_durably: a new checkpoint replaces
// the last one whole, so a kill at any moment leaves the previous one intact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace choc {

// Bumped whenever the layout of the state changes.
// 2: the tally counts pair predictions; 3: the measured phase holds histogram series;
// 4: the engine's candidate-event records are 56 bytes (their fields reordered);
// 5: size-disperse particles have a cell grid per level of sizes, each saved;
// 6: the displacement's mean-squared displacements are kept in 16 groups per species, and
//    the measured phase holds the diffusion windows;
// 7: the diffusion windows keep their lags in a window ladder (with its moments' origin);
// 8: the engine keeps the flux integrals, the measured phase the transport windows;
// 9: walls have a temperature, the engine its thermal walls' generator and the tally each
//    wall's heat, the measured phase the axial profile;
// 10: the box has a shear rate, the engine its sliding boundaries' clock (lees_edwards.hpp);
// 11: the engine keeps its shear moment's account, Z's block edges the moment and the time
// 12: the box has triangles (3D finite walls), the measured phase the count of
//     output.crossing
// 13: a triangle holds whether it is one-sided
// 14: the engine keeps the contacts its group rule left at rest (resting_contacts.hpp)
// 15: a streamed output's mark holds the CRC-32 of the whole file up to it, not of its
//     last 4096 bytes
// 16: the tally counts the rest model's rests, wakes and slow impacts and the energy it
//     took (a particle at rest is stored with the stamp rest_stamp, particles.hpp)
// 17: the tally counts glides and leans (a gliding particle is stored with the glide bit
//     of its count, particles.hpp)
// 18: the tally counts the rest model's rescues of stalls, the collapse watch whether it
//     rescued and when its strikes began; under the rest model the engine keeps the TC
//     clocks
// 19: the measured phase saves its own fields (start, Z's blocks) from one field list, then
//     each observer's under its name, in the order of their registration (run/phase/)
// 20: a gliding particle's count holds its glide slot in its top 6 bits (particles.hpp);
//     under a field the engine keeps the obstacle each particle glides on, the glide table
//     and the slot of each obstacle
// 21: two obstacles per gliding particle (the second those of a crease, else none)
// 22: the engine's state from one field list (Engine::fields), in sections: cell lists,
//     candidate events, rest model, tallies, clock, sliding boundaries; a stream's mark
//     field by field (no padding)
// 23: the trajectory's observer keeps each particle's periodic image counts, its last
//     folded position and the time of its next count
// 24: the run's clock keeps the time the last step asked for and the stages begun by
//     steering (the Python module's Simulation); the trajectory's observer keeps its image
//     counts without files too
inline constexpr std::uint32_t checkpoint_format = 24;

struct Checkpoint {
    std::string version, commit; // of the choc that wrote it
    std::string config;          // the resolved config it was started with
    int dimension = 3;
    bool field = false;
    std::string state;
};

// The bytes of a checkpoint file for `c` (its version and commit are this build's).
std::string checkpoint_bytes(const Checkpoint& c);

// Writes it to `path` (durably, replacing any previous one); `key` names it in errors.
void write_checkpoint(const std::string& path, const Checkpoint& c, const std::string& key);

// Reads and checks a checkpoint: InputError naming `key` and the file when it is not a
// choc checkpoint, is damaged (checksum), or comes from another choc version.
Checkpoint read_checkpoint(const std::string& path, const std::string& key);
// The same from bytes in memory (tests).
Checkpoint parse_checkpoint(const std::string& bytes, const std::string& name);

// The first key (dotted, in sorted order) at which two resolved configs differ in
// anything but what a continuation may change: the run limits (run.time,
// run.collisions), the trajectory's size limit, and the outputs' paths and checkpoint
// cadence. None if they agree.
std::optional<std::string> config_difference(const std::string& checkpointed,
                                             const std::string& given);
// The first key at which two resolved configs differ in anything but the keys for which
// `allowed(key)` is true. None if they agree.
std::optional<std::string> config_difference_but(const std::string& a, const std::string& b,
                                                 bool (*allowed)(const std::string& key));
// The first key at which two resolved configs differ in anything but the paths of the
// outputs both have (a sweep's run moved, or run from elsewhere). None if they agree.
std::optional<std::string> difference_but_paths(const std::string& a, const std::string& b);

} // namespace choc
