// Every tolerance and limit of the kernel in one place, each with its unit and the reason
// for its value (as Box2D's constants.h and Jolt's PhysicsSettings.h do). The code that
// uses one says why it is needed there; this file says why it is this large. Changing any
// of them changes runs: the golden test (tests/unit/test_golden.cpp) shows it. The run's own
// limits (what a config may ask for, the collapse watch) are in lib/choc/run/run_limits.hpp.
//
// "Relative" means: relative to the scale named in the line (a contact distance, a
// speed, an energy); none of them is an absolute length or time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace choc {

// --- Round-off tolerances -------------------------------------------------------------

// Invariants (audit.hpp): relative tolerance of contact distances, overlaps, energy and
// momentum. Round-off leaves a computed contact a few units of 1e-16 of the box edge
// from exact; 1e-9 is a million times that, and far below anything a missed or misplaced
// collision leaves behind (an overlap of a sizeable fraction of a diameter). For boxes
// more than about 1e5 contact distances long the round-off term takes over
// (Engine::contact_tolerance).
inline constexpr double invariant_tolerance = 1e-9;

// Of the round-off term: a coordinate carries round-off of about eps * L; a contact is a
// few operations on coordinates, so this many of those (units of eps * L / shortest
// contact distance).
inline constexpr double contact_round_off_ulps = 64.0;

// A long instant's pair (Engine::at_rest_contact) approaching by at most this many ulps of
// its faster particle's speed is left as it is: a collision's change of velocity, about
// the approach, is then below what the velocities resolve once rounded (an ulp is eps
// |v| / 2 to eps |v|), and the approach computed from them carries a few such roundings.
inline constexpr double approach_round_off_ulps = 16.0;

// A pair contact held at rest for the rest of an instant (resting_contacts.hpp) is met
// again where its relative flight would take it this fraction of the contact tolerance
// deeper (Engine::held_contact_delay), and a pair overlapping by more than half of it is
// one a hold carried in, resolved by its own rule in a group too
// (GroupStep::reflect_held_pairs): far above the round-off of a contact (a few ulps of
// it), and far enough below the contact check that a pair held so twice is within it.
inline constexpr double held_contact_depth = 0.25;

// A centre this many ulps of its coordinates outside a triangle's edge is over its face
// but for round-off (Triangle::over_face): a few roundings of the edge test.
inline constexpr double face_round_off_ulps = 4.0;
// A glide's end (Glides::leave_glide) puts the centre this many ulps of its coordinates
// past the edge it reached: beyond face_round_off_ulps, so that the face it left no longer
// has it over it even so, and a coplanar neighbour sharing the edge has it over its face
// (Triangle::over, a segment's `along`); far below any length of the physics (1e-14 of a
// unit box).
inline constexpr double leave_edge_clearance_ulps = 16.0;

// Simultaneous step (group_step.hpp): a touching contact whose approach speed is above
// this fraction of its relative speed (the cosine of the angle between the normal and
// the relative velocity; dimensionless) counts as separating and stays out of the group.
// Round-off of a contact that is exactly sliding is ~1e-16; 1e-9 keeps it in.
inline constexpr double separating_tolerance = 1e-9;

// Default contact gap, relative to the contact distance (a wall: the radius): with
// epsilon > 0 a pair or wall this close that is not separating touches
// (EngineSettings::contact_gap, the config's collisions.contact_gap, the group file's
// tolerance). Coordinates written with all their digits put touching bodies within
// ~1e-16 of contact; 1e-9 leaves room for coordinates computed with a few roundings and
// is still far below any gap a user means as a gap. docs/REFERENCE.md documents it.
inline constexpr double default_contact_gap = 1e-9;

// Rest model (resting.hpp): the part of gravity, relative to |g|, that supports may leave
// unbalanced when they hold a particle at rest (dimensionless: the sine of the angle by
// which one support's normal may miss the vertical). A floor square to gravity leaves
// round-off, ~1e-16; a slope of 1e-9 radians (a centre 1e-9 of a diameter off the top of
// the particle below) does not hold a smooth particle, and neither does the model.
inline constexpr double rest_balance_tolerance = 1e-9;

// Rest model (RestModel::rests_together): the most slow awake particles gathered to be put to
// rest together, holding one another (a count). A pile's clusters of mutual support seen
// were of a few to 25 discs; the bound keeps the gathering's cost (each member looks at
// its neighbourhood) small when it fails, at every collision of a slow particle.
inline constexpr std::size_t rest_cluster_limit = 64;

// Rest model: two or three support normals count as independent when the determinant of
// their system (1 - cos^2 of the angle between two; the triple product of three) is at
// least this; below, their pair or triple is left to the singles or pairs, whose
// tolerance then applies (dimensionless; 1e-12 keeps the solve's round-off near 1e-4 of
// the coefficients at worst).
inline constexpr double rest_independence = 1e-12;

// Cell levels (cell_levels.hpp): species whose diameters differ by this factor or more get
// cell grids of their own. Below it one grid costs less than two (a small particle looks
// into the larger ones' grid too).
inline constexpr double default_level_ratio = 2.0;

// Triangles in a group step (group_step.hpp): two contacts of one particle whose tangent
// planes' unit normals have a dot product above 1 minus this are one constraint (a mesh's
// shared edge met from a face and from the edge: the normals differ by round-off, ~1e-16,
// while the rows of two different planes differ by the angle between them; 1e-12 is
// an angle of 1.4e-6 rad, far below any angle between a mesh's faces).
inline constexpr double same_plane_tolerance = 1e-12;
// ... and a triangle's nearest point lies in another triangle when it is this close to it,
// relative to (|point| + radius): the two compute a shared edge's points with a few
// roundings each, ~1e-16 of the coordinates.
inline constexpr double shared_point_tolerance = 1e-12;

// Flat patches (triangle_cells.hpp): two triangles of a cell are coplanar when their
// planes' heights agree to within this fraction of the smallest radius a everywhere in the
// cell. A fold that small moves a contact by less than 1e-12 a, a thousandth of what the
// invariants check (1e-9 a). Heights carry round-off of a few eps |x|, so coplanar
// triangles of a mesh (an axis-aligned wall, a flat floor) pass wherever |x| is below
// about a thousand radii; farther out, and for a tilted mesh written in single precision,
// they are met triangle by triangle, as exactly. (Relative to the coordinates instead, a
// real fold of 1e-12 |x| would pass in a large box: more than 1e-9 a once |x| > 1e3 a.)
inline constexpr double coplanar_tolerance = 1e-12;
// ... and a patch's triangles cover the region they stand for when every point of it lies
// within this fraction of the smallest radius a of a triangle: a centre a gap g beside them
// is met at distance sqrt(h² + g²), not |h|, so the plane bounces it at most g²/2a early,
// 5e-13 a (the invariants allow 1e-9 a), and never late. Round-off leaves slivers ~1e-16
// wide along the edges two triangles share.
inline constexpr double patch_gap_tolerance = 1e-6;

// Segment and triangle predictions (SegmentObstacles::predict, triangle_cells.hpp): a cell's bounds
// carry round-off relative to (radius + cell width); the reach of a particle in a cell is widened
// by this fraction of it, so that a segment within round-off of the cell is never skipped.
inline constexpr double cell_bounds_round_off = 1e-9;

// Cell levels (cell_levels.hpp): a coarse grid's cells are (reach + 1) fine widths wide and
// this fraction more, and a fine cell is near a larger particle's when the boxes are closer
// than its contact distance and this fraction more, so that positions a few ulps outside
// their cells (round-off at crossings) stay covered. Far above that round-off (~1e-16 of
// the coordinates), far below what it costs: a millionth more cells looked at.
inline constexpr double level_width_margin = 1e-6;

// Triangle lists (triangle_cells.hpp): a triangle's range of cells along an axis, from its
// bounding box grown by the reach and divided by the cell width, is widened by this
// fraction of a cell on each side, for the round-off of the bounds and the division (a few
// eps of the coordinates over the width); every cell of the range is still tested exactly
// (Triangle::may_reach), so more only costs tests.
inline constexpr double cell_range_round_off = 1e-6;
// ... and a cell's two-sided entries are looked up by their height at one point of the
// cell, whose round-off is some 1e-16 of the coordinates and offsets: keys within
// coplanar_tolerance and this fraction of (the cell's coordinates + the largest offset) of
// the seed's are tested, which only lets more entries be tested, never fewer.
inline constexpr double patch_key_round_off = 1e-12;
// ... and the triangle of a flat patch that holds a contact is looked for among those whose
// sphere, grown by this fraction of its radius, holds the foot of the centre on the plane
// (round-off of a few eps of the coordinates; all of them if it is in none).
inline constexpr double patch_holder_margin = 1e-9;

// Triangles (Triangle::may_reach, the separating-axis test of a triangle and a cell): the
// box's radius along an axis is grown by this fraction before the test, so that round-off
// of the projections (a few eps of them) never calls apart what merely touches.
inline constexpr double separating_axis_margin = 1e-12;
// ... and an edge crossed with a box axis gives an axis to test only when its squared
// length is above this: the edge's unit tangent is then not parallel to the box axis (to
// within 1e-12 rad), and a shorter cross product would only carry round-off. Leaving an
// axis out can only call fewer pairs apart: the test stays conservative.
inline constexpr double degenerate_axis_squared = 1e-24;

// Flat patches (plane_cover.hpp, farthest_uncovered): a point beyond a triangle's edge by
// less than this fraction of the region's size is taken as inside when the region is cut
// (round-off of the cut points, ~1e-16 of it), so that round-off makes no sliver of no
// area that no one triangle holds; such points are still dropped only by the true distance.
inline constexpr double plane_cover_snap = 1e-12;

// Contact with a convex obstacle (convex_time.hpp): distances within this many ulps of the
// coordinates' size (the set's scale + the radius) of contact are round-off: a position
// carries a few roundings of its size, the nearest point of the set a few more.
inline constexpr double convex_slack_ulps = 8.0;

// Contact under a field (motions.hpp, Field::first_contact): the bracket of the contact
// time is resolved once it is no wider than this many ulps of its upper end (two
// roundings of each bound, which the gap's own round-off cannot tell apart) ...
inline constexpr double field_bracket_ulps = 4.0;
// ... and a Newton step from the open side no longer than this many ulps of the time has
// converged: below the resolution of τ (an ulp is eps τ / 2 to eps τ).
inline constexpr double field_newton_ulps = 2.0;

// Dense elimination (gauss_jordan.hpp, default_rank_tolerance): a pivot below this many
// times n eps max|a_ij| is zero. Full pivoting's computed reduction is exact for A + E with
// max|E| <= c n eps g max|A|, the growth g of order 1 in practice: this covers c g with
// margin (gauss_jordan.hpp argues it).
inline constexpr double dense_rank_factor = 16.0;

// A crease of two faces a glide presses on (Engine::crease_of): faces whose normals are
// parallel to within 1e-5 rad (1 - c^2 = sin^2 of the angle below 1e-10) are one plane,
// the glide along both already; above it the crease's line n1 x n2 / sin is known to
// eps / sin, 1e-11 at worst.
inline constexpr double crease_parallel = 1e-10;

// Group rule (group_rule.hpp, GroupTolerances), relative to the group's scales: V = the
// largest relative speed over its contacts, P = V times the largest finite mass.
// Far above the rounding of a solve (~n eps kappa, 1e-13 for the small, well
// conditioned groups met in practice), far below any physical speed: a contact left
// approaching at 1e-9 V is caught by the next pair prediction as a collision at once.
inline constexpr double group_approach_tolerance = 1e-9; // of V: "at rest"
inline constexpr double group_impulse_tolerance = 1e-9;  // of P: "pulling"
// Relative pivot of the dense elimination: the normals are known only to the contact
// tolerance, so a pivot below ~1e-10 is a geometry singular up to that uncertainty.
inline constexpr double group_rank_tolerance = 1e-10;
// Pivot of the sparse LDL^T, relative to its diagonal entry: normals dependent to within
// ~1e-6 in angle (the pivot is A_ii sin^2 of it); far above its rounding (~K eps).
inline constexpr double group_sparse_pivot = 1e-12;
// A contact normal of the group rule must be a unit vector to within this (|n|^2 - 1,
// dimensionless): a normal built from positions is unit to ~1e-16.
inline constexpr double unit_normal_tolerance = 1e-12;

// --- Iteration caps and limits ----------------------------------------------------------

// Group rule: at this many active contacts or more, the sparse Delassus solve
// (group_rule.hpp, GroupTolerances::sparse_from, which says why).
inline constexpr std::size_t group_sparse_from = 32;
// Group rule's sequential plastic fallback: at most this many steps per contact, plus
// the base. Its convergence is linear, so the cap is a safety net only.
inline constexpr std::size_t fallback_steps_per_contact = 10000;
inline constexpr std::size_t fallback_steps_base = 100;

// Contact with a convex obstacle under a field (convex_time.hpp: segment ends, triangle
// edges): at most this many bounded steps. Each step is at least a fixed share of the distance to
// contact or of the window, so real searches end in tens of steps; the cap stops a pathological
// one.
inline constexpr int convex_search_steps = 4000;

// The states a one-sided triangle's contact search (triangle_time.hpp) passes through in one
// flight: behind, inside and in front change at most five times (h crosses 0 at most twice);
// the rest is a margin for round-off at the boundaries.
inline constexpr int one_sided_search_states = 32;

// Contact under a field (motions.hpp, Field::first_contact): at most this many
// safeguarded Newton steps. Bisection alone halves a double's bracket to its resolution
// in ~60 steps; Newton takes fewer.
inline constexpr int field_contact_steps = 100;

// Flat patches (plane_cover.hpp, farthest_uncovered): whether triangles cover a cell's part
// of a plane is given up (+infinity: the triangles stay loose, met one by one as exactly)
// past this many pieces at once, or this many halvings: a region cut so finely is not one
// a patch should stand for.
inline constexpr std::size_t plane_cover_pieces = 256;
inline constexpr int plane_cover_halvings = 4096;

// A clock stuck at one instant (audit.hpp, "progress"): more than this many events per
// particle, plus the base, at one instant. A lattice start has every particle colliding
// at once, with stale renewals and groups, a few events per particle; 64 per particle and
// a million more is far beyond any real instant.
inline constexpr std::uint64_t stuck_events_per_particle = 64;
// Under a field, an instant of more than this many events per particle, plus the base,
// leaves its pairs that approach by round-off as they are (Engine::at_rest_contact), and
// with the rest model has its collisions made plastic (TcClocks::pair): far
// above any real instant, far below the stuck limit above, so that a jam at one instant
// ends first.
inline constexpr std::uint64_t plastic_events_per_particle = 16;
inline constexpr std::uint64_t plastic_events_base = 10'000;
inline constexpr std::uint64_t stuck_events_base = 1'000'000;
// With the rest model, an instant this many times as long as the plastic one above has its
// stall rescued (Engine::rescue_stall): its plastic collisions did not end it.
inline constexpr std::uint64_t rescue_instant_factor = 2;

// Maintenance (engine/maintenance.hpp: invariants, rebase, renumbering) every this many
// events per particle, and at least every so many events: an O(N log N) pass every few
// events per particle is a small fraction of the run, and a small system still rebases
// its clock often enough to keep stored times small.
inline constexpr std::uint64_t maintenance_events_per_particle = 4;
inline constexpr std::uint64_t maintenance_events_min = 1u << 16;

// The thermostat of a sheared fluid (engine/sliding_boundaries.hpp) every this many pair
// collisions per particle.
inline constexpr std::uint64_t thermostat_collisions_per_particle = 10;

// Most species: the engine keeps per-pair tables (contact distances, their squares,
// restitutions) of n^2 doubles each; 1024 species make each 8 MiB, 16000 would make each
// 2 GB. A mixture with more kinds of particle than this is better described otherwise.
inline constexpr std::size_t max_species = 1024;

} // namespace choc
