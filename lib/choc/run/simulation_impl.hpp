// What a Simulation (simulation.hpp) forwards to, and where it comes from: one LiveRun
// (live_run.hpp) per dimension and Motion, each compiled in a source of its own
// (live_run_{ballistic,field}_{2d,3d}.cpp) so that the four compile side by side and
// simulation.cpp compiles none.
#pragma once

#include "choc/run/checkpoint.hpp"
#include "choc/run/config.hpp"
#include "choc/run/simulation.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace choc {

namespace live {

// Where a stage begun by steering starts (Simulation::steer): the box and the particles as
// the run stood, as save_configuration writes them (configuration_archive.hpp: in the
// start's order, each at time 0 of the new engine's clock, with its velocity as the stage
// begins), the clock of frames and rows then (the run's time()), and the stages so far
// with this one; the kinetic energy before and after a rescale.
struct StageStart {
    std::string configuration;
    double label = 0.0;
    std::uint64_t stages = 0;
    double kinetic_before = 0.0, kinetic_after = 0.0;
};

} // namespace live

// What Simulation forwards to, with the dimension and the Motion erased.
class Simulation::Impl {
  public:
    virtual ~Impl() = default;
    virtual StepEnd advance(const Advance& by) = 0;
    virtual Summary summary() const = 0;
    virtual ParticleArrays particles() const = 0;
    virtual Measurements measurements() const = 0;
    virtual double time() const = 0;
    virtual Summary finish(const std::string& summary_path, const std::string& summary_key) = 0;
    virtual const Config& config() const = 0;
    virtual const std::optional<InelasticCollapse>& collapse() const = 0;
    virtual const std::optional<InvariantViolation>& violation() const = 0;
    virtual const RunOptions& options() const = 0;
    virtual const std::string& started() const = 0;
    virtual void save_checkpoint(const std::string& path, const std::string& key) = 0;
    // `key` names the call in errors.
    virtual live::StageStart stage_start(std::optional<double> kT,
                                         const std::string& key) const = 0;
};

namespace live {

// The run for dimension D and Motion M (Ballistic<D> or Field<D>) with the integrator the
// config asks for, from the config's start, from `resume`, or from `stage`.
template <int D, class M>
std::unique_ptr<Simulation::Impl> live_run_for(const Config& config, const RunOptions& options,
                                               const std::string& started, M motion,
                                               const Checkpoint* resume, const StageStart* stage);

} // namespace live
} // namespace choc
