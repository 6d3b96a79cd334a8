// collide_group_file on group-file text: which pairs are contacts (the tolerance), how
// they split into groups (a shared wall joins nothing), and the errors that name keys.
#include <doctest/doctest.h>

#include <choc/collide/collide_file.hpp>
#include <choc/collide/group_file.hpp>
#include <choc/errors.hpp>

#include <cmath>
#include <string>

namespace test_collide_file {

using namespace choc;

namespace {

std::string body(const std::string& position, const std::string& velocity) {
    return "[[bodies]]\nposition = " + position + "\nvelocity = " + velocity +
           "\nradius = 1.0\nmass = 1.0\n";
}

CollisionReport collide_text(const std::string& text) {
    return collide_group_file(parse_group_file(text, "g.toml"));
}

std::string error_of(const std::string& text) {
    try {
        collide_text(text);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("collide file: contacts within the tolerance, relative to r_a + r_b") {
    // Gap 1e-10 of the contact distance 2 (below 1e-9): a contact. Gap 1e-8: none.
    const std::string near = "dimension = 2\n" + body("[0.0, 0.0]", "[1.0, 0.0]") +
                             body("[2.0000000002, 0.0]", "[0.0, 0.0]");
    const auto report = collide_text(near);
    REQUIRE(report.contacts.size() == 1);
    CHECK(report.contacts[0].a == 0);
    CHECK(report.contacts[0].b == 1);
    // Head on, equal masses, e = 1: the velocities swap (to rounding).
    CHECK(std::abs(report.bodies[0].velocity_after[0]) <= 1e-15);
    CHECK(std::abs(report.bodies[1].velocity_after[0] - 1.0) <= 1e-15);

    const std::string far = "dimension = 2\n" + body("[0.0, 0.0]", "[1.0, 0.0]") +
                            body("[2.00000002, 0.0]", "[0.0, 0.0]");
    CHECK(error_of(far).starts_with("g.toml: bodies[0]: touches no other body"));
    CHECK(collide_text("tolerance = 1e-6\n" + far).contacts.size() == 1);
    const std::string deep = "dimension = 2\n" + body("[0.0, 0.0]", "[1.0, 0.0]") +
                             body("[1.99999998, 0.0]", "[0.0, 0.0]");
    CHECK(error_of(deep).starts_with("g.toml: bodies[1]: overlaps bodies[0]"));
}

TEST_CASE("collide file: separate groups, and a wall shared by two of them") {
    // Two spheres resting on the floor z = 0, far apart, each hit from above by nothing
    // but falling onto it: two groups of one wall contact each, not one group.
    const std::string floor = "dimension = 3\nrestitution = 0.5\n" +
                              body("[0.0, 0.0, 1.0]", "[0.0, 0.0, -2.0]") +
                              body("[5.0, 0.0, 1.0]", "[0.0, 0.0, -1.0]") +
                              "[[walls]]\nnormal = [0.0, 0.0, 3.0]\npoint = [1.0, 1.0, 0.0]\n";
    const auto report = collide_text(floor);
    CHECK(report.groups == 2);
    REQUIRE(report.contacts.size() == 2);
    CHECK(report.contacts[0].wall);
    CHECK(report.contacts[0].normal == std::vector<double>{0.0, 0.0, 1.0}); // normalised
    // Each bounces off the floor with e = 1/2, exactly (dyadic numbers).
    CHECK(report.bodies[0].velocity_after == std::vector<double>{0.0, 0.0, 1.0});
    CHECK(report.bodies[1].velocity_after == std::vector<double>{0.0, 0.0, 0.5});
    CHECK(report.contacts[0].impulse == std::vector<double>{0.0, 0.0, 3.0});
    CHECK(report.kinetic_before == 2.5);
    CHECK(report.kinetic_after == 0.625);
    CHECK(report.notes.empty());

    // A wall below the floor's plane, and one the body is behind: errors naming them.
    CHECK(error_of(floor + "[[walls]]\nnormal = [0.0, 0.0, 1.0]\npoint = [0.0, 0.0, 0.5]\n")
              .starts_with("g.toml: bodies[0]: overlaps walls[1]"));
}

TEST_CASE("collide file: keys are checked strictly") {
    const std::string good =
        "dimension = 2\n" + body("[0.0, 0.0]", "[1.0, 0.0]") + body("[2.0, 0.0]", "[0.0, 0.0]");
    CHECK(error_of("speed = 1\n" + good).starts_with("g.toml: speed: unknown key"));
    CHECK(error_of(good + "spin = 1\n").starts_with("g.toml: bodies[1].spin: unknown key"));
    CHECK(error_of("dimension = 2.0\n" + body("[0.0, 0.0]", "[1.0, 0.0]"))
              .starts_with("g.toml: dimension: expected an integer, got float 2.0"));
    CHECK(error_of("dimension = 4\n" + good.substr(14)) ==
          "g.toml: dimension: must be 2 or 3, got 4");
    CHECK(error_of("tolerance = 1\n" + good) ==
          "g.toml: tolerance: must be >= 0 and below 1, got 1");
    CHECK(collide_text("tolerance = 0\n" + good).contacts.size() == 1);
    CHECK(error_of("restitution = 2\n" + good) ==
          "g.toml: restitution: must be between 0 and 1, got 2");
    CHECK(error_of(good.substr(0, good.size() - 11) + "mass = 0.0\n") ==
          "g.toml: bodies[1].mass: must be > 0, got 0");
    CHECK(error_of("dimension = 2\n" + body("[0.0, 0.0]", "[1.0, \"abc\"]")) ==
          "g.toml: bodies[0].velocity[1]: expected a number, got string 'abc'");
    CHECK(error_of("dimension = 2\n" + body("[0.0, 0.0, 0.0]", "[1.0, 0.0]")) ==
          "g.toml: bodies[0].position: expected 2 numbers (one per axis), got 3");
    CHECK(error_of("dimension = 2\n[[bodies]]\nposition = [0.0, 0.0]\nvelocity = [0.0, 0.0]\n"
                   "mass = 1.0\n")
              .starts_with("g.toml: bodies[0].radius: required key is missing"));
    CHECK(error_of("dimension = 2\nbodies = 3\n").starts_with("g.toml: bodies: expected an array"));
    CHECK(error_of("dimension = 2\n").starts_with("g.toml: bodies: at least one"));
}

TEST_CASE("collide file: numbers are 0 or of magnitude within [1e-50, 1e50], as in the config") {
    const std::string second = body("[2.0, 0.0]", "[0.0, 0.0]");
    const std::string rule = "must be of magnitude within [1e-50, 1e+50] (or 0 where 0 is "
                             "allowed) so that products of group-file values stay within double "
                             "precision, got ";
    // One disc touching `second`, with the given radius and mass.
    auto first = [&](const std::string& radius, const std::string& mass) {
        return "dimension = 2\n[[bodies]]\nposition = [0.0, 0.0]\nvelocity = [1.0, 0.0]\n"
               "radius = " +
               radius + "\nmass = " + mass + "\n" + second;
    };
    CHECK(error_of(first("1.0", "1e-60")) == "g.toml: bodies[0].mass: " + rule + "1e-60");
    CHECK(error_of(first("1.0", "1e60")) == "g.toml: bodies[0].mass: " + rule + "1e+60");
    CHECK(error_of(first("1e51", "1.0")) == "g.toml: bodies[0].radius: " + rule + "1e+51");
    CHECK(collide_text(first("1.0", "1e50")).contacts.size() == 1);
    // A velocity whose m v^2 would overflow (before: a check of the kinetic energy).
    CHECK(error_of("dimension = 2\n" + body("[0.0, 0.0]", "[1e300, 0.0]") + second) ==
          "g.toml: bodies[0].velocity[0]: " + rule + "1e+300");
    CHECK(error_of("dimension = 2\n" + body("[0.0, 1e-60]", "[1.0, 0.0]") + second) ==
          "g.toml: bodies[0].position[1]: " + rule + "1e-60");
    // 0 is allowed wherever the key's own range allows it.
    const auto report = collide_text("dimension = 2\n" + body("[0.0, 0.0]", "[1.0, 0.0]") + second);
    CHECK(report.bodies[1].velocity_after[1] == 0.0);

    // Wall points are bounded; normals are directions, normalised, and not bounded.
    const std::string disc = "dimension = 2\n" + body("[0.0, 1.0]", "[0.0, -1.0]");
    const auto floor =
        collide_text(disc + "[[walls]]\nnormal = [0.0, 1e-60]\npoint = [0.0, 0.0]\n");
    REQUIRE(floor.contacts.size() == 1);
    CHECK(floor.contacts[0].normal == std::vector<double>{0.0, 1.0});
    CHECK(floor.bodies[0].velocity_after == std::vector<double>{0.0, 1.0});
    CHECK(error_of(disc + "[[walls]]\nnormal = [0.0, 1.0]\npoint = [1e-60, 0.0]\n") ==
          "g.toml: walls[0].point[0]: " + rule + "1e-60");
}

} // namespace test_collide_file
