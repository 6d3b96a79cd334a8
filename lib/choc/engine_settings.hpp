// The engine's settings as a config file gives them.
#pragma once

#include "config.hpp"
#include "engine.hpp"

namespace choc {

inline EngineSettings engine_settings(const Config& config) {
    EngineSettings s;
    s.restitution = config.restitution;
    s.epsilon = config.epsilon;
    s.contact_gap = config.contact_gap;
    return s;
}

} // namespace choc
