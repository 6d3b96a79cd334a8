// `choc collide --plot PATH`: the bodies with their velocity arrows before and after,
// side by side, drawn with Cairo as PNG or SVG (chosen by the extension). 3D groups are
// drawn as their projection on the x-y plane.
#pragma once

#include "choc/collide/collide_file.hpp"

#include <string>

namespace choc {

// Draws the plot and writes it atomically (whole or not at all).
void write_collision_plot(const CollisionReport& report, const std::string& path);

} // namespace choc
