// collide_group_file: positions -> contacts -> collision groups -> group rule.
#include "choc/collide/collide_file.hpp"

#include "choc/errors.hpp"
#include "choc/kernel/contact_graph.hpp"
#include "choc/kernel/group_rule.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace choc {
namespace {

std::string shortest(double x) {
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, x).ptr);
}

template <int D>
Vec<D> to_vec(const std::vector<double>& v) {
    Vec<D> out;
    for (int x = 0; x < D; ++x) out[x] = v[static_cast<std::size_t>(x)];
    return out;
}

template <int D>
std::vector<double> to_vector(const Vec<D>& v) {
    return std::vector<double>(v.c.begin(), v.c.end());
}

std::string body_name(std::size_t i) {
    return "bodies[" + std::to_string(i) + "]";
}
std::string wall_name(std::size_t w) {
    return "walls[" + std::to_string(w) + "]";
}

// The contacts: every pair and body-wall gap within tolerance times the contact distance.
// A gap below minus that is an overlap: bad input, not a contact.
template <int D>
std::vector<CollidedContact> find_contacts(const GroupFile& file) {
    const double tol = file.tolerance;
    std::vector<CollidedContact> contacts;
    std::vector<double> nearest(file.bodies.size(), std::numeric_limits<double>::infinity());
    auto fail = [&](std::size_t i, const std::string& other, double gap, double distance) {
        throw InputError(file.source + ": " + body_name(i) + ": overlaps " + other + " by " +
                         shortest(-gap) + " (" + shortest(-gap / distance) +
                         " of the contact distance, more than tolerance = " + shortest(tol) + ")");
    };
    for (std::size_t i = 0; i < file.bodies.size(); ++i) {
        const Vec<D> xi = to_vec<D>(file.bodies[i].position);
        for (std::size_t j = i + 1; j < file.bodies.size(); ++j) {
            const Vec<D> r = xi - to_vec<D>(file.bodies[j].position);
            const double sigma = file.bodies[i].radius + file.bodies[j].radius;
            const double distance = norm(r);
            const double gap = distance - sigma;
            nearest[i] = std::min(nearest[i], gap / sigma);
            nearest[j] = std::min(nearest[j], gap / sigma);
            if (gap < -tol * sigma) fail(j, body_name(i), gap, sigma);
            if (gap > tol * sigma) continue;
            CollidedContact c;
            c.a = i;
            c.b = j;
            c.normal = to_vector<D>(r * (1.0 / distance)); // from b to a
            contacts.push_back(c);
        }
    }
    for (std::size_t i = 0; i < file.bodies.size(); ++i) {
        const Vec<D> x = to_vec<D>(file.bodies[i].position);
        const double radius = file.bodies[i].radius;
        for (std::size_t w = 0; w < file.walls.size(); ++w) {
            const Vec<D> n = to_vec<D>(file.walls[w].normal);
            // Height of the centre above the plane, less the radius.
            const double gap = dot(x - to_vec<D>(file.walls[w].point), n) - radius;
            nearest[i] = std::min(nearest[i], gap / radius);
            if (gap < -tol * radius) fail(i, wall_name(w) + " (or is behind it)", gap, radius);
            if (gap > tol * radius) continue;
            CollidedContact c;
            c.a = i;
            c.b = w;
            c.wall = true;
            c.normal = file.walls[w].normal; // from the wall to the body
            contacts.push_back(c);
        }
    }
    std::vector<bool> touching(file.bodies.size(), false);
    for (const auto& c : contacts) {
        touching[c.a] = true;
        if (!c.wall) touching[c.b] = true;
    }
    for (std::size_t i = 0; i < file.bodies.size(); ++i)
        if (!touching[i])
            throw InputError(
                file.source + ": " + body_name(i) + ": touches no other body and no wall" +
                (std::isinf(nearest[i])
                     ? std::string()
                     : " (nearest gap " + shortest(nearest[i]) + " of the contact distance)") +
                "; bodies must be at contact within tolerance = " + shortest(tol));
    return contacts;
}

template <int D>
CollisionReport collide(const GroupFile& file) {
    CollisionReport report;
    report.source = file.source;
    report.dimension = D;
    report.restitution = file.restitution;
    report.tolerance = file.tolerance;
    report.walls = file.walls;
    report.contacts = find_contacts<D>(file);
    for (const auto& body : file.bodies) {
        report.bodies.push_back(
            {body.position, body.velocity, body.velocity, body.radius, body.mass});
    }

    std::vector<ContactPair> pairs;
    for (const auto& c : report.contacts)
        pairs.push_back({static_cast<std::uint32_t>(c.a), static_cast<std::uint32_t>(c.b), c.wall});
    const auto components = contact_components(pairs);
    report.groups = components.size();

    GroupSolver<D> solver;
    for (const ContactComponent& component : components) {
        // Local numbering: the component's bodies, then one wall body per wall contact.
        std::vector<GroupBody<D>> bodies;
        for (std::uint32_t i : component.bodies)
            bodies.push_back({to_vec<D>(file.bodies[i].velocity), file.bodies[i].mass});
        auto local = [&](std::uint32_t i) {
            return static_cast<std::uint32_t>(
                std::lower_bound(component.bodies.begin(), component.bodies.end(), i) -
                component.bodies.begin());
        };
        std::vector<GroupContact<D>> contacts;
        for (std::uint32_t k : component.contacts) {
            const CollidedContact& c = report.contacts[k];
            GroupContact<D> gc;
            gc.a = local(static_cast<std::uint32_t>(c.a));
            if (c.wall) {
                gc.b = static_cast<std::uint32_t>(bodies.size());
                bodies.push_back({Vec<D>{}, std::numeric_limits<double>::infinity()});
            } else {
                gc.b = local(static_cast<std::uint32_t>(c.b));
            }
            gc.normal = to_vec<D>(c.normal);
            gc.restitution = c.wall ? file.walls[c.b].restitution : file.restitution;
            contacts.push_back(gc);
        }
        const GroupResult<D> out = solver.resolve(bodies, contacts);
        for (std::size_t p = 0; p < component.bodies.size(); ++p)
            report.bodies[component.bodies[p]].velocity_after = to_vector<D>(out.velocities[p]);
        for (std::size_t p = 0; p < component.contacts.size(); ++p) {
            CollidedContact& c = report.contacts[component.contacts[p]];
            c.impulse = to_vector<D>(out.impulses[p]);
            c.normal_impulse = dot(out.impulses[p], contacts[p].normal);
        }
        const std::string which = "the group of " + body_name(component.bodies.front()) + " (" +
                                  std::to_string(component.contacts.size()) + " contacts)";
        if (out.singular && !out.fallback)
            report.notes.push_back(which + " has linearly dependent contacts: the velocities are "
                                           "unique, the split of the impulses among them is one "
                                           "choice of many");
        if (out.fallback)
            report.notes.push_back(which + " has no simultaneous solution; resolved by sequential "
                                           "plastic (e = 0) pair collisions");
        if (out.unresolved)
            report.notes.push_back(which + " still has an approaching contact after the "
                                           "sequential resolution's step limit");
    }
    for (const auto& body : report.bodies) {
        for (double v : body.velocity_before) report.kinetic_before += 0.5 * body.mass * v * v;
        for (double v : body.velocity_after) report.kinetic_after += 0.5 * body.mass * v * v;
    }
    return report;
}

} // namespace

CollisionReport collide_group_file(const GroupFile& file) {
    return file.dimension == 2 ? collide<2>(file) : collide<3>(file);
}

} // namespace choc
