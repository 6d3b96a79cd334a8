// Triangle meshes from STL files (ASCII and binary), read with Assimp (Debian's
// libassimp-dev): the walls of a 3D vessel ([[walls]] mesh = "...", triangle.hpp).
//
// Assimp keeps coordinates in single precision (Debian builds it without
// ASSIMP_DOUBLE_PRECISION), as binary STL stores them: an ASCII file's coordinates are
// rounded to the nearest float (about 7 digits). Vertices shared by facets are written once
// per facet and read back to the same float, so shared edges stay shared exactly.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace choc {

using MeshTriangle = std::array<std::array<double, 3>, 3>;

// Every facet of the STL file at `path`, in the file's order. Throws std::runtime_error
// with the reason (unreadable, not STL, no facets) for the caller to put under its key.
std::vector<MeshTriangle> read_stl(const std::string& path);

} // namespace choc
