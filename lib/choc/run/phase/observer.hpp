// The observers of a measured phase (run/measured_phase.hpp) behind one interface, as
// LAMMPS's computes and HOOMD-blue's loggers are: each measurement or streamed output is one
// class with a few hooks, and the phase holds a list of them (run/phase/observers.hpp, the
// one registration). The phase stops the engine at the earliest time any of them is due,
// hands that stop to every one due then, saves and restores them in list order, and asks
// each for its part of the summary; it knows nothing of their insides.
//
// Not in the event loop: the hooks are called at samples, checkpoints and summaries only,
// so they are virtual.
#pragma once

#include "choc/io/atomic_file.hpp"
#include "choc/kernel/archive.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/predict.hpp" // never
#include "choc/kernel/tolerances.hpp"
#include "choc/run/config.hpp"
#include "choc/run/phase/engine_view.hpp"
#include "choc/run/run.hpp"
#include "choc/run/summary.hpp"
#include "choc/run/summary_physics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace choc {

// Where the streamed outputs of a checkpointed run stood at its checkpoint: a
// continuation appends to the same file, cut back to the mark (atomic_file.hpp, InPlace);
// a file at another path starts afresh.
struct StreamMark {
    std::string path;
    OutputMark mark;

    // Its checkpoint (archive.hpp).
    template <class Archive>
    void fields(Archive& ar) {
        ar(path, mark);
    }
};
struct Streams {
    bool in_place = false;                        // output.checkpoint is on
    std::optional<StreamMark> trajectory, series; // a continuation's marks
};

// How a streamed output at `path` is opened: atomically (no checkpoints), in place from
// scratch, or in place resumed at its mark.
inline std::optional<InPlace>
placement(const Streams& streams, const std::optional<StreamMark>& mark, const std::string& path) {
    if (!streams.in_place) return std::nullopt;
    InPlace p;
    if (mark && mark->path == path) p.resume = mark->mark;
    return p;
}

// Samples at start + k * every (k = 0, 1, ...): k * every rather than repeated addition,
// so no drift, and a step below the clock's resolution cannot sample the same time forever.
struct Every {
    double every = never;
    std::uint64_t done = 0;
    double next(double start) const {
        return every == never ? never : start + static_cast<double>(done) * every;
    }
};

// Periodic on every axis, without walls, segments or triangles, at rest (not sheared).
template <int D>
bool bulk(const Box<D>& box) {
    return std::all_of(box.periodic.begin(), box.periodic.end(), [](bool p) { return p; }) &&
           !box.has_obstacles() && !box.sheared();
}

// Time to the next snapshot that unwraps positions for the mean-squared displacement and
// averages g(r): a particle must not move half an edge between two of them. An eighth of
// the shortest periodic edge at the fastest current speed leaves a margin of four times
// that speed (enough even for equal starting speeds relaxing to Maxwell–Boltzmann, whose
// tail reaches about 2.6 times the common speed for N ~ 1e4);
// Displacement::largest_step checks it afterwards.
template <int D>
double displacement_interval(const Box<D>& box, double fastest) {
    double edge = never;
    for (int a = 0; a < D; ++a)
        if (box.periodic[a]) edge = std::min(edge, box.length[a]);
    return edge == never || fastest == 0.0 ? never : edge / (8.0 * fastest);
}

// The engine's particles at time t as Displacement reads them: visit(f) calls f(id, x, s)
// for each, from the engine's own states (no copy).
template <class EngineT>
auto positions_at(const EngineT& engine, double t) {
    return [&engine, t](auto&& f) {
        engine.visit(t, [&](std::uint32_t id, const auto& p) { f(id, p.x, p.species); });
    };
}

// The step of the transport windows (D, viscosity, heat conduction) and of the slab
// profiles: half the time to cross the largest diameter, or a dilute gas's mean free path
// 1 / (sqrt 2 pi n sigma^2) if longer, at the rms speed. Each sample of D reads every
// particle, so samples much closer than the mean free time would cost more than the
// collisions between them in a dilute gas. It is also kept below an eighth of the shortest
// edge at the fastest speed, as the displacement's interval is, so that unwrapping with the
// nearest image holds. Infinite when nothing moves.
template <int D, class EngineT>
double window_step(const EngineT& engine) {
    double v2 = 0.0, fastest = 0.0;
    engine.visit(engine.time(), [&](std::uint32_t, const auto& p) {
        v2 += norm2(p.v);
        fastest = std::max(fastest, norm(p.v));
    });
    const auto n = engine.particles().size();
    if (n == 0 || v2 == 0.0) return never;
    v2 /= static_cast<double>(n);
    double volume = 1.0;
    for (int a = 0; a < D; ++a) volume *= engine.box().length[a];
    const double sigma = engine.particles().table.largest_diameter();
    const double free_path =
        volume / (std::sqrt(2.0) * std::numbers::pi * static_cast<double>(n) * sigma * sigma);
    return std::min(std::max(sigma, free_path) / (2.0 * std::sqrt(v2)),
                    displacement_interval(engine.box(), fastest));
}

// What an observer is built from: the engine at the phase's start (or, for a
// continuation, at its checkpoint: restore() then puts the observer's own state back), the
// run's config and options.
template <int D>
struct PhaseSetup {
    const EngineView<D>& engine;
    const Config& config;
    const RunOptions& options;
    const Provenance& origin; // of the streamed outputs' headers
    const Streams& streams;   // a continuation's marks
    double start;             // the engine's clock at the phase's start
    double label;             // the clock of frames and rows at the phase's start
    double step;              // window_step at the start: the windows' and profiles' step
    // The step is usable: finite and not lost in the clock's round-off.
    bool stepped() const { return std::isfinite(step) && start + step > start; }
};

// One stop of the phase, for the observers due at it: the time, the engine, and one snapshot
// of the particles, copied only when the first observer asks for it (a copy is 64 bytes per
// particle in 3D: the largest memory a plain run would add to the engine's), then shared.
template <int D>
class PhaseStop {
  public:
    explicit PhaseStop(const EngineView<D>& engine) : engine_(engine), time_(engine.time()) {}
    double time() const { return time_; }
    const EngineView<D>& engine() const { return engine_; }
    const Particles<D>& snapshot() {
        if (!copy_) copy_ = engine_.snapshot(time_);
        return *copy_;
    }

  private:
    const EngineView<D>& engine_;
    double time_;
    std::optional<Particles<D>> copy_;
};

template <int D>
class PhaseObserver {
  public:
    virtual ~PhaseObserver() = default;
    // Its name, which a checkpoint records before its state: a state restored into a run
    // whose observers differ is refused, naming the first that does not match.
    virtual const char* name() const = 0;
    // The time it is next due; never: not (or no longer) due.
    virtual double next_time() const = 0;
    // Its sample at a stop at next_time().
    virtual void sample(PhaseStop<D>& now) = 0;
    // Its state, for a checkpoint: save writes what restore reads back
    // (ObserverFields below makes both from one field list).
    virtual void save(ArchiveWriter& out) = 0;
    virtual void restore(ArchiveReader& in) = 0;
    // Its keys of the summary of the run so far; `s` already holds the counts, the
    // temperatures, the collision rates and Z. Not called for a run found broken.
    virtual void summarise(Summary& s, const SummaryContext<D>& c) const {
        (void)s;
        (void)c;
    }
};

// An observer whose save and restore are its one field list, `template <class A> void
// fields(A& ar)` (archive.hpp).
template <class Self, int D>
class ObserverFields : public PhaseObserver<D> {
  public:
    void save(ArchiveWriter& out) final { static_cast<Self&>(*this).fields(out); }
    void restore(ArchiveReader& in) final { static_cast<Self&>(*this).fields(in); }
};

// An optional measurement as a checkpoint field: whether it exists, then its state. On
// restore, `make()` builds one to restore into when the run has none (it began under other
// conditions than the saved one: its particles at rest, say); one that the state does not
// hold is dropped.
template <class Archive, class T, class Make>
void optional_field(Archive& ar, std::optional<T>& value, Make&& make) {
    bool has = value.has_value();
    ar(has);
    if constexpr (Archive::loading) {
        if (!has) {
            value.reset();
            return;
        }
        if (!value) value.emplace(make());
    }
    if (has) ar(*value);
}

} // namespace choc
