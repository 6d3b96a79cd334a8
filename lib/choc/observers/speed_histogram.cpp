#include "choc/observers/speed_histogram.hpp"

#include "choc/observers/maxwell_boltzmann.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace choc {
namespace {

// One histogram of `values` (one per particle) over [low, high] in clamp(sqrt(N) / 2, 10,
// 100) bins, with `reference(x, m)` the density expected for a particle of mass m at x.
std::string histogram_csv(const SpeedSample& s, const std::vector<std::string>& names,
                          const std::string& variable, const std::vector<double>& values,
                          double low, double high,
                          const std::function<double(double, double)>& reference) {
    const std::size_t n = values.size(), species = s.mass.size();
    const bool per_species = species > 1;
    std::string out = fmt::format("{0}_low,{0}_high,{0},density,maxwell_boltzmann", variable);
    if (per_species)
        for (const auto& name : names)
            out += fmt::format(",density_{0},maxwell_boltzmann_{0}", name);
    out += "\n";
    if (n == 0 || !(high > low)) return out; // nothing moving: no bins

    const std::size_t bins = histogram_bins(n);
    const double width = (high - low) / static_cast<double>(bins);
    // counts[b * (species + 1)]: all particles; then one entry per species
    std::vector<double> counts(bins * (species + 1), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto b =
            std::min(bins - 1, static_cast<std::size_t>(std::max(0.0, (values[i] - low) / width)));
        counts[b * (species + 1)] += 1.0;
        counts[b * (species + 1) + 1 + s.species[i]] += 1.0;
    }
    for (std::size_t b = 0; b < bins; ++b) {
        const double from = low + static_cast<double>(b) * width, to = from + width;
        const double mid = 0.5 * (from + to);
        double mixed = 0.0;
        for (std::size_t k = 0; k < species; ++k)
            mixed += static_cast<double>(s.count[k]) / static_cast<double>(n) *
                     reference(mid, s.mass[k]);
        out += fmt::format("{},{},{},{},{}", from, to, mid,
                           counts[b * (species + 1)] / (static_cast<double>(n) * width), mixed);
        if (per_species)
            for (std::size_t k = 0; k < species; ++k)
                out += fmt::format(",{},{}",
                                   s.count[k] ? counts[b * (species + 1) + 1 + k] /
                                                    (static_cast<double>(s.count[k]) * width)
                                              : 0.0,
                                   reference(mid, s.mass[k]));
        out += "\n";
    }
    return out;
}

} // namespace

std::size_t histogram_bins(std::size_t n) {
    return static_cast<std::size_t>(
        std::clamp(std::sqrt(static_cast<double>(n)) / 2.0, 10.0, 100.0));
}

std::string speed_histogram_csv(const SpeedSample& s, const std::vector<std::string>& names) {
    double top = 0.0;
    for (double v : s.speed) top = std::max(top, v);
    const double kT = s.speed.empty() ? 0.0 : sample_temperature(s);
    return histogram_csv(s, names, "speed", s.speed, 0.0, top, [&](double v, double m) {
        return maxwell_speed_density(s.dimension, v, kT, m);
    });
}

std::string component_histogram_csv(const SpeedSample& s, const std::vector<std::string>& names) {
    double top = 0.0;
    for (double v : s.vx) top = std::max(top, std::abs(v));
    const double kT = s.speed.empty() ? 0.0 : sample_temperature(s);
    return histogram_csv(s, names, "vx", s.vx, -top, top,
                         [&](double v, double m) { return maxwell_component_density(v, kT, m); });
}

} // namespace choc
