// `choc collide`: the contacts of a group file found from its positions, split into
// collision groups (contact_graph.hpp), each resolved by the group rule (group_rule.hpp).
#pragma once

#include "choc/collide/group_file.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace choc {

struct CollidedBody {
    std::vector<double> position, velocity_before, velocity_after;
    double radius = 0.0, mass = 0.0;
};

// A contact between bodies a < b, or between body a and wall b (wall = true). The impulse
// is the momentum body a received; the normal points from b to a.
struct CollidedContact {
    std::size_t a = 0, b = 0;
    bool wall = false;
    std::vector<double> normal, impulse;
    double normal_impulse = 0.0; // impulse . normal, >= 0 (pushing)
};

struct CollisionReport {
    std::string source;
    int dimension = 3;
    double restitution = 1.0, tolerance = 0.0;
    std::vector<CollidedBody> bodies;      // in file order
    std::vector<GroupFileWall> walls;      // in file order
    std::vector<CollidedContact> contacts; // pairs by (a, b), then wall contacts by (a, wall)
    double kinetic_before = 0.0, kinetic_after = 0.0;
    std::size_t groups = 0;         // connected components of the contact graph
    std::vector<std::string> notes; // singular or fallback groups, for a warning
};

// Throws InputError (naming the file and the body or wall) when bodies overlap by more
// than the tolerance, or a body touches nothing.
CollisionReport collide_group_file(const GroupFile& file);

} // namespace choc
