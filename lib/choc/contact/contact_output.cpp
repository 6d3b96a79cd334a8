// The table and the JSON of `choc contact`.
#include "choc/contact/contact_output.hpp"
#include "choc/io/text_table.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

namespace choc {
namespace {

std::string rounded(double x, int digits = 6) {
    return fmt::format("{:.{}g}", x, digits);
}

std::string order_text(const std::optional<double>& p) {
    return p ? fmt::format("{:.2f}", *p) : "-";
}

std::string stiffness_origin(const ContactFile& f) {
    switch (f.stiffness_from) {
    case StiffnessFrom::overlap:
        return "from a largest overlap of " + rounded(f.stiffness_value) + " R";
    case StiffnessFrom::material:
        return "from the material, E R* / (3 (1 - nu))";
    case StiffnessFrom::value:
        break;
    }
    return "given";
}

std::string steps_list(const std::vector<int>& steps) {
    std::string text;
    for (int n : steps) text += (text.empty() ? "" : ", ") + std::to_string(n);
    return text;
}

} // namespace

std::string contact_table(const ContactReport& r) {
    const ContactFile& f = r.file;
    const SpringDashpot& m = r.model;
    const bool pair = f.geometry == ContactGeometry::pair;
    std::string text = fmt::format(
        "{}: {}, {} (E = {} GPa, nu = {}, density = {} kg/m^3), R = {} m, v0 = {} m/s\n", f.source,
        pair ? "two equal spheres" : "a sphere on a wall", f.material,
        rounded(f.youngs_modulus / 1e9), rounded(f.poisson_ratio), rounded(f.density),
        rounded(f.radius), rounded(f.velocity));
    text += fmt::format("mass m* = {} kg{}, R* = {} m, stiffness k = {} N/m ({}), damping lambda = "
                        "{} kg/s ({})\n",
                        rounded(m.mass), pair ? " (m/2)" : "", rounded(r.effective_radius),
                        rounded(m.stiffness), stiffness_origin(f), rounded(m.damping),
                        f.restitution ? "from e = " + rounded(*f.restitution) : "given");
    text += fmt::format("omega = sqrt(k/m) = {} 1/s, a = lambda/2m = {} 1/s, s = sqrt(omega^2 - "
                        "a^2) = {} 1/s, zeta = a/omega = {}\n",
                        rounded(m.omega0()), rounded(m.decay()), rounded(m.frequency()),
                        rounded(m.damping_ratio()));
    text += fmt::format("contact time pi/s = {} s, largest overlap {} m ({} R) at t = {} s, "
                        "restitution exp(-a pi/s) = {}\n\n",
                        rounded(m.contact_time()), rounded(m.max_overlap()),
                        rounded(m.max_overlap() / f.radius), rounded(m.max_overlap_time()),
                        rounded(m.restitution(), 10));

    std::vector<std::vector<std::string>> rows = {{"method", "n", "dt [s]", "forces",
                                                   "max|d err| [m]", "/d_max", "max|v err| [m/s]",
                                                   "/v0", "restitution", "t_end/t_c"}};
    for (const MethodStudy& s : r.methods)
        for (const ContactRun& run : s.runs)
            rows.push_back(
                {std::string(info(s.method).name), std::to_string(run.steps_per_contact),
                 rounded(run.dt, 4), std::to_string(run.force_evaluations),
                 rounded(run.max_error_overlap, 3),
                 rounded(run.max_error_overlap / m.max_overlap(), 3),
                 rounded(run.max_error_rate, 3), rounded(run.max_error_rate / m.velocity, 3),
                 rounded(run.restitution, 6), rounded(run.contact_time / m.contact_time(), 6)});
    text += aligned(rows) + "\n";

    std::vector<std::vector<std::string>> orders = {
        {"method", "order of d", "order of v", "theory", "scheme"}};
    for (const MethodStudy& s : r.methods) {
        const MethodInfo& i = info(s.method);
        const int theory = m.damping > 0 ? i.order : i.order_undamped;
        orders.push_back({std::string(i.name), order_text(s.order_overlap),
                          order_text(s.order_rate), std::to_string(theory),
                          std::string(i.description)});
    }
    const std::vector<int> fit = r.methods.empty() ? std::vector<int>{} : r.methods[0].fit_steps;
    text += "measured order: least-squares slope of log(max error) against log(dt) over n = " +
            (fit.empty() ? std::string("(fewer than two n)") : steps_list(fit)) + "\n";
    text += aligned(orders);
    return text;
}

std::string contact_json(const ContactReport& r) {
    using Json = nlohmann::ordered_json;
    const ContactFile& f = r.file;
    const SpringDashpot& m = r.model;
    const auto optional = [](const std::optional<double>& x) { return x ? Json(*x) : Json(); };
    Json input = {{"source", f.source},
                  {"geometry", f.geometry == ContactGeometry::pair ? "pair" : "wall"},
                  {"material", f.material},
                  {"youngs_modulus", f.youngs_modulus},
                  {"poisson_ratio", f.poisson_ratio},
                  {"density", f.density},
                  {"radius", f.radius},
                  {"velocity", f.velocity},
                  {"restitution", optional(f.restitution)},
                  {"damping", optional(f.damping)},
                  {"stiffness_from", f.stiffness_from == StiffnessFrom::overlap    ? "overlap"
                                     : f.stiffness_from == StiffnessFrom::material ? "material"
                                                                                   : "value"},
                  {"plot_steps", f.plot_steps}};
    if (f.stiffness_from == StiffnessFrom::overlap) input["overlap"] = f.stiffness_value;
    Json model = {{"sphere_mass", r.sphere_mass},
                  {"mass", m.mass},
                  {"effective_radius", r.effective_radius},
                  {"stiffness", m.stiffness},
                  {"damping", m.damping},
                  {"omega", m.omega0()},
                  {"decay", m.decay()},
                  {"frequency", m.frequency()},
                  {"damping_ratio", m.damping_ratio()},
                  {"contact_time", m.contact_time()},
                  {"max_overlap_time", m.max_overlap_time()},
                  {"max_overlap", m.max_overlap()},
                  {"restitution", m.restitution()}};
    Json methods_json = Json::array();
    for (const MethodStudy& s : r.methods) {
        const MethodInfo& i = info(s.method);
        Json runs = Json::array();
        for (const ContactRun& run : s.runs)
            runs.push_back({{"steps_per_contact", run.steps_per_contact},
                            {"dt", run.dt},
                            {"steps", run.steps},
                            {"force_evaluations", run.force_evaluations},
                            {"max_error_overlap", run.max_error_overlap},
                            {"relative_error_overlap", run.max_error_overlap / m.max_overlap()},
                            {"max_error_velocity", run.max_error_rate},
                            {"relative_error_velocity", run.max_error_rate / m.velocity},
                            {"restitution", run.restitution},
                            {"contact_time", run.contact_time}});
        methods_json.push_back({{"name", i.name},
                                {"description", i.description},
                                {"theoretical_order", m.damping > 0 ? i.order : i.order_undamped},
                                {"order",
                                 {{"overlap", optional(s.order_overlap)},
                                  {"velocity", optional(s.order_rate)},
                                  {"fit_steps", s.fit_steps}}},
                                {"runs", runs}});
    }
    const Json out = {{"input", input}, {"model", model}, {"methods", methods_json}};
    return out.dump(2);
}

} // namespace choc
