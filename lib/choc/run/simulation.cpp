// Simulation: the run for the config's dimension and field (live_run.hpp, compiled in
// live_run_*.cpp), built from the config's start or from the checkpoint to continue.
#include "choc/run/simulation.hpp"

#include "choc/errors.hpp"
#include "choc/io/output_lock.hpp"
#include "choc/io/output_paths.hpp"
#include "choc/kernel/archive.hpp"
#include "choc/kernel/motions.hpp"
#include "choc/message_text.hpp"
#include "choc/run/checkpoint.hpp"
#include "choc/run/provenance_text.hpp"
#include "choc/run/simulation_impl.hpp"

#include <cmath>

namespace choc {
namespace {

// The checkpoint to continue, checked against the config before anything is written.
std::optional<Checkpoint> checkpoint_to_continue(const Config& config, const RunOptions& options) {
    if (!options.continue_from) return std::nullopt;
    const std::string& path = *options.continue_from;
    const std::string& option = options.continue_key;
    Checkpoint c = read_checkpoint(path, option);
    if (auto key = config_difference(c.config, config.resolved))
        throw InputError(option + " \"" + path + "\": " + *key +
                         ": the config differs from the one the checkpoint was written with "
                         "(a continuation may change only run.time, run.collisions, "
                         "output.checkpoint, output.trajectory.max_bytes and the outputs' "
                         "paths)");
    // (the dimension and the field follow from the config, which matched)
    if (c.dimension != config.dimension)
        throw InputError(option + " \"" + path + "\": the checkpoint is damaged");
    return c;
}

// The engine for the field: straight flights unless there is gravity or drag (the
// field-free engine pays nothing for fields it does not have).
template <int D>
std::unique_ptr<Simulation::Impl> live_run(const Config& config, const RunOptions& options,
                                           const std::string& started, const Checkpoint* resume,
                                           const live::StageStart* stage = nullptr) {
    Vec<D> g;
    for (int a = 0; a < D; ++a) g[a] = config.gravity.empty() ? 0.0 : config.gravity[a];
    if (norm2(g) == 0.0 && config.drag == 0.0)
        return live::live_run_for<D>(config, options, started, Ballistic<D>{}, resume, stage);
    return live::live_run_for<D>(config, options, started, Field<D>(g, config.drag), resume, stage);
}

// The keys a stage may change (Simulation::steer): restitution between particles, per pair
// too, and the field.
bool steerable(const std::string& key) {
    return key == "collisions.restitution" || key.rfind("collisions.pair[", 0) == 0 ||
           key == "field.gravity" || key == "field.drag";
}

} // namespace

Config checkpoint_config(const std::string& path, const std::string& key,
                         const std::vector<std::string>& overrides) {
    const Checkpoint c = read_checkpoint(path, key);
    return parse_config(c.config, key + " \"" + escaped(path) + "\"", overrides);
}

Simulation::Simulation(const Config& config, const RunOptions& options) {
    // Without files, the checkpoints are the only output (the Python module): its path is
    // checked before anything is built, as `choc run` checks every output.
    if (!options.files && options.checkpoints && config.checkpoint) {
        std::vector<NamedPath> inputs{{"the config file", config.source}};
        if (config.from) inputs.push_back({"init.from", *config.from});
        check_outputs({{"output.checkpoint.path", config.checkpoint->path}}, inputs);
        // ... and owned while the run lives: another Simulation or run given the same file
        // is refused (naming the key, the path and the holder's pid) before either writes
        // it, instead of the two overwriting each other's checkpoints
        checkpoint_lock_ = std::make_unique<OutputLocks>(
            std::vector<NamedPath>{{"output.checkpoint.path", config.checkpoint->path}});
    }
    const auto resume = checkpoint_to_continue(config, options);
    const Checkpoint* from = resume ? &*resume : nullptr;
    const std::string started = utc_now();
    try {
        impl_ = config.dimension == 2 ? live_run<2>(config, options, started, from)
                                      : live_run<3>(config, options, started, from);
    } catch (const ArchiveError& e) {
        // (a state whose checksum held but that does not fit this config or build)
        throw InputError(options.continue_key + " \"" + *options.continue_from +
                         "\": the checkpoint cannot be continued: " + e.what());
    }
}

SteerResult Simulation::steer(const Steer& change) {
    const Config& now = impl_->config();
    Config next = now;
    if (!change.sets.empty()) {
        // The config read again with the change, so that every check of a config applies
        // to it (ranges, the field's time scales, the rest model's need of gravity); only
        // the steered keys are taken from it, everything else stays as the run has it.
        const Config read = [&] {
            try {
                return load_config_text(now.resolved, now.source, change.sets);
            } catch (const InputError& e) {
                // "--set: key: ..." names the call instead: the caller gave no --set
                const std::string what = e.what();
                const std::string set = "--set: ";
                if (what.rfind(set, 0) != 0) throw;
                throw InputError(change.key + ": " + what.substr(set.size()));
            }
        }();
        if (auto key = config_difference_but(now.resolved, read.resolved, steerable))
            throw InputError(change.key + ": " + *key +
                             ": cannot change between stages (only collisions.restitution, "
                             "collisions.pair, field.gravity and field.drag can)");
        next.restitution = read.restitution;
        next.pair_restitution = read.pair_restitution;
        next.gravity = read.gravity;
        next.drag = read.drag;
        next.resolved = read.resolved;
    }
    const live::StageStart start = impl_->stage_start(change.temperature, change.key);
    // Built whole before it replaces the run: a failure leaves the run as it was.
    auto stage = next.dimension == 2
                     ? live_run<2>(next, impl_->options(), impl_->started(), nullptr, &start)
                     : live_run<3>(next, impl_->options(), impl_->started(), nullptr, &start);
    impl_ = std::move(stage);
    return {start.kinetic_before, start.kinetic_after};
}

void Simulation::save(const std::string& path, const std::string& key) {
    impl_->save_checkpoint(path, key);
}

Simulation::~Simulation() = default;
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;

StepEnd Simulation::advance(const Advance& by) {
    if (by.time && !(std::isfinite(*by.time) && *by.time >= 0.0))
        throw InputError("run: time must be a finite number >= 0");
    return impl_->advance(by);
}
Summary Simulation::summary() const {
    return impl_->summary();
}
ParticleArrays Simulation::particles() const {
    return impl_->particles();
}
Measurements Simulation::measurements() const {
    return impl_->measurements();
}
double Simulation::time() const {
    return impl_->time();
}
const Config& Simulation::config() const {
    return impl_->config();
}
const std::optional<InelasticCollapse>& Simulation::collapse() const {
    return impl_->collapse();
}
const std::optional<InvariantViolation>& Simulation::violation() const {
    return impl_->violation();
}
Summary Simulation::finish(const std::string& summary_path, const std::string& summary_key) {
    return impl_->finish(summary_path, summary_key);
}

} // namespace choc
