// parse_group_file: TOML (toml++) -> GroupFile, through the strict reader of the run
// config (toml_reader): unknown keys, wrong types, missing keys and out-of-range values
// are InputErrors "FILE: KEY: what", worded as the config's. Positions, velocities,
// radii, masses and wall points are 0 or of magnitude within [1e-50, 1e50] like config
// numbers, so that m v^2 and the group solve stay within double precision; wall normals
// are directions (normalised) and unbounded.
#include "choc/collide/group_file.hpp"

#include "choc/io/toml_file.hpp"
#include "choc/io/toml_reader.hpp"
#include "choc/io/unit_vector.hpp"

namespace choc {

GroupFile parse_group_file(const std::string& toml_text, const std::string& source) {
    const toml::table document = parse_toml(toml_text, source);
    const KeySource file(source, {}, "group-file values");
    const Section root(file, &document, "");
    root.allow({"dimension", "restitution", "tolerance", "bodies", "walls"});
    GroupFile group;
    group.source = source;
    group.dimension = read_dimension(root, 3);
    group.restitution = root.number("restitution", Range::unit_closed).value_or(1.0);
    group.tolerance =
        root.number("tolerance", Range::unit_right_open).value_or(default_contact_tolerance);
    const int d = group.dimension;

    // With |v| and m within 1e50, m v^2 / 2 is at most ~1e150: finite.
    for (const Section& entry : root.tables("bodies")) {
        entry.allow({"position", "velocity", "radius", "mass"});
        GroupFileBody body;
        body.position = entry.required_numbers("position", d);
        body.velocity = entry.required_numbers("velocity", d);
        body.radius = entry.required_number("radius", Range::positive);
        body.mass = entry.required_number("mass", Range::positive);
        group.bodies.push_back(body);
    }
    if (group.bodies.empty()) root.fail("bodies", "at least one [[bodies]] table is required");

    for (const Section& entry : root.tables("walls")) {
        entry.allow({"normal", "point", "restitution"});
        GroupFileWall wall;
        const auto normal = unit_vector(entry.required_numbers("normal", d, false));
        if (!normal) entry.fail("normal", "must not be the zero vector");
        wall.normal = *normal;
        wall.point = entry.required_numbers("point", d);
        wall.restitution =
            entry.number("restitution", Range::unit_closed).value_or(group.restitution);
        group.walls.push_back(wall);
    }
    return group;
}

GroupFile load_group_file(const std::string& path) {
    return parse_group_file(read_text_file(path), path);
}

} // namespace choc
