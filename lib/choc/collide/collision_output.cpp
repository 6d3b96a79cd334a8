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
std::string show(double x) {
    return fmt::format("{:.10g}", x);
}

std::string show(const std::vector<double>& v) {
    std::string text = "(";
    for (std::size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + show(v[i]);
    return text + ")";
}

} // namespace

std::string collision_table(const CollisionReport& r) {
    std::string text =
        fmt::format("{}: {}D, {} bodies, {} walls, {} contacts in {} group{}, restitution {}\n\n",
                    r.source, r.dimension, r.bodies.size(), r.walls.size(), r.contacts.size(),
                    r.groups, r.groups == 1 ? "" : "s", show(r.restitution));

    std::vector<std::vector<std::string>> bodies = {
        {"body", "mass", "radius", "velocity before", "velocity after"}};
    for (std::size_t i = 0; i < r.bodies.size(); ++i) {
        const CollidedBody& b = r.bodies[i];
        bodies.push_back({std::to_string(i), show(b.mass), show(b.radius), show(b.velocity_before),
                          show(b.velocity_after)});
    }
    text += aligned(bodies) + "\n";

    std::vector<std::vector<std::string>> contacts = {
        {"contact", "a", "b", "normal (b to a)", "impulse on a", "normal impulse"}};
    for (std::size_t k = 0; k < r.contacts.size(); ++k) {
        const CollidedContact& c = r.contacts[k];
        contacts.push_back({std::to_string(k), "bodies[" + std::to_string(c.a) + "]",
                            (c.wall ? "walls[" : "bodies[") + std::to_string(c.b) + "]",
                            show(c.normal), show(c.impulse), show(c.normal_impulse)});
    }
    text += aligned(contacts) + "\n";

    text += fmt::format("kinetic energy: before {}, after {}, change {}\n", show(r.kinetic_before),
                        show(r.kinetic_after), show(r.kinetic_after - r.kinetic_before));
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
