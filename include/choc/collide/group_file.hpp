// The collision-group file of `choc collide` (docs/REFERENCE.md, "Collision-group file"): bodies at
// (or within the contact tolerance of) contact, and optional plane walls. Read strictly:
// every error is an InputError naming the file and the key.
#pragma once

#include "choc/kernel/tolerances.hpp"

#include <string>
#include <vector>

namespace choc {

struct GroupFileBody {
    std::vector<double> position, velocity; // `dimension` entries each
    double radius = 0.0;
    double mass = 0.0;
};

struct GroupFileWall {
    std::vector<double> normal; // unit (normalised on reading), pointing to the bodies' side
    std::vector<double> point;
    double restitution = 1.0;
};

// Default contact tolerance, relative to the contact distance (r_a + r_b, or the radius
// against a wall). Coordinates written with all their digits (17 significant) put
// touching bodies within ~1e-16 of contact; 1e-9 leaves room for coordinates computed
// with a few roundings and is still far below any gap a user means as a gap. Files with
// hand-rounded coordinates (e.g. 6 digits) set `tolerance` to match.
constexpr double default_contact_tolerance = default_contact_gap;

struct GroupFile {
    std::string source; // the file name, for messages
    int dimension = 3;
    double restitution = 1.0;
    double tolerance = default_contact_tolerance;
    std::vector<GroupFileBody> bodies;
    std::vector<GroupFileWall> walls;
};

GroupFile parse_group_file(const std::string& toml_text, const std::string& source);
GroupFile load_group_file(const std::string& path);

} // namespace choc
