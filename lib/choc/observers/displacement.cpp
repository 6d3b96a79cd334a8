#include "choc/observers/displacement.hpp"

namespace choc {

std::optional<Estimate> diffusion_fit(int d, const std::vector<double>& times,
                                      const std::vector<std::vector<double>>& msd,
                                      const std::vector<double>& group_sizes) {
    if (times.empty()) return std::nullopt;
    const double from = 0.5 * times.back();
    std::size_t first = 0;
    while (first < times.size() && times[first] < from) ++first;
    const std::size_t k = times.size() - first;
    if (k < 3) return std::nullopt;

    // Least squares y = a + s t: s = sum (t - tbar)(y - ybar) / sum (t - tbar)^2.
    double tbar = 0.0;
    for (std::size_t i = first; i < times.size(); ++i) tbar += times[i];
    tbar /= static_cast<double>(k);
    double stt = 0.0;
    for (std::size_t i = first; i < times.size(); ++i) stt += (times[i] - tbar) * (times[i] - tbar);
    if (!(stt > 0.0)) return std::nullopt;

    std::vector<double> slopes(group_sizes.size());
    for (std::size_t g = 0; g < group_sizes.size(); ++g) {
        double ybar = 0.0, sty = 0.0;
        for (std::size_t i = first; i < times.size(); ++i) ybar += msd[i][g];
        ybar /= static_cast<double>(k);
        for (std::size_t i = first; i < times.size(); ++i)
            sty += (times[i] - tbar) * (msd[i][g] - ybar);
        // MSD = 2 d D t
        slopes[g] = sty / stt / (2.0 * d);
    }
    return weighted_mean(slopes, group_sizes);
}

} // namespace choc
