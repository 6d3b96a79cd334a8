// The time-stepping methods of `choc contact` applied to the spring-dashpot overlap equation
// (spring_dashpot.hpp), each as DEM codes use them, and how the numerical contact end and
// restitution are read off their steps (docs/PHYSICS.md, "Soft-sphere contact").
#pragma once

#include "choc/contact/spring_dashpot.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace choc {

enum class Method {
    euler,          // explicit Euler
    rk2,            // Runge-Kutta 2: the midpoint method
    rk3,            // Runge-Kutta 3: Kutta's third-order method
    verlet,         // leap-frog as velocity Verlet, damping with the half-step velocity
    verlet_implicit // velocity Verlet, damping implicit in the new velocity
};

struct MethodInfo {
    Method method;
    std::string_view name;        // as written in the contact file and printed
    std::string_view description; // one line, for the table
    int order;                    // theoretical order with damping
    int order_undamped;           // theoretical order at lambda = 0 (e = 1)
    int forces_per_step;          // acceleration evaluations per step
    int forces_at_start;          // evaluations before the first step
};

// In the order of the enum.
const std::vector<MethodInfo>& methods();
const MethodInfo& info(Method method);
std::optional<Method> method_named(std::string_view name);

struct ContactState {
    double time = 0.0, overlap = 0.0, rate = 0.0; // t, delta, delta'
};

// The steps of `method` with step dt from (0, 0, v0) up to and including the first step
// whose overlap is negative (the contact has ended within it). Throws std::runtime_error
// if that takes more than `max_steps` steps.
std::vector<ContactState> integrate_contact(const SpringDashpot& model, Method method, double dt,
                                            std::size_t max_steps);

// The end of the contact within the last step: the root of the cubic Hermite interpolant
// of (delta, delta') between the last two states, and its slope there.
struct ContactEnd {
    double time = 0.0, rate = 0.0; // rate < 0: the rebound velocity is -rate
};
ContactEnd contact_end(const std::vector<ContactState>& steps);

} // namespace choc
