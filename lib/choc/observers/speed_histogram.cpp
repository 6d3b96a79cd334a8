#include "speed_histogram.hpp"

#include "maxwell_boltzmann.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace choc {

std::string speed_histogram_csv(const SpeedSample& s, const std::vector<std::string>& names) {
    const std::size_t n = s.speed.size(), species = s.mass.size();
    const bool per_species = species > 1;
    std::string out = "speed_low,speed_high,speed,density,maxwell_boltzmann";
    if (per_species)
        for (const auto& name : names)
            out += fmt::format(",density_{0},maxwell_boltzmann_{0}", name);
    out += "\n";
    if (n == 0) return out;

    double top = 0.0, sum2 = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        top = std::max(top, s.speed[i]);
        sum2 += s.mass[s.species[i]] * s.speed[i] * s.speed[i];
    }
    const double kT = sum2 / (s.dimension * static_cast<double>(n));
    if (!(top > 0.0)) return out; // everything at rest: no bins

    const auto bins =
        static_cast<std::size_t>(std::clamp(std::sqrt(static_cast<double>(n)) / 2.0, 10.0, 100.0));
    const double width = top / static_cast<double>(bins);
    // counts[b * (species + 1)]: all particles; then one entry per species
    std::vector<double> counts(bins * (species + 1), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto b = std::min(bins - 1, static_cast<std::size_t>(s.speed[i] / width));
        counts[b * (species + 1)] += 1.0;
        counts[b * (species + 1) + 1 + s.species[i]] += 1.0;
    }
    for (std::size_t b = 0; b < bins; ++b) {
        const double low = static_cast<double>(b) * width, high = low + width;
        const double mid = 0.5 * (low + high);
        double reference = 0.0;
        for (std::size_t k = 0; k < species; ++k)
            reference += static_cast<double>(s.count[k]) / static_cast<double>(n) *
                         maxwell_speed_density(s.dimension, mid, kT, s.mass[k]);
        out += fmt::format("{},{},{},{},{}", low, high, mid,
                           counts[b * (species + 1)] / (static_cast<double>(n) * width), reference);
        if (per_species)
            for (std::size_t k = 0; k < species; ++k)
                out += fmt::format(",{},{}",
                                   s.count[k] ? counts[b * (species + 1) + 1 + k] /
                                                    (static_cast<double>(s.count[k]) * width)
                                              : 0.0,
                                   maxwell_speed_density(s.dimension, mid, kT, s.mass[k]));
        out += "\n";
    }
    return out;
}

} // namespace choc
