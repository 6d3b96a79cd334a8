// The table and the JSON of `choc collide`.
#include "choc/collide/collision_output.hpp"
#include "choc/io/text_table.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

namespace choc {
namespace {

// Ten significant digits: enough to read off -1/3 or check a conservation law by eye;
// --json carries every digit.
std::string ten_digits(double x) {
    return fmt::format("{:.10g}", x);
}

std::string ten_digits(const std::vector<double>& v) {
    std::string text = "(";
    for (std::size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + ten_digits(v[i]);
    return text + ")";
}

} // namespace

std::string collision_table(const CollisionReport& r) {
    std::string text =
        fmt::format("{}: {}D, {} bodies, {} walls, {} contacts in {} group{}, restitution {}\n\n",
                    r.source, r.dimension, r.bodies.size(), r.walls.size(), r.contacts.size(),
                    r.groups, r.groups == 1 ? "" : "s", ten_digits(r.restitution));

    std::vector<std::vector<std::string>> bodies = {
        {"body", "mass", "radius", "velocity before", "velocity after"}};
    for (std::size_t i = 0; i < r.bodies.size(); ++i) {
        const CollidedBody& b = r.bodies[i];
        bodies.push_back({std::to_string(i), ten_digits(b.mass), ten_digits(b.radius),
                          ten_digits(b.velocity_before), ten_digits(b.velocity_after)});
    }
    text += aligned(bodies) + "\n";

    std::vector<std::vector<std::string>> contacts = {
        {"contact", "a", "b", "normal (b to a)", "impulse on a", "normal impulse"}};
    for (std::size_t k = 0; k < r.contacts.size(); ++k) {
        const CollidedContact& c = r.contacts[k];
        contacts.push_back({std::to_string(k), "bodies[" + std::to_string(c.a) + "]",
                            (c.wall ? "walls[" : "bodies[") + std::to_string(c.b) + "]",
                            ten_digits(c.normal), ten_digits(c.impulse),
                            ten_digits(c.normal_impulse)});
    }
    text += aligned(contacts) + "\n";

    text += fmt::format("kinetic energy: before {}, after {}, change {}\n",
                        ten_digits(r.kinetic_before), ten_digits(r.kinetic_after),
                        ten_digits(r.kinetic_after - r.kinetic_before));
    return text;
}

std::string collision_json(const CollisionReport& r) {
    using Json = nlohmann::ordered_json;
    Json bodies = Json::array();
    for (const CollidedBody& b : r.bodies)
        bodies.push_back(
            {{"velocity_before", b.velocity_before}, {"velocity_after", b.velocity_after}});
    Json contacts = Json::array();
    for (const CollidedContact& c : r.contacts) {
        Json entry = {{"a", c.a}};
        entry[c.wall ? "wall" : "b"] = c.b;
        entry["impulse"] = c.impulse;
        contacts.push_back(entry);
    }
    const Json out = {
        {"bodies", bodies},
        {"contacts", contacts},
        {"kinetic_energy", {{"before", r.kinetic_before}, {"after", r.kinetic_after}}}};
    return out.dump(2);
}

} // namespace choc
