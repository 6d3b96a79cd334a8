// The run's own limits, each with its unit and the reason for its value: what a config may
// ask for (meshes, frames, histogram snapshots) and when the collapse watch strikes. The
// kernel's tolerances and limits are in kernel/tolerances.hpp; these are the run layer's
// business alone (config.cpp, the collapse watch, the measured phase's observers).
#pragma once

#include <cstdint>

namespace choc {

// --- What a config may ask for --------------------------------------------------------

// Triangles (config.cpp): the least shape, twice the area over the longest edge squared
// (Triangle::shape: sqrt(3)/2 for an equilateral triangle), of a triangle wall. The unit
// normal is the cross product of two edges over its length; below this the product is a
// difference of nearly equal terms and the normal's round-off grows as eps / shape: at the
// limit 1e-10, still far below the invariant tolerance. A sliver thinner than this is a
// mesh's defect, not a wall.
inline constexpr double min_triangle_shape = 1e-6;

// Mesh files (config.cpp): the largest read, 1 GiB. A binary STL facet takes 50 bytes, so
// this is about 20 million facets, beyond any vessel a run can use; the cap keeps a wrong
// path (a disk image, a log) from being read whole.
inline constexpr std::uint64_t max_mesh_bytes = std::uint64_t{1} << 30;

// Most trajectory frames (and time-series rows) a run may write: more is a mistake in
// output.trajectory.every, not a wish (config.cpp refuses it up front; the trajectory and
// time-series observers, run/phase/frames.hpp and rows.hpp, stop at it).
inline constexpr std::uint64_t max_frames = 1'000'000;
// Most snapshots of a histogram series (output.histogram with every): each is a pair of
// columns of one CSV held in memory until the end, and ten thousand column pairs is
// already more than any reader of a relaxation wants.
inline constexpr std::uint64_t max_histogram_snapshots = 10'000;

// --- The collapse watch ---------------------------------------------------------------

// Collapse watch (lib/choc/run/collapse_watch.hpp): a chunk whose mean time step falls
// below this fraction of the largest seen (dimensionless) is a strike towards inelastic
// collapse. A gas's mean step varies by a few orders at most as it cools; a collapse
// drives it to zero geometrically.
inline constexpr double collapse_step_ratio = 1e-6;

} // namespace choc
