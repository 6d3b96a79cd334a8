#include "choc/observers/velocity_distribution.hpp"

#include "choc/kernel/ball_volume.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/observers/ks_pvalue.hpp"
#include "choc/observers/maxwell_boltzmann.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace choc {
namespace {

double ball(int d, double r) {
    return d == 3 ? ball_volume<3>(r) : ball_volume<2>(r);
}

// Kolmogorov–Smirnov distance of the sorted sample w_1 <= ... <= w_N from the CDF F:
//     D_N = max_i max(i / N - F(w_i), F(w_i) - (i - 1) / N).
template <class Cdf>
double ks_distance(std::vector<double> w, Cdf cdf) {
    std::sort(w.begin(), w.end());
    const auto n = static_cast<double>(w.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const double f = cdf(w[i]);
        worst =
            std::max({worst, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
    }
    return worst;
}

// Boltzmann's H = integral f ln f d^d w of one species' velocity distribution f,
// normalised to 1, estimated from a histogram in spherical shells of the speed w:
// shell b = [b h, (b + 1) h) holds the fraction p_b of the species and has the volume
// V_b = ball(d, (b + 1) h) - ball(d, b h) in velocity space, so f = p_b / V_b there
// (the velocity distribution is taken isotropic) and
//     H = sum_b p_b ln(p_b / V_b) - (M - 1) / (2 N_s),
// the last term the Miller–Madow correction of the plug-in bias (M occupied shells).
double species_h(int d, const std::vector<double>& w, double h) {
    std::map<long, std::uint64_t> shells;
    for (double x : w) ++shells[static_cast<long>(std::floor(x / h))];
    const auto n = static_cast<double>(w.size());
    double sum = 0.0;
    for (const auto& [b, count] : shells) {
        const double p = static_cast<double>(count) / n;
        const double volume = ball(d, (b + 1) * h) - ball(d, b * h);
        sum += p * std::log(p / volume);
    }
    return sum - (static_cast<double>(shells.size()) - 1.0) / (2.0 * n);
}

} // namespace

double sample_temperature(const SpeedSample& s) {
    double sum2 = 0.0;
    for (std::size_t i = 0; i < s.speed.size(); ++i)
        sum2 += s.mass[s.species[i]] * s.speed[i] * s.speed[i];
    // (sum2 = 2 K; 2 (sum2 / 2) is sum2 to the bit)
    return s.speed.empty()
               ? std::numeric_limits<double>::quiet_NaN()
               : temperature(0.5 * sum2, static_cast<double>(s.speed.size()), s.dimension);
}

double component_ks_distance(const SpeedSample& s, double kT) {
    if (s.vx.empty() || !(kT > 0.0)) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> w(s.vx.size());
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = s.vx[i] * std::sqrt(s.mass[s.species[i]]);
    const double scale = std::sqrt(2.0 * kT);
    return ks_distance(std::move(w), [&](double x) { return 0.5 * std::erfc(-x / scale); });
}

VelocityStats velocity_stats(const SpeedSample& s) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const int d = s.dimension;
    // Mass-scaled speeds, pooled and per species.
    std::vector<double> w(s.speed.size());
    std::vector<std::vector<double>> by_species(s.mass.size());
    double sum2 = 0.0, sum4 = 0.0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        w[i] = s.speed[i] * std::sqrt(s.mass[s.species[i]]);
        by_species[s.species[i]].push_back(w[i]);
        sum2 += w[i] * w[i];
        sum4 += w[i] * w[i] * w[i] * w[i];
    }
    const auto n = static_cast<double>(w.size());
    if (w.empty() || !(sum2 > 0.0)) return {nan, nan, nan, nan, nan};

    VelocityStats r;
    // sum2 = sum m v^2 = 2 K (2 (sum2 / 2) is sum2 to the bit)
    r.temperature = temperature(0.5 * sum2, n, d);
    r.kurtosis = n * sum4 / (sum2 * sum2);
    r.ks_distance =
        ks_distance(w, [&](double x) { return maxwell_speed_cdf(d, x, r.temperature, 1.0); });
    r.ks_pvalue = ks_pvalue(r.ks_distance, w.size());
    // H of a mixture is sum_s x_s H_s (mole fractions x_s). The shells are h_bin_width
    // sqrt(kT) wide with the overall kT, which an elastic run conserves: the binning is the
    // same at every sample, so the H of one run can be compared over time.
    const double h = h_bin_width * std::sqrt(r.temperature);
    r.H = 0.0;
    for (const auto& ws : by_species)
        if (!ws.empty()) r.H += static_cast<double>(ws.size()) / n * species_h(d, ws, h);
    return r;
}

} // namespace choc
