// The one check of a plot's path, for `choc collide --plot` and `choc contact --plot` alike
// (both draw through lib/choc/plot/image_file, in the library choc_plot).
#pragma once

#include <string>

namespace choc {

// Checks before any work that PATH ends in .png or .svg (any case) and can be written;
// throws InputError naming `key` otherwise.
void check_plot_path(const std::string& path, const std::string& key);

} // namespace choc
