// The kernel's refusal of a box its cell grids cannot cut (cells.hpp, step_grid.hpp), with
// the facts and no config words: the kernel knows no config. Its callers check their box
// first, and the run layer words this for the user by config key if it ever comes
// (lib/choc/run/kernel_errors.hpp: an InputError naming `box`, exit status 2).
#pragma once

#include <charconv>
#include <stdexcept>
#include <string>

namespace choc {

// A periodic axis shorter than three cells of the least width a grid was asked for: a
// particle's neighbour and that neighbour's periodic image would then share a cell.
class PeriodicEdgeTooShort : public std::invalid_argument {
  public:
    PeriodicEdgeTooShort(int axis, double edge, double min_width)
        : std::invalid_argument("cell grid: periodic edge " + shortest(edge) + " (axis " +
                                std::to_string(axis) + ") is shorter than three cells of width " +
                                shortest(min_width) + " (" + shortest(3 * min_width) + ")"),
          axis(axis), edge(edge), min_width(min_width) {}

    int axis;         // 0 = x, 1 = y, 2 = z
    double edge;      // the box's length along it
    double min_width; // the least cell width asked for (a largest diameter)

  private:
    // The shortest text that reads back as x (std::to_chars: no formatting library in the
    // cells' header).
    static std::string shortest(double x) {
        char text[32];
        return std::string(text, std::to_chars(text, text + sizeof text, x).ptr);
    }
};

} // namespace choc
