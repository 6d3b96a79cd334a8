// The closed forms of the spring-dashpot contact that are not one-liners.
#include "choc/contact/spring_dashpot.hpp"

namespace choc {

double damping_ratio_for(double e) {
    const double log_e = std::log(e); // <= 0
    return -log_e / std::sqrt(std::numbers::pi * std::numbers::pi + log_e * log_e);
}

double damping_for(double e, double mass, double stiffness) {
    return 2.0 * damping_ratio_for(e) * std::sqrt(mass * stiffness);
}

// With a = zeta omega and s = omega sqrt(1 - zeta^2), the largest overlap is at
// s t_m = arccos(zeta) (where sin(s t_m) = sqrt(1 - zeta^2)), so
//   delta_max = (v0/s) e^{-a t_m} sin(s t_m)
//             = (v0/omega) exp(-zeta arccos(zeta) / sqrt(1 - zeta^2)).
double overlap_factor(double zeta) {
    if (zeta == 0.0) return 1.0;
    return std::exp(-zeta * std::acos(zeta) / std::sqrt((1.0 - zeta) * (1.0 + zeta)));
}

double stiffness_for_overlap(double max_overlap, double mass, double velocity, double zeta) {
    const double omega = velocity * overlap_factor(zeta) / max_overlap;
    return mass * omega * omega;
}

double material_stiffness(double youngs_modulus, double poisson_ratio, double radius) {
    return youngs_modulus * radius / (3.0 * (1.0 - poisson_ratio));
}

} // namespace choc
