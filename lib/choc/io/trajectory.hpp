// output.trajectory of a run in either format behind one small interface, so that the run
// (run.cpp's MeasuredPhase) does not care which: extended XYZ (the default: text, for small
// runs, ASE and OVITO) or H5MD (`format = "h5md"`: binary, compressed, with the time-series
// observables). Either way the file is written to a temporary beside the target and
// renamed over it by publish(): it appears whole or not at all, like every output; in a
// checkpointed run (InPlace) it is written in place, and a continuation resumes it at the
// checkpoint's mark (its length and the CRC-32 of its bytes; H5MD also frames and rows, and
// the bytes HDF5 rewrote after the mark are put back from its journal first).
#pragma once

#include "choc/io/atomic_file.hpp"
#include "choc/io/h5md.hpp"
#include "choc/io/xyz.hpp"
#include "choc/observers/time_series.hpp"
#include "choc/run/config.hpp"
#include "choc/run/provenance_text.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <unistd.h>

namespace choc {

template <int D>
class TrajectoryOutput {
  public:
    static constexpr const char* key = "output.trajectory.path";

    // `observables`: the run writes time-series rows (H5MD keeps them under /observables;
    // XYZ ignores them). `initial` gives the particles' species, masses and radii.
    TrajectoryOutput(const PeriodicOutput& output, const Box<D>& box, const Particles<D>& initial,
                     const Provenance& provenance, bool observables,
                     std::optional<InPlace> in_place = std::nullopt)
        : path_(output.path), in_place_(in_place.has_value()) {
        if (output.format == TrajectoryFormat::xyz) {
            xyz_.emplace(output.path, key, in_place);
            return;
        }
        if (in_place && in_place->resume) {
            h5md_.emplace(
                H5mdFile::reopen(output.path, output.path, D, initial.size(), *in_place->resume));
            return;
        }
        if (in_place) {
            h5md_.emplace(H5mdFile::create(output.path, output.path, box, initial, provenance,
                                           observables, true));
            return;
        }
        temporary_ = create_temporary(output.path, key);
        try {
            h5md_.emplace(
                H5mdFile::create(temporary_, output.path, box, initial, provenance, observables));
        } catch (...) {
            ::unlink(temporary_.c_str());
            throw;
        }
    }
    ~TrajectoryOutput() {
        if (temporary_.empty() || published_) return;
        h5md_.reset(); // closed before it is removed
        ::unlink(temporary_.c_str());
    }
    TrajectoryOutput(const TrajectoryOutput&) = delete;
    TrajectoryOutput& operator=(const TrajectoryOutput&) = delete;

    // The frame at simulated time `time` (positions advanced to it), the particles' image
    // counts and the pair collisions so far; `keys`: the XYZ comment line's provenance
    // (H5MD keeps its own).
    void write_frame(const Box<D>& box, const Particles<D>& frame, double time,
                     std::uint64_t collisions, const std::string& keys,
                     const ImageCountList<D>& images) {
        if (h5md_) {
            h5md_->write_frame(box, frame, time, collisions, images);
            return;
        }
        write_xyz_frame(xyz_->stream(), box, frame, time, keys, &images);
        xyz_->check(); // a full disk stops the run now, not at its end
    }

    void write_observables(const TimeSeriesRow& row) {
        if (h5md_) h5md_->write_observables(row);
    }

    bool in_place() const { return in_place_; }
    const std::string& path() const { return path_; }
    // In place: everything written so far made durable, and where it stands.
    OutputMark mark() { return h5md_ ? h5md_->mark() : xyz_->mark(); }

    // Bytes written so far (the run's trajectory budget).
    double bytes() { return h5md_ ? h5md_->bytes() : static_cast<double>(xyz_->stream().tellp()); }

    // Everything written and checked; only publish() is left.
    void finish() {
        if (h5md_) {
            h5md_->close(utc_now());
            return;
        }
        xyz_->finish();
    }

    void publish() {
        if (!h5md_) {
            xyz_->publish();
            return;
        }
        finish();
        if (in_place_) {
            published_ = true;
            return;
        }
        if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
            throw InputError(std::string(key) + ": cannot write \"" + path_ +
                             "\": " + std::strerror(errno));
        published_ = true;
    }

  private:
    std::string path_, temporary_;
    std::optional<AtomicOutput> xyz_;
    std::optional<H5mdFile> h5md_;
    bool published_ = false, in_place_ = false;
};

} // namespace choc
