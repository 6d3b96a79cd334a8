// Fields and thermostats whose time scales the run's clock cannot resolve (config.cpp calls
// it once the config is read): refused by key, with the physical reason in the message.
#pragma once

#include "choc/io/toml_reader.hpp"
#include "choc/run/config.hpp"

namespace choc {

// Throws InputError naming field.gravity, field.drag or box.shear_temperature.
void check_time_scales(const Section& root, const Config& config);

} // namespace choc
