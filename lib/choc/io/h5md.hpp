// H5MD 1.1 trajectories (output.trajectory.format = "h5md"), written with the HDF5 C library:
// the binary, compressed, self-describing alternative to extended XYZ for large or long
// runs, read by h5py, MDAnalysis (3D) and other H5MD readers. The layout is in
// docs/REFERENCE.md ("Trajectory (H5MD)"); in short:
//
//   /h5md                   version [1, 1]; author (name), creator (name = choc, version)
//   /particles/all/box      dimension, boundary ("periodic" | "none" per axis); edges
//                           (element: [frames][D][D], the diagonal matrix of box vectors)
//   /particles/all/position, velocity      elements: value [frames][N][D], step, time
//   /particles/all/image                   element: value [frames][N][D] (integers): the
//                                          box edges crossed, position + image * L unwrapped
//   /particles/all/species, mass, radius   fixed per particle
//   /observables/collisions                pair collisions at each frame
//   /observables/<quantity>                the time-series rows (output.timeseries;
//                                          crossed with output.crossing)
//   /parameters/choc                       provenance: commit, config, seed, command line, ...
//
// An element's `step` is the index of its sample: frames are taken at fixed simulated times
// (start + k every) and k is that step; the collision count is an observable of its own,
// as it does not grow strictly (two frames may see the same count) as a step must.
//
// The dimension is a runtime value (2 or 3), so one class serves both; only the frame
// writer is a template, to read a Box<D> and Particles<D>. Every failure of the library is
// an InputError naming `output.trajectory.path` and the file; HDF5's own printing of its
// error stack is switched off.
#pragma once

#include "choc/io/atomic_file.hpp"
#include "choc/io/xyz.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/observers/time_series.hpp"
#include "choc/run/provenance.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace choc {

class H5mdFile {
  public:
    // The key every error names.
    static constexpr const char* key = "output.trajectory.path";

    // Creates (or replaces) `file` and writes everything that does not change over the
    // run: the H5MD header, the box's dimension and boundary, species, masses and radii of
    // `particles` (in their order, which every frame keeps) and the provenance.
    // `observables`: create the time-series elements now (rows are written with
    // write_observables). `shown` is the name errors give (the target, not a temporary).
    // `journaled`: the file is written in place (a checkpointed run) with an undo journal
    // beside it (h5md_journal.hpp), and mark() records where it stands at each checkpoint.
    template <int D>
    static H5mdFile create(const std::string& file, const std::string& shown, const Box<D>& box,
                           const Particles<D>& particles, const Provenance& provenance,
                           bool observables, bool journaled = false);

    // Reopens a file written in place to go on writing it (continuation) at `mark` (its
    // length, CRC-32, frames and rows at a checkpoint): first gives the file back its bytes
    // at the mark from its journal, checked against the mark's CRC-32 (a file that cannot be
    // given them is refused and left as it was; nothing of it is read with HDF5 before), then
    // checks that it is an H5MD 1.1 file by choc with `particles` particles in `dimension`
    // dimensions and at least the mark's frames and rows, and appends after them.
    static H5mdFile reopen(const std::string& file, const std::string& shown, int dimension,
                           std::uint64_t particles, const OutputMark& mark);

    // The last frame of an H5MD trajectory written by choc (init.from): positions,
    // velocities, species names, masses, radii, box and its boundary, and the frame's time,
    // as the XYZ reader gives them. InputError naming `from_key` and the file otherwise,
    // also for a frame of more than `most_particles` (the run's N: a larger frame cannot be
    // its start, and is refused before its arrays are allocated) or a box that is not
    // diagonal.
    static XyzFrame last_frame(const std::string& file, const std::string& from_key,
                               std::uint64_t most_particles = UINT64_MAX);

    H5mdFile(H5mdFile&&) noexcept;
    H5mdFile& operator=(H5mdFile&&) noexcept;
    ~H5mdFile(); // closes every handle (errors ignored: call close() to see them)

    // One frame at simulated time `time`: positions (advanced to `time` and folded into the
    // box like the XYZ writer's), velocities, the periodic image counts `images` (one per
    // particle), box edges and the collision count.
    template <int D>
    void write_frame(const Box<D>& box, const Particles<D>& particles, double time,
                     std::uint64_t collisions,
                     const std::type_identity_t<ImageCountList<D>>& images);

    // One time-series row under /observables.
    void write_observables(const TimeSeriesRow& row);

    std::uint64_t frames() const;
    std::uint64_t rows() const;
    // The file's size so far in bytes (the run's trajectory budget).
    double bytes() const;
    // Everything written so far onto the disk: HDF5's buffers out (H5Fflush), then fsync.
    void flush();
    // A journaled file, flushed: its length and the CRC-32 of its bytes (carried forward by
    // the journal), frames and rows, which a continuation gives to reopen().
    OutputMark mark();
    // Records the end time (/parameters/choc attribute `finished`), flushes and closes the
    // file; nothing may be written after it.
    void close(const std::string& finished);

    struct State; // the open file and its objects (h5md.cpp)

  private:
    explicit H5mdFile(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

extern template H5mdFile H5mdFile::create<2>(const std::string&, const std::string&, const Box<2>&,
                                             const Particles<2>&, const Provenance&, bool, bool);
extern template H5mdFile H5mdFile::create<3>(const std::string&, const std::string&, const Box<3>&,
                                             const Particles<3>&, const Provenance&, bool, bool);
extern template void H5mdFile::write_frame<2>(const Box<2>&, const Particles<2>&, double,
                                              std::uint64_t, const ImageCountList<2>&);
extern template void H5mdFile::write_frame<3>(const Box<3>&, const Particles<3>&, double,
                                              std::uint64_t, const ImageCountList<3>&);

} // namespace choc
