// One step of each method on y = (delta, v), y' = f(y) = (v, A(delta, v)) with
// A = -(k delta + lambda v) / m; then the contact end from the last step.
#include "choc/contact/integrators.hpp"

#include <stdexcept>

namespace choc {
namespace {

struct Slope {
    double overlap, rate; // (delta', v') = f(y)
};

const std::vector<MethodInfo> all = {
    {Method::euler, "euler", "explicit Euler", 1, 1, 1, 0},
    {Method::rk2, "rk2", "Runge-Kutta 2 (midpoint)", 2, 2, 2, 0},
    {Method::rk3, "rk3", "Runge-Kutta 3 (Kutta)", 3, 3, 3, 0},
    // The damping force at the new position is taken with the half-step velocity
    // v_{n+1/2} in place of v_{n+1}: an error (lambda/m) (h/2)^2 A per step in v, so the
    // method is first order when lambda != 0 and second order only at e = 1.
    {Method::verlet, "verlet", "leap-frog (velocity Verlet, damping at v_{n+1/2})", 1, 2, 1, 1},
    {Method::verlet_implicit, "verlet_implicit",
     "leap-frog (velocity Verlet, damping implicit in v_{n+1})", 2, 2, 1, 1},
};

} // namespace

const std::vector<MethodInfo>& methods() {
    return all;
}

const MethodInfo& info(Method method) {
    return all[static_cast<std::size_t>(method)];
}

std::optional<Method> method_named(std::string_view name) {
    for (const auto& m : all)
        if (m.name == name) return m.method;
    return std::nullopt;
}

std::vector<ContactState> integrate_contact(const SpringDashpot& model, Method method, double dt,
                                            std::size_t max_steps) {
    auto f = [&](double delta, double v) { return Slope{v, model.acceleration(delta, v)}; };
    const double h = dt, m = model.mass, k = model.stiffness, lambda = model.damping;
    std::vector<ContactState> steps{{0.0, 0.0, model.velocity}};
    double delta = 0.0, v = model.velocity;
    // Verlet carries the acceleration of the last step: one evaluation at the start.
    double acc = model.acceleration(delta, v);
    for (std::size_t n = 1; n <= max_steps; ++n) {
        switch (method) {
        case Method::euler: {
            // y_{n+1} = y_n + h f(y_n)
            const Slope k1 = f(delta, v);
            delta += h * k1.overlap;
            v += h * k1.rate;
            break;
        }
        case Method::rk2: {
            // Midpoint: k1 = f(y_n), k2 = f(y_n + h/2 k1), y_{n+1} = y_n + h k2.
            const Slope k1 = f(delta, v);
            const Slope k2 = f(delta + 0.5 * h * k1.overlap, v + 0.5 * h * k1.rate);
            delta += h * k2.overlap;
            v += h * k2.rate;
            break;
        }
        case Method::rk3: {
            // Kutta's third order: k1 = f(y_n), k2 = f(y_n + h/2 k1),
            // k3 = f(y_n - h k1 + 2h k2), y_{n+1} = y_n + h/6 (k1 + 4 k2 + k3).
            const Slope k1 = f(delta, v);
            const Slope k2 = f(delta + 0.5 * h * k1.overlap, v + 0.5 * h * k1.rate);
            const Slope k3 = f(delta - h * k1.overlap + 2.0 * h * k2.overlap,
                               v - h * k1.rate + 2.0 * h * k2.rate);
            delta += h / 6.0 * (k1.overlap + 4.0 * k2.overlap + k3.overlap);
            v += h / 6.0 * (k1.rate + 4.0 * k2.rate + k3.rate);
            break;
        }
        case Method::verlet: {
            // v_{n+1/2} = v_n + h/2 A_n; delta_{n+1} = delta_n + h v_{n+1/2};
            // A_{n+1} = A(delta_{n+1}, v_{n+1/2}); v_{n+1} = v_{n+1/2} + h/2 A_{n+1}.
            const double half = v + 0.5 * h * acc;
            delta += h * half;
            acc = model.acceleration(delta, half);
            v = half + 0.5 * h * acc;
            break;
        }
        case Method::verlet_implicit: {
            // As verlet, but A_{n+1} = A(delta_{n+1}, v_{n+1}): the update
            // v_{n+1} = v_{n+1/2} - h/2m (k delta_{n+1} + lambda v_{n+1}) is linear in v_{n+1},
            // v_{n+1} = (v_{n+1/2} - h k delta_{n+1} / 2m) / (1 + h lambda / 2m),
            // which keeps the scheme symmetric in time, hence second order, at one spring
            // evaluation per step.
            const double half = v + 0.5 * h * acc;
            delta += h * half;
            v = (half - 0.5 * h * k * delta / m) / (1.0 + 0.5 * h * lambda / m);
            acc = model.acceleration(delta, v);
            break;
        }
        }
        // t_n = n h, not a running sum, so that the comparison with the exact solution
        // carries no accumulated rounding of the time.
        steps.push_back({static_cast<double>(n) * h, delta, v});
        if (delta < 0.0) return steps;
    }
    throw std::runtime_error(std::string(info(method).name) + ": the contact did not end within " +
                             std::to_string(max_steps) + " steps");
}

ContactEnd contact_end(const std::vector<ContactState>& steps) {
    if (steps.size() < 2) throw std::logic_error("contact_end: fewer than two steps");
    const ContactState& p = steps[steps.size() - 2];
    const ContactState& q = steps.back();
    const double h = q.time - p.time;
    // Cubic Hermite on theta in [0, 1]:
    //   H(theta) = h00 delta_p + h10 h v_p + h01 delta_q + h11 h v_q,
    // exact for cubics, so its root and slope carry errors O(h^4) and O(h^3) beyond the
    // method's own: below those of every method here at the step sizes used (a linear
    // interpolation would add O(h^2) to the restitution of RK3).
    auto value = [&](double t) {
        const double t2 = t * t, t3 = t2 * t;
        return (2 * t3 - 3 * t2 + 1) * p.overlap + (t3 - 2 * t2 + t) * h * p.rate +
               (-2 * t3 + 3 * t2) * q.overlap + (t3 - t2) * h * q.rate;
    };
    auto slope = [&](double t) { // dH/dt / h: the velocity
        const double t2 = t * t;
        return ((6 * t2 - 6 * t) * p.overlap + (3 * t2 - 4 * t + 1) * h * p.rate +
                (-6 * t2 + 6 * t) * q.overlap + (3 * t2 - 2 * t) * h * q.rate) /
               h;
    };
    // Bisection keeps H(lo) >= 0 > H(hi); 60 halvings reach the rounding of theta.
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (value(mid) >= 0.0 ? lo : hi) = mid;
    }
    const double theta = 0.5 * (lo + hi);
    return {p.time + theta * h, slope(theta)};
}

} // namespace choc
