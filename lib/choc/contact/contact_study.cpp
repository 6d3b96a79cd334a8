// The model from the file, then every method at every n against the exact solution.
#include "choc/contact/contact_study.hpp"

#include "choc/errors.hpp"
#include "choc/message_text.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace choc {

std::vector<int> fit_range(const std::vector<int>& steps_per_contact) {
    std::vector<int> sorted = steps_per_contact;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> fit;
    for (int n : sorted)
        if (n >= fit_min_steps) fit.push_back(n);
    if (fit.size() < 2)
        fit.assign(sorted.end() - std::min<std::ptrdiff_t>(2, std::ssize(sorted)), sorted.end());
    if (fit.size() < 2) fit.clear();
    return fit;
}

std::optional<double> log_slope(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() < 2 || x.size() != y.size()) return std::nullopt;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        // An error of exactly 0 (or a non-positive one) has no logarithm: no slope.
        if (!(x[i] > 0) || !(y[i] > 0)) return std::nullopt;
        mx += std::log(x[i]);
        my += std::log(y[i]);
    }
    mx /= static_cast<double>(x.size());
    my /= static_cast<double>(x.size());
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double dx = std::log(x[i]) - mx;
        sxy += dx * (std::log(y[i]) - my);
        sxx += dx * dx;
    }
    return sxx > 0 ? std::optional<double>(sxy / sxx) : std::nullopt;
}

SpringDashpot contact_model(const ContactFile& file) {
    const double R = file.radius;
    const double sphere_mass = file.density * 4.0 / 3.0 * std::numbers::pi * R * R * R;
    const bool pair = file.geometry == ContactGeometry::pair;
    SpringDashpot model;
    // Two equal spheres: m* = m1 m2 / (m1 + m2) = m/2, and the contact of two spheres of
    // radius R is that of one sphere of radius R* = R1 R2 / (R1 + R2) = R/2 on a flat (the
    // effective radius of Hertz's theory); a wall is a sphere of infinite mass and radius.
    model.mass = pair ? 0.5 * sphere_mass : sphere_mass;
    const double effective_radius = pair ? 0.5 * R : R;
    model.velocity = file.velocity;
    const auto fail = [&](const std::string& key, const std::string& what) -> void {
        throw InputError(escaped(file.source) + ": " + key + ": " + what);
    };
    switch (file.stiffness_from) {
    case StiffnessFrom::material:
        model.stiffness =
            material_stiffness(file.youngs_modulus, file.poisson_ratio, effective_radius);
        break;
    case StiffnessFrom::value:
        model.stiffness = file.stiffness_value;
        break;
    case StiffnessFrom::overlap:
        // The largest overlap is a fraction of the sphere's radius R (for a pair too: the
        // overlap delta is the sum of both spheres' deformations).
        model.stiffness =
            stiffness_for_overlap(file.stiffness_value * R, model.mass, model.velocity,
                                  damping_ratio_for(*file.restitution));
        break;
    }
    if (!std::isfinite(model.stiffness) || !(model.stiffness > 0))
        fail("stiffness", "gives k = " + number_text(model.stiffness) + " N/m, not a finite k > 0");
    if (file.restitution) {
        model.damping = damping_for(*file.restitution, model.mass, model.stiffness);
    } else {
        model.damping = *file.damping;
        const double critical = 2.0 * std::sqrt(model.stiffness * model.mass);
        if (!(model.damping < critical))
            fail("damping",
                 "overdamped: lambda = " + number_text(model.damping) +
                     " kg/s is not below the critical damping 2 sqrt(k m) = " +
                     number_text(critical) +
                     " kg/s (lambda^2 >= 4 k m), so the overlap never returns to zero; give a "
                     "smaller damping or a restitution 0 < e <= 1");
    }
    return model;
}

ContactRun run_method(const SpringDashpot& model, Method method, int n) {
    ContactRun run;
    run.steps_per_contact = n;
    run.dt = model.contact_time() / n;
    // Every method here ends the contact within a few t_c at n >= 2 (even Euler, whose
    // amplitude grows by sqrt(1 + (omega dt)^2) per step, turns by a fixed angle per step);
    // 100 t_c is a bound that is never reached.
    const auto steps = integrate_contact(model, method, run.dt, 100 * static_cast<std::size_t>(n));
    run.steps = steps.size() - 1;
    run.force_evaluations = run.steps * static_cast<std::size_t>(info(method).forces_per_step) +
                            static_cast<std::size_t>(info(method).forces_at_start);
    for (const ContactState& s : steps) {
        run.max_error_overlap =
            std::max(run.max_error_overlap, std::abs(s.overlap - model.overlap(s.time)));
        run.max_error_rate =
            std::max(run.max_error_rate, std::abs(s.rate - model.overlap_rate(s.time)));
    }
    const ContactEnd end = contact_end(steps);
    run.contact_time = end.time;
    run.restitution = -end.rate / model.velocity;
    return run;
}

std::size_t plot_stride(std::size_t steps) {
    // indices 0, s, 2s, ... below steps - 1 and the last: ceil((steps - 1) / s) + 1 points
    if (steps <= max_plot_points) return 1;
    return (steps - 1 + max_plot_points - 2) / (max_plot_points - 1);
}

std::vector<ContactState> thin_steps(const std::vector<ContactState>& steps, std::size_t stride) {
    std::vector<ContactState> kept;
    for (std::size_t i = 0; i + 1 < steps.size(); i += stride) kept.push_back(steps[i]);
    if (!steps.empty()) kept.push_back(steps.back());
    return kept;
}

ContactReport study_contact(const ContactFile& file) {
    ContactReport report;
    report.file = file;
    report.sphere_mass =
        file.density * 4.0 / 3.0 * std::numbers::pi * file.radius * file.radius * file.radius;
    report.effective_radius =
        file.geometry == ContactGeometry::pair ? 0.5 * file.radius : file.radius;
    report.model = contact_model(file);
    const SpringDashpot& model = report.model;
    std::vector<int> steps = file.steps_per_contact;
    std::sort(steps.begin(), steps.end());
    for (Method method : file.methods) {
        MethodStudy study;
        study.method = method;
        for (int n : steps) study.runs.push_back(run_method(model, method, n));
        study.fit_steps = fit_range(steps);
        std::vector<double> dt, overlap, rate;
        for (const ContactRun& run : study.runs)
            if (std::find(study.fit_steps.begin(), study.fit_steps.end(), run.steps_per_contact) !=
                study.fit_steps.end()) {
                dt.push_back(run.dt);
                overlap.push_back(run.max_error_overlap);
                rate.push_back(run.max_error_rate);
            }
        study.order_overlap = log_slope(dt, overlap);
        study.order_rate = log_slope(dt, rate);
        const auto steps = integrate_contact(model, method, model.contact_time() / file.plot_steps,
                                             100 * static_cast<std::size_t>(file.plot_steps));
        study.plot_stride = plot_stride(steps.size());
        study.plot_steps = thin_steps(steps, study.plot_stride);
        report.methods.push_back(std::move(study));
    }
    return report;
}

} // namespace choc
