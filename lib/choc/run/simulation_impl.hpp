// What a Simulation (simulation.hpp) forwards to, and where it comes from: one LiveRun
// (live_run.hpp) per dimension and Motion, each compiled in a source of its own
// (live_run_{ballistic,field}_{2d,3d}.cpp) so that the four compile side by side and
// simulation.cpp compiles none.
#pragma once

#include "choc/run/checkpoint.hpp"
#include "choc/run/config.hpp"
#include "choc/run/simulation.hpp"

#include <memory>
#include <optional>
#include <string>

namespace choc {

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
    virtual void save_checkpoint(const std::string& path, const std::string& key) = 0;
};

namespace live {

// The run for dimension D and Motion M (Ballistic<D> or Field<D>) with the integrator the
// config asks for, from the config's start or from `resume`.
template <int D, class M>
std::unique_ptr<Simulation::Impl> live_run_for(const Config& config, const RunOptions& options,
                                               const std::string& started, M motion,
                                               const Checkpoint* resume);

} // namespace live
} // namespace choc
