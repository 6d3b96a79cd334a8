// The contact file of `choc contact` (docs/REFERENCE.md, "Contact file"): one sphere against
// a wall or two equal spheres, their material, the stiffness and damping of the
// spring-dashpot contact, and the integration study. Every key has a default; together
// they are the documents' example (steel, R = 5 mm, v0 = 0.1 m/s, e = 0.9, stiffness from
// a largest overlap of 1 % of R). Read strictly: every error is an InputError naming the
// file and the key.
#pragma once

#include "choc/contact/integrators.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace choc {

enum class ContactGeometry { wall, pair };

// A material preset (SI units) and where its numbers come from.
struct MaterialPreset {
    std::string_view name;
    double youngs_modulus, poisson_ratio, density; // Pa, -, kg/m^3
    std::string_view source;
};
const std::vector<MaterialPreset>& material_presets();

enum class StiffnessFrom { overlap, material, value };

struct ContactFile {
    std::string source; // the file name, for messages
    ContactGeometry geometry = ContactGeometry::wall;
    std::string material = "steel";                                  // a preset, or "custom"
    double youngs_modulus = 0.0, poisson_ratio = 0.0, density = 0.0; // filled from the preset
    double radius = 5e-3;              // m, of the sphere (of each sphere of a pair)
    double velocity = 0.1;             // m/s, approach speed at contact
    std::optional<double> restitution; // e in (0, 1]; 0.9 when neither it nor damping is given
    std::optional<double> damping;     // lambda in kg/s, instead of e
    StiffnessFrom stiffness_from = StiffnessFrom::overlap;
    double stiffness_value = 0.01; // the overlap fraction of R, or k in N/m
    std::vector<int> steps_per_contact = {5, 10, 15, 20, 30, 40, 50};
    std::vector<Method> methods = {Method::euler, Method::rk2, Method::rk3, Method::verlet};
    int plot_steps = 10; // the n of the delta(t) panel of --plot
};

// Bounds of steps_per_contact and plot_steps. Below 2, dt = t_c / n exceeds the stability
// limit omega dt < 2 of leap-frog (n > pi/2); above 1e6 the study would only measure
// rounding.
constexpr int min_steps_per_contact = 2;
constexpr int max_steps_per_contact = 1000000;

ContactFile parse_contact_file(const std::string& toml_text, const std::string& source);
ContactFile load_contact_file(const std::string& path);

} // namespace choc
