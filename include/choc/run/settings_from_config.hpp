// The engine's settings as a config file gives them.
#pragma once

#include "choc/kernel/engine_settings.hpp"
#include "choc/run/config.hpp"

namespace choc {

inline EngineSettings engine_settings(const Config& config) {
    EngineSettings s;
    s.restitution = config.restitution;
    if (!config.pair_restitution.empty()) {
        const std::size_t n = config.species.size();
        s.pair_restitution.assign(n * n, config.restitution);
        for (const PairRestitution& p : config.pair_restitution)
            s.pair_restitution[p.a * n + p.b] = s.pair_restitution[p.b * n + p.a] = p.restitution;
    }
    s.epsilon = config.epsilon;
    s.contact_gap = config.contact_gap;
    s.tc = config.tc;
    s.tc_from_start = !config.tc_on_collapse;
    s.rest_speed = config.rest_speed;
    s.shear_temperature = config.shear_temperature.value_or(0.0);
    s.dt = config.dt;
    s.passes = config.passes;
    // the thermal walls' own stream, apart from the one that placed the particles
    s.thermal_seed = config.seed ^ 0x9e3779b97f4a7c15u;
    return s;
}

} // namespace choc
