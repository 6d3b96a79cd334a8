// A drawing written as a PNG or SVG file (by the path's extension, any case), whole or not
// at all (atomic_file.hpp): the Cairo plumbing shared by `choc collide --plot` and
// `choc contact --plot`. Only the choc_plot library, which links Cairo, includes it.
#pragma once

#include <cairo.h>

#include <functional>
#include <string>

namespace choc {

// Whether `path` ends in .svg (any case); check_plot_path has refused other endings
// than .png and .svg before any work.
bool is_svg_path(const std::string& path);

// Draws with `draw` on a `width` x `height` surface of the path's format and writes it.
// Throws std::runtime_error when Cairo fails, InputError when the file cannot be written.
void write_image(const std::string& path, double width, double height,
                 const std::function<void(cairo_t*)>& draw);

} // namespace choc
