#include "choc/observers/displacement.hpp"

#include <algorithm>
#include <cmath>

namespace choc {

std::optional<Estimate> diffusion_fit(int d, const std::vector<double>& times,
                                      const std::vector<std::vector<double>>& msd,
                                      const std::vector<double>& group_sizes,
                                      std::size_t first_group, std::size_t last_group) {
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

    std::vector<double> slopes, weights;
    for (std::size_t g = first_group; g < std::min(last_group, group_sizes.size()); ++g) {
        if (!(group_sizes[g] > 0.0)) continue; // no particle of the species in it
        double ybar = 0.0, sty = 0.0;
        for (std::size_t i = first; i < times.size(); ++i) ybar += msd[i][g];
        ybar /= static_cast<double>(k);
        for (std::size_t i = first; i < times.size(); ++i)
            sty += (times[i] - tbar) * (msd[i][g] - ybar);
        // MSD = 2 d D t
        slopes.push_back(sty / stt / (2.0 * d));
        weights.push_back(group_sizes[g]);
    }
    if (slopes.empty()) return std::nullopt;
    return weighted_mean(slopes, weights);
}

std::optional<Estimate> DisplacementSamples::diffusion() const {
    const std::size_t species = group_size_.size() / groups_per_species;
    if (species <= 1) return diffusion_fit(dimension_, times_, msd_, group_size_);
    double total = 0.0;
    for (const double size : group_size_) total += size;
    Estimate all{0.0, 0.0};
    for (std::size_t s = 0; s < species; ++s) {
        double count = 0.0;
        for (std::size_t g = s * groups_per_species; g < (s + 1) * groups_per_species; ++g)
            count += group_size_[g];
        if (count == 0.0) continue;
        const auto own = diffusion(s);
        if (!own) return std::nullopt;
        const double w = count / total;
        all.mean += w * own->mean;
        if (all.error && own->error)
            *all.error += w * w * *own->error * *own->error;
        else
            all.error.reset();
    }
    if (all.error) all.error = std::sqrt(*all.error);
    return all;
}

void DisplacementSamples::add(double t, const std::vector<double>& r2,
                              const std::vector<std::uint32_t>& group_of, double largest_step) {
    std::vector<double> group(group_size_.size(), 0.0);
    double total = 0.0;
    for (std::size_t i = 0; i < r2.size(); ++i) {
        group[group_of[i]] += r2[i];
        total += r2[i];
    }
    for (std::size_t g = 0; g < group.size(); ++g)
        if (group_size_[g] > 0.0) group[g] /= group_size_[g];
    times_.push_back(t);
    msd_.push_back(std::move(group));
    last_msd_ = total / static_cast<double>(r2.size());
    largest_step_ = std::max(largest_step_, largest_step);
}

std::vector<double> DisplacementSamples::msd_samples() const {
    std::vector<double> out;
    double n = 0.0;
    for (double size : group_size_) n += size;
    for (const auto& groups : msd_) {
        double total = 0.0;
        for (std::size_t g = 0; g < groups.size(); ++g) total += groups[g] * group_size_[g];
        out.push_back(total / n);
    }
    return out;
}

// The samples' count goes first, then each sample's groups: msd_ is a vector of vectors,
// which the archive does not take whole.
template <class Archive>
void DisplacementSamples::fields(Archive& ar) {
    auto samples = std::uint64_t{msd_.size()};
    ar(times_, samples);
    if constexpr (Archive::loading) {
        if (samples != times_.size()) throw ArchiveError("the state's displacement is damaged");
        msd_.resize(samples);
    }
    for (auto& m : msd_) {
        ar(m);
        if constexpr (Archive::loading)
            if (m.size() != group_size_.size())
                throw ArchiveError("the state's displacement is damaged");
    }
    ar(last_msd_, largest_step_);
}
template void DisplacementSamples::fields(ArchiveWriter&);
template void DisplacementSamples::fields(ArchiveReader&);

} // namespace choc
