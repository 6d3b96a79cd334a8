// `choc contact`: the spring-dashpot closed forms (the exact solution satisfies the ODE,
// e <-> lambda, the overlap-fraction stiffness), the measured orders of the methods, the
// contact end and restitution they give, and the contact file's refusals naming the key.
#include <doctest/doctest.h>

#include <choc/contact/contact_file.hpp>
#include <choc/contact/contact_study.hpp>
#include <choc/errors.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace test_contact {

using namespace choc;

namespace {

// The documents' example: steel (8000 kg/m^3), R = 5 mm, v0 = 0.1 m/s, largest overlap 1 % R.
constexpr double R = 5e-3, v0 = 0.1, density = 8000.0;

SpringDashpot example(double e, double overlap_fraction = 0.01) {
    SpringDashpot m;
    m.mass = density * 4.0 / 3.0 * M_PI * R * R * R;
    m.velocity = v0;
    m.stiffness = stiffness_for_overlap(overlap_fraction * R, m.mass, v0, damping_ratio_for(e));
    m.damping = damping_for(e, m.mass, m.stiffness);
    return m;
}

// The least-squares order of the largest overlap (or velocity) error over these n.
double order(const SpringDashpot& model, Method method, const std::vector<int>& steps,
             bool velocity = false) {
    std::vector<double> dt, error;
    for (int n : steps) {
        const ContactRun run = run_method(model, method, n);
        dt.push_back(run.dt);
        error.push_back(velocity ? run.max_error_rate : run.max_error_overlap);
    }
    return log_slope(dt, error).value();
}

// |x - y| <= rel |y| (doctest's Approx adds an absolute scale of 1, too loose for metres).
bool close(double x, double y, double rel) {
    return std::abs(x - y) <= rel * std::abs(y);
}

std::string error_of(const std::string& text) {
    try {
        study_contact(parse_contact_file(text, "c.toml"));
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

const std::vector<int> default_steps = {5, 10, 15, 20, 30, 40, 50};
const std::vector<int> asymptotic = {20, 30, 40, 50}; // fit_range(default_steps)

} // namespace

TEST_CASE("contact: the exact solution satisfies m delta'' + lambda delta' + k delta = 0") {
    for (double e : {0.1, 0.5, 0.9, 1.0}) {
        CAPTURE(e);
        const SpringDashpot m = example(e);
        const double tc = m.contact_time();
        // The scale of each term: k delta_max = m omega^2 delta_max.
        const double scale = m.stiffness * m.max_overlap();
        const double h = tc * 1e-3;
        for (int i = 1; i < 20; ++i) {
            const double t = tc * i / 20.0;
            // By substitution of the closed-form derivatives (rounding only).
            const double exact = m.mass * m.overlap_acceleration(t) +
                                 m.damping * m.overlap_rate(t) + m.stiffness * m.overlap(t);
            CHECK(std::abs(exact) < 1e-12 * scale);
            // By central finite differences of delta(t) alone, which check the derivatives
            // too: truncation (s h)^2 / 12 ~ 1e-6 of the terms.
            const double d1 = (m.overlap(t + h) - m.overlap(t - h)) / (2 * h);
            const double d2 = (m.overlap(t + h) - 2 * m.overlap(t) + m.overlap(t - h)) / (h * h);
            CHECK(std::abs(m.mass * d2 + m.damping * d1 + m.stiffness * m.overlap(t)) <
                  1e-5 * scale);
            CHECK(std::abs(d1 - m.overlap_rate(t)) < 1e-5 * v0);
        }
        // Initial conditions, the end of contact and the rebound.
        CHECK(m.overlap(0.0) == 0.0);
        CHECK(close(m.overlap_rate(0.0), v0, 1e-14));
        CHECK(std::abs(m.overlap(tc)) < 1e-14 * m.max_overlap());
        CHECK(close(-m.overlap_rate(tc) / v0, e, 1e-12));
        CHECK(std::abs(m.overlap_rate(m.max_overlap_time())) < 1e-13 * v0);
    }
}

TEST_CASE("contact: restitution and damping round-trip, and zeta depends on e alone") {
    for (double e : {0.01, 0.3, 0.7, 0.9, 0.999, 1.0}) {
        CAPTURE(e);
        for (double k : {1.0, 1e4, 1e9}) {
            SpringDashpot m;
            m.mass = 2e-3;
            m.stiffness = k;
            m.damping = damping_for(e, m.mass, k);
            CHECK(close(m.damping_ratio(), damping_ratio_for(e), 1e-13));
            CHECK(close(m.restitution(), e, 1e-12));
            // lambda -> e -> lambda
            CHECK(close(damping_for(m.restitution(), m.mass, k), m.damping, 1e-10));
        }
    }
    CHECK(damping_ratio_for(1.0) == 0.0);
    CHECK(damping_ratio_for(1e-300) < 1.0); // e -> 0 is critical damping, zeta -> 1
}

TEST_CASE("contact: the overlap-fraction stiffness gives exactly that largest overlap") {
    for (double e : {0.05, 0.5, 0.9, 1.0})
        for (double f : {1e-3, 0.01, 0.1}) {
            CAPTURE(e);
            CAPTURE(f);
            const SpringDashpot m = example(e, f);
            CHECK(close(m.max_overlap(), f * R, 1e-12));
            // Sampled: no later or earlier point exceeds it.
            double largest = 0.0;
            for (int i = 0; i <= 10000; ++i)
                largest = std::max(largest, m.overlap(m.contact_time() * i / 10000.0));
            CHECK(largest <= f * R * (1 + 1e-12));
            CHECK(close(largest, f * R, 1e-6));
        }
    // Undamped: delta_max = v0 / omega, g(0) = 1.
    CHECK(overlap_factor(0.0) == 1.0);
}

TEST_CASE("contact: the measured orders match the theory over the asymptotic range") {
    CHECK(fit_range(default_steps) == asymptotic);
    CHECK(fit_range({5, 10}) == std::vector<int>{5, 10});
    CHECK(fit_range({7}).empty());
    // Tolerance +-0.15 on the slope: the error of an order-p method is
    // C dt^p (1 + O(omega dt)), and omega dt = pi / (n sqrt(1 - zeta^2)) is 0.06 to 0.16 over
    // n = 20 ... 50, which moves a two-decade slope by about that much. The measured
    // slopes (docs/PHYSICS.md) are within 0.13 of the theory.
    const double tolerance = 0.15;
    const SpringDashpot damped = example(0.9), elastic = example(1.0);
    for (bool velocity : {false, true}) {
        CAPTURE(velocity);
        CHECK(std::abs(order(damped, Method::euler, asymptotic, velocity) - 1) < tolerance);
        CHECK(std::abs(order(damped, Method::rk2, asymptotic, velocity) - 2) < tolerance);
        CHECK(std::abs(order(damped, Method::rk3, asymptotic, velocity) - 3) < tolerance);
        // Velocity Verlet at e = 1 (no damping): second order.
        CHECK(std::abs(order(elastic, Method::verlet, asymptotic, velocity) - 2) < tolerance);
        CHECK(std::abs(order(elastic, Method::euler, asymptotic, velocity) - 1) < tolerance);
        // Implicit damping in v_{n+1} keeps the scheme symmetric: second order with damping.
        CHECK(std::abs(order(damped, Method::verlet_implicit, asymptotic, velocity) - 2) <
              tolerance);
        // Damping with the half-step velocity: a local error (lambda/m) dt^2 A / 4 in v,
        // so first order once the dt term outgrows the second-order one (Verlet's own
        // omega^2 dt^2 term); at e = 0.3 (zeta = 0.36) that is so from n ~ 10, and over
        // n = 100 ... 800 the slope is 1.
        CHECK(std::abs(order(example(0.3), Method::verlet, {100, 200, 400, 800}, velocity) - 1) <
              tolerance);
        // At e = 0.9 (zeta = 0.034) both terms are of the same size over n = 20 ... 50:
        // between the two orders.
        const double mixed = order(damped, Method::verlet, asymptotic, velocity);
        CHECK(mixed > 1.0);
        CHECK(mixed < 1.6);
    }
}

TEST_CASE("contact: the contact end, restitution and cost of each method") {
    const SpringDashpot m = example(0.9);
    for (const MethodInfo& method : methods()) {
        CAPTURE(method.name);
        const ContactRun coarse = run_method(m, method.method, 10);
        const ContactRun fine = run_method(m, method.method, 1000);
        // Converge to the model's contact time and restitution.
        CHECK(std::abs(fine.contact_time / m.contact_time() - 1) < 2e-3);
        CHECK(std::abs(fine.restitution - 0.9) < std::abs(coarse.restitution - 0.9));
        // Euler, first order, is the farthest: about 4.5 / n off.
        CHECK(std::abs(fine.restitution - 0.9) < 1e-2);
        // Steps: up to and including the first with delta < 0, so about n.
        CHECK(fine.steps >= 990);
        CHECK(fine.steps <= 1010);
        CHECK(fine.force_evaluations ==
              fine.steps * static_cast<std::size_t>(method.forces_per_step) +
                  static_cast<std::size_t>(method.forces_at_start));
    }
    // RK3 with the Hermite end: contact time and restitution within 1e-7 at n = 1000
    // (a linear interpolation of the last step would leave ~1e-6 in e).
    const ContactRun rk3 = run_method(m, Method::rk3, 1000);
    CHECK(close(rk3.restitution, 0.9, 1e-7));
    CHECK(close(rk3.contact_time, m.contact_time(), 1e-7));
}

TEST_CASE("contact: --plot draws at most max_plot_points steps, the first and last among them") {
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{2}, max_plot_points, max_plot_points + 1,
          2 * max_plot_points - 1, 2 * max_plot_points, std::size_t{1000002}}) {
        CAPTURE(n);
        std::vector<ContactState> steps(n);
        for (std::size_t i = 0; i < n; ++i) steps[i].time = static_cast<double>(i);
        const std::size_t stride = plot_stride(n);
        const auto kept = thin_steps(steps, stride);
        CHECK(kept.size() <= max_plot_points);
        CHECK(kept.front().time == 0.0);
        CHECK(kept.back().time == static_cast<double>(n - 1));
        // every step while they fit; else the least stride that fits (one less would not)
        if (n <= max_plot_points) CHECK(kept.size() == n);
        if (stride > 1) CHECK(thin_steps(steps, stride - 1).size() > max_plot_points);
        for (std::size_t k = 1; k + 1 < kept.size(); ++k)
            CHECK(kept[k].time == static_cast<double>(k * stride));
    }
}

TEST_CASE("contact file: defaults are the documents' example") {
    const ContactFile f = parse_contact_file("", "c.toml");
    CHECK(f.geometry == ContactGeometry::wall);
    CHECK(f.material == "steel");
    CHECK(f.density == 8000.0);
    CHECK(f.radius == 5e-3);
    CHECK(f.velocity == 0.1);
    CHECK(f.restitution == 0.9);
    CHECK(f.stiffness_from == StiffnessFrom::overlap);
    CHECK(f.stiffness_value == 0.01);
    CHECK(f.steps_per_contact == default_steps);
    const ContactReport r = study_contact(f);
    CHECK(close(r.model.max_overlap(), 0.01 * R, 1e-12));
    CHECK(close(r.model.restitution(), 0.9, 1e-12));
    CHECK(r.methods.size() == 4);

    // A pair: reduced mass m/2, effective radius R/2 in the material stiffness.
    const ContactReport pair = study_contact(
        parse_contact_file("geometry = \"pair\"\nstiffness = { material = true }\n", "c.toml"));
    CHECK(close(pair.model.mass, 0.5 * r.sphere_mass, 1e-15));
    CHECK(close(pair.model.stiffness, 200e9 * 0.5 * R / (3 * (1 - 0.3)), 1e-15));
    // A custom material and a direct damping.
    const ContactFile custom = parse_contact_file(
        "damping = 0.01\nstiffness = { value = 1e4 }\n[material]\nyoungs_modulus = 1e9\n"
        "poisson_ratio = 0.2\ndensity = 1000\n",
        "c.toml");
    CHECK(custom.material == "custom");
    CHECK(study_contact(custom).model.damping == 0.01);
}

TEST_CASE("contact file: bad input names the key") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"colour = 1\n", "c.toml: colour: unknown key"},
        {"geometry = \"table\"\n", "c.toml: geometry:"},
        {"radius = -1.0\n", "c.toml: radius: must be > 0"},
        {"velocity = 0\n", "c.toml: velocity:"},
        {"restitution = 0\n", "c.toml: restitution: must be > 0"},
        {"restitution = 1.5\n", "c.toml: restitution:"},
        {"restitution = 0.5\ndamping = 1.0\n", "c.toml: damping: give either"},
        {"damping = 1.0\n", "c.toml: damping: needs stiffness"},
        // Critical damping 2 sqrt(k m) = 2 sqrt(1e4 * 4.19e-3) = 12.9 kg/s.
        {"damping = 20.0\nstiffness = { value = 1e4 }\n", "c.toml: damping: overdamped"},
        {"stiffness = { overlap = 0.01, value = 1e4 }\n", "c.toml: stiffness: give exactly one"},
        {"stiffness = { overlap = 1.5 }\n", "c.toml: stiffness.overlap:"},
        {"stiffness = { material = false }\n", "c.toml: stiffness.material: must be true"},
        {"stiffness = { spring = 1 }\n", "c.toml: stiffness.spring: unknown key"},
        {"[material]\npreset = \"unobtainium\"\n", "c.toml: material.preset: unknown material"},
        {"[material]\nyoungs_modulus = 1e9\n", "c.toml: material.preset: required unless"},
        {"[material]\npreset = \"glass\"\npoisson_ratio = 0.6\n", "material.poisson_ratio:"},
        {"[material]\npreset = \"glass\"\ndensity = 0\n", "c.toml: material.density:"},
        {"[integration]\nsteps_per_contact = [1, 10]\n",
         "c.toml: integration.steps_per_contact[0]: must be within [2, 1000000]"},
        {"[integration]\nsteps_per_contact = [10, 10]\n", "integration.steps_per_contact[1]"},
        {"[integration]\nsteps_per_contact = [10.5]\n", "integration.steps_per_contact[0]"},
        {"[integration]\nsteps_per_contact = []\n", "integration.steps_per_contact:"},
        {"[integration]\nmethods = [\"rk4\"]\n", "c.toml: integration.methods[0]: unknown method"},
        {"[integration]\nplot_steps = 1\n", "c.toml: integration.plot_steps:"},
        {"[integration]\nstep = 1\n", "c.toml: integration.step: unknown key"},
    };
    for (const auto& [text, expected] : cases) {
        CAPTURE(text);
        const std::string message = error_of(text);
        CHECK(message.find(expected) != std::string::npos);
        CHECK(message.find('\n') == std::string::npos);
    }
}

} // namespace test_contact
