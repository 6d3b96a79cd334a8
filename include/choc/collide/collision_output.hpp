// What `choc collide` prints: a table for people, or the JSON of docs/REFERENCE.md for scripts.
#pragma once

#include "choc/collide/collide_file.hpp"

#include <string>

namespace choc {

// Velocities before and after per body, impulses per contact, kinetic energies.
std::string collision_table(const CollisionReport& report);

// The JSON of docs/REFERENCE.md:
//     { "bodies": [ { "velocity_before", "velocity_after" } ... ],
//       "contacts": [ { "a", "b", "impulse" } ... ], "kinetic_energy": { "before", "after" } }
// A wall contact has "wall": w (an index into the group file's walls) in place of "b".
std::string collision_json(const CollisionReport& report);

} // namespace choc
