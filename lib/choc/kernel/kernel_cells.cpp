// The kernel's cell grids and triangle lists in 2D and 3D, compiled once here and linked by
// every program (cells.hpp, cell_levels.hpp and triangle_cells.hpp declare them extern): about
// twenty sources used each to compile their set-up code (the grids' plans, the triangles'
// lists and flat patches) again, which under the sanitizers took a minute or more apiece.
#include "choc/kernel/cell_levels.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/triangle_cells.hpp"

namespace choc {
template class Cells<2>;
template class Cells<3>;
template struct Neighbourhood<2>;
template struct Neighbourhood<3>;
template class CellLevels<2>;
template class CellLevels<3>;
template class LevelGrids<2>;
template class LevelGrids<3>;
template class TriangleCells<3>;
} // namespace choc
