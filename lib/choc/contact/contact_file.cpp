// parse_contact_file: TOML (toml++) -> ContactFile through the strict reader (toml_reader):
// unknown keys, wrong types and out-of-range values are InputErrors "FILE: KEY: what".
#include "choc/contact/contact_file.hpp"

#include "choc/io/toml_file.hpp"
#include "choc/io/toml_reader.hpp"
#include "choc/message_text.hpp"

#include <algorithm>

namespace choc {
namespace {

using choc::show; // a toml node as written; another source may have a show of its own

// Steel: round values for steels (handbooks give E = 190-215 GPa, nu = 0.28-0.30; N. E.
// Dowling, Mechanical Behavior of Materials, Table 5.2: mild steel 212 GPa and 0.293,
// stainless 2Ni-18Cr 215 GPa and 0.283) with the documents' density 8000 kg/m^3.
// Glass: the documents' values (soda-lime glass).
const std::vector<MaterialPreset> presets = {
    {"steel", 200e9, 0.30, 8000.0,
     "E and nu: round values for steels (Dowling, Mechanical Behavior of Materials, "
     "Table 5.2: 212-215 GPa, 0.28-0.29); density: the documents' 8000 kg/m^3"},
    {"glass", 69e9, 0.25, 2500.0, "the documents' values (soda-lime glass)"},
};

std::string preset_names() {
    std::string names;
    for (const auto& p : presets)
        names += (names.empty() ? "\"" : ", \"") + std::string(p.name) + "\"";
    return names;
}

void read_material(const Section& root, ContactFile& file) {
    const Section material = root.table("material");
    material.allow({"preset", "youngs_modulus", "poisson_ratio", "density"});
    const auto preset = material.string("preset");
    const int values =
        material.has("youngs_modulus") + material.has("poisson_ratio") + material.has("density");
    // No preset: all three values (a custom material), or none (the default steel).
    if (!preset && values != 0 && values != 3)
        material.fail("preset", "required unless youngs_modulus, poisson_ratio and density "
                                "are all given (presets: " +
                                    preset_names() + ")");
    const std::string name = preset ? *preset : values == 3 ? "custom" : "steel";
    if (preset || values == 0) {
        const auto it = std::find_if(presets.begin(), presets.end(),
                                     [&](const MaterialPreset& p) { return p.name == name; });
        if (it == presets.end())
            material.fail("preset", "unknown material \"" + escaped(name) +
                                        "\" (expected one of: " + preset_names() + ")");
        file.youngs_modulus = it->youngs_modulus;
        file.poisson_ratio = it->poisson_ratio;
        file.density = it->density;
    }
    file.material = name;
    // Values given beside a preset override it.
    file.youngs_modulus =
        material.number("youngs_modulus", Range::positive).value_or(file.youngs_modulus);
    file.density = material.number("density", Range::positive).value_or(file.density);
    if (auto nu = material.number("poisson_ratio")) {
        // -1 < nu <= 1/2 for an isotropic elastic solid (positive bulk and shear moduli).
        if (!(*nu > -1.0 && *nu <= 0.5))
            material.fail("poisson_ratio",
                          "must be within (-1, 0.5] (isotropic elastic solid), got " +
                              number_text(*nu));
        file.poisson_ratio = *nu;
    }
}

void read_stiffness(const Section& root, ContactFile& file) {
    if (!root.has("stiffness")) return;
    const Section stiffness = root.table("stiffness");
    stiffness.allow({"overlap", "material", "value"});
    const int given = stiffness.has("overlap") + stiffness.has("material") + stiffness.has("value");
    if (given != 1)
        root.fail("stiffness", "give exactly one of { overlap = fraction of R }, "
                               "{ material = true } or { value = k in N/m }");
    if (auto f = stiffness.number("overlap", Range::unit_open)) {
        file.stiffness_from = StiffnessFrom::overlap;
        file.stiffness_value = *f;
    } else if (auto k = stiffness.number("value", Range::positive)) {
        file.stiffness_from = StiffnessFrom::value;
        file.stiffness_value = *k;
    } else {
        if (!*stiffness.boolean("material"))
            stiffness.fail("material", "must be true (for another stiffness give overlap or "
                                       "value instead)");
        file.stiffness_from = StiffnessFrom::material;
    }
}

void read_integration(const Section& root, ContactFile& file) {
    const Section integration = root.table("integration");
    integration.allow({"steps_per_contact", "methods", "plot_steps"});
    const std::string range = "within [" + std::to_string(min_steps_per_contact) + ", " +
                              std::to_string(max_steps_per_contact) + "]";
    if (const toml::node* node = integration.get("steps_per_contact")) {
        const std::string key = integration.key("steps_per_contact");
        const toml::array* array = node->as_array();
        if (!array || array->empty())
            integration.fail("steps_per_contact",
                             "expected a non-empty array of integers, got " + show(*node));
        file.steps_per_contact.clear();
        for (std::size_t i = 0; i < array->size(); ++i) {
            const std::string entry = key + "[" + std::to_string(i) + "]";
            const auto n = root.source().integer(*array->get(i), entry);
            if (n < min_steps_per_contact || n > max_steps_per_contact)
                root.source().fail(entry, "must be " + range + ", got " + std::to_string(n));
            if (std::find(file.steps_per_contact.begin(), file.steps_per_contact.end(), n) !=
                file.steps_per_contact.end())
                root.source().fail(entry, "repeats " + std::to_string(n));
            file.steps_per_contact.push_back(static_cast<int>(n));
        }
        std::sort(file.steps_per_contact.begin(), file.steps_per_contact.end());
    }
    if (const toml::node* node = integration.get("methods")) {
        const std::string key = integration.key("methods");
        const toml::array* array = node->as_array();
        if (!array || array->empty())
            integration.fail("methods",
                             "expected a non-empty array of method names, got " + show(*node));
        std::string names;
        for (const auto& m : methods()) names += (names.empty() ? "" : ", ") + std::string(m.name);
        file.methods.clear();
        for (std::size_t i = 0; i < array->size(); ++i) {
            const std::string entry = key + "[" + std::to_string(i) + "]";
            const std::string name = root.source().string(*array->get(i), entry);
            const auto method = method_named(name);
            if (!method)
                root.source().fail(entry, "unknown method \"" + escaped(name) +
                                              "\" (expected one of: " + names + ")");
            if (std::find(file.methods.begin(), file.methods.end(), *method) != file.methods.end())
                root.source().fail(entry, "repeats \"" + name + "\"");
            file.methods.push_back(*method);
        }
    }
    if (auto n = integration.integer("plot_steps", min_steps_per_contact)) {
        if (*n > max_steps_per_contact)
            integration.fail("plot_steps", "must be " + range + ", got " + std::to_string(*n));
        file.plot_steps = static_cast<int>(*n);
    }
}

} // namespace

const std::vector<MaterialPreset>& material_presets() {
    return presets;
}

ContactFile parse_contact_file(const std::string& toml_text, const std::string& source) {
    const toml::table document = parse_toml(toml_text, source);
    const KeySource keys(source, {}, "contact-file values");
    const Section root(keys, &document, "");
    root.allow({"geometry", "radius", "velocity", "restitution", "damping", "stiffness", "material",
                "integration"});
    ContactFile file;
    file.source = source;
    if (auto geometry = root.string("geometry")) {
        if (*geometry == "wall")
            file.geometry = ContactGeometry::wall;
        else if (*geometry == "pair")
            file.geometry = ContactGeometry::pair;
        else
            root.fail("geometry", "expected \"wall\" (a sphere on a flat wall) or \"pair\" (two "
                                  "equal spheres), got \"" +
                                      escaped(*geometry) + "\"");
    }
    read_material(root, file);
    file.radius = root.number("radius", Range::positive).value_or(file.radius);
    file.velocity = root.number("velocity", Range::positive).value_or(file.velocity);

    if (root.has("restitution") && root.has("damping"))
        root.fail("damping", "give either restitution or damping, not both");
    if (auto e = root.number("restitution", Range::unit_closed)) {
        if (*e == 0.0)
            root.fail("restitution",
                      "must be > 0: e = 0 is critical damping (lambda^2 = 4 k m), where the "
                      "overlap never returns to zero and the contact never ends");
        file.restitution = *e;
    }
    file.damping = root.number("damping", Range::non_negative);
    if (!file.damping && !file.restitution) file.restitution = 0.9;
    read_stiffness(root, file);
    // From a largest overlap, k follows in closed form only when the damping ratio is
    // known beforehand, as it is from e (zeta(e)); a given lambda makes zeta depend on k.
    if (file.damping && file.stiffness_from == StiffnessFrom::overlap)
        root.fail("damping", "needs stiffness = { material = true } or { value = k }: with the "
                             "stiffness from a largest overlap (the default) give restitution");
    read_integration(root, file);
    return file;
}

ContactFile load_contact_file(const std::string& path) {
    return parse_contact_file(read_text_file(path), path);
}

} // namespace choc
