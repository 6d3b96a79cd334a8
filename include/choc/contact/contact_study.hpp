// `choc contact`: the spring-dashpot model a contact file describes, its closed forms, and
// each method integrated at dt = t_c / n against the exact solution (docs/PHYSICS.md,
// "Soft-sphere contact"; the outputs in docs/REFERENCE.md).
#pragma once

#include "choc/contact/contact_file.hpp"
#include "choc/contact/integrators.hpp"
#include "choc/contact/spring_dashpot.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace choc {

// One method at one step size.
struct ContactRun {
    int steps_per_contact = 0; // n
    double dt = 0.0;           // t_c / n
    std::size_t steps = 0;     // steps taken, up to the first with delta < 0
    std::size_t force_evaluations = 0;
    double max_error_overlap = 0.0; // max over the steps of |delta_n - delta(t_n)|
    double max_error_rate = 0.0;    // max over the steps of |v_n - delta'(t_n)|
    double contact_time = 0.0;      // the root of the Hermite interpolant of the last step
    double restitution = 0.0;       // -delta' there / v0
};

struct MethodStudy {
    Method method;
    std::vector<ContactRun> runs; // by increasing n
    // Least-squares slopes of log(error) against log(dt) over `fit_steps` (none with fewer
    // than two points).
    std::vector<int> fit_steps;
    std::optional<double> order_overlap, order_rate;
    // The steps at n = plot_steps, for --plot: every plot_stride-th one (and the last), at
    // most max_plot_points of them.
    std::vector<ContactState> plot_steps;
    std::size_t plot_stride = 1;
};

// The most steps the delta(t) panel draws. Its plotting area is 400 px wide, so 2000
// points are five per pixel column: a finer sampling of a curve this smooth (at large n
// every method follows delta(t) to within a fraction of a pixel) draws the same picture.
// Unbounded, plot_steps = 1000000 made Cairo's stroke of four 1M-segment paths peak at
// 4 GB (issue 41).
constexpr std::size_t max_plot_points = 2000;

// Every stride-th step of `steps` and the last one: at most max_plot_points, the stride
// the smallest that keeps them within it (1: all).
std::size_t plot_stride(std::size_t steps);
std::vector<ContactState> thin_steps(const std::vector<ContactState>& steps, std::size_t stride);

struct ContactReport {
    ContactFile file;
    double sphere_mass = 0.0;      // rho 4/3 pi R^3
    double effective_radius = 0.0; // R against a wall, R/2 for two equal spheres
    SpringDashpot model;           // m = the reduced mass, k, lambda, v0
    std::vector<MethodStudy> methods;
};

// The asymptotic range of the order fit: the step counts n >= fit_min_steps, or the two
// largest n if fewer than two are.
constexpr int fit_min_steps = 20;
std::vector<int> fit_range(const std::vector<int>& steps_per_contact);

// Least-squares slope of log y against log x.
std::optional<double> log_slope(const std::vector<double>& x, const std::vector<double>& y);

// The model of the file (throws InputError naming `damping` when lambda^2 >= 4 k m).
SpringDashpot contact_model(const ContactFile& file);

// One method at dt = t_c / n, against the exact solution.
ContactRun run_method(const SpringDashpot& model, Method method, int steps_per_contact);

ContactReport study_contact(const ContactFile& file);

} // namespace choc
