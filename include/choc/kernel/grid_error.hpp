// The kernel's refusal of a box its cell grids cannot cut (cells.hpp, step_grid.hpp), with
// the facts and no config words: the kernel knows no config. Its callers check their box
// first, and the run layer words this for the user by config key if it ever comes
// (lib/choc/run/kernel_errors.hpp: an InputError naming `box`, exit status 2).
#pragma once

#include <fmt/format.h>

#include <stdexcept>

namespace choc {

// A periodic axis shorter than three cells of the least width a grid was asked for: a
// particle's neighbour and that neighbour's periodic image would then share a cell.
class PeriodicEdgeTooShort : public std::invalid_argument {
  public:
    PeriodicEdgeTooShort(int axis, double edge, double min_width)
        : std::invalid_argument(
              fmt::format("cell grid: periodic edge {} (axis {}) is shorter than three cells of "
                          "width {} ({})",
                          edge, axis, min_width, 3 * min_width)),
          axis(axis), edge(edge), min_width(min_width) {}

    int axis;         // 0 = x, 1 = y, 2 = z
    double edge;      // the box's length along it
    double min_width; // the least cell width asked for (a largest diameter)
};

} // namespace choc
