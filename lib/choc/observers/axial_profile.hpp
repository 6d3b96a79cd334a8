// Profiles along one axis of the box: number density, packing fraction, temperature and
// mean velocity in slabs [x_k, x_k + w) across the whole edge, averaged over samples taken
// every `step` (regular samples of a trajectory average it over time without bias). With
// them, cumulative scalars the caller gives at each sample (the heat each wall has given
// the gas), so that a driven experiment's flux and gradient come from the same blocks.
//
// Each slab keeps sums over samples: particles N, mass M, occupied volume V, momentum P
// and twice the kinetic energy K = sum m v^2. The temperature is that of the slab's own
// frame, moving at u = P / M (k_B = 1):
//     T = (K - |P|^2 / M) / (d N),
// so a streaming flow (a shear profile) does not count as heat.
//
// Errors come from blocks of samples: the sums are recorded at block edges on a doubling
// grid (block_edges.hpp), so a run of any length has between `blocks` and 2 `blocks`.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/vec.hpp"
#include "choc/observers/block_edges.hpp"
#include "choc/observers/standard_error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace choc {

template <int D>
class AxialProfile {
  public:
    static constexpr std::size_t blocks = 16;

    struct Slab {
        double count = 0.0, mass = 0.0, volume = 0.0, energy = 0.0; // energy: sum m v^2
        Vec<D> momentum{};

        void add(const Slab& s, double sign) {
            count += sign * s.count;
            mass += sign * s.mass;
            volume += sign * s.volume;
            energy += sign * s.energy;
            momentum += s.momentum * sign;
        }
    };
    // The sums since the start: over the slabs and the samples (each stands for `step` of
    // time), and the caller's scalars as they were at the last sample.
    struct Sums {
        std::vector<Slab> slabs;
        std::vector<double> scalars;
        double samples = 0.0;

        // this - other, for the sums over a stretch between two records
        Sums minus(const Sums& other) const {
            Sums d = *this;
            for (std::size_t k = 0; k < slabs.size(); ++k) d.slabs[k].add(other.slabs[k], -1.0);
            for (std::size_t k = 0; k < scalars.size(); ++k) d.scalars[k] -= other.scalars[k];
            d.samples -= other.samples;
            return d;
        }

        template <class Archive>
        void fields(Archive& ar) {
            ar(slabs, scalars, samples);
        }
    };

    // `slabs` slabs across [0, length) of `axis`, whose cross-section (the product of the
    // other edges) is `area`; sampled every `step` from t0 (the first sample at t0 itself);
    // `scalars`: the caller's cumulative values at t0.
    AxialProfile(int axis, double length, double area, std::size_t slabs,
                 std::vector<double> scalars, double step, double t0)
        : axis_(axis), length_(length), area_(area), step_(step), t0_(t0) {
        total_.slabs.assign(slabs, Slab{});
        total_.scalars = std::move(scalars);
        edges_.push_back(total_);
    }

    int axis() const { return axis_; }
    std::size_t size() const { return total_.slabs.size(); }
    double width() const { return length_ / static_cast<double>(size()); }
    double centre(std::size_t k) const { return (static_cast<double>(k) + 0.5) * width(); }
    double slab_volume() const { return width() * area_; }
    double area() const { return area_; }
    double step() const { return step_; }
    double next_time() const { return t0_ + total_.samples * step_; }
    const Sums& total() const { return total_; }

    // A sample now: `visit(f)` calls f(x, v, mass, volume) for every particle; `scalars`
    // holds the caller's cumulative values now.
    template <class Visit>
    void sample(Visit&& visit, const std::vector<double>& scalars) {
        const double w = width();
        const auto last = static_cast<double>(size() - 1);
        visit([&](const Vec<D>& x, const Vec<D>& v, double m, double volume) {
            // folded into [0, length): a periodic axis's position may sit just past an edge
            double s = std::floor(x[axis_] / w);
            s = std::fmin(std::fmax(s, 0.0), last);
            Slab& slab = total_.slabs[static_cast<std::size_t>(s)];
            slab.count += 1.0;
            slab.mass += m;
            slab.volume += volume;
            slab.energy += m * norm2(v);
            slab.momentum += v * m;
        });
        total_.scalars = scalars;
        total_.samples += 1.0;
        if (++in_block_ == block_samples_) close_block();
    }

    // The complete blocks' sums, oldest first (between `blocks` and 2 `blocks` once the
    // run is long enough; fewer before).
    std::vector<Sums> block_sums() const {
        std::vector<Sums> b;
        for (std::size_t k = 1; k < edges_.size(); ++k) b.push_back(edges_[k].minus(edges_[k - 1]));
        return b;
    }
    // The sums of the complete blocks together (what the errors are about).
    Sums blocked() const { return edges_.back().minus(edges_.front()); }

    // What a slab holds on average over `s`: number density, packing fraction, temperature
    // (absent in an empty slab) and mean velocity.
    struct Row {
        double density = 0.0, packing = 0.0;
        std::optional<double> temperature;
        Vec<D> velocity{};
    };
    Row row(const Sums& s, std::size_t k) const {
        const Slab& slab = s.slabs[k];
        Row r;
        if (s.samples <= 0.0) return r;
        r.density = slab.count / (s.samples * slab_volume());
        r.packing = slab.volume / (s.samples * slab_volume());
        if (slab.count > 0.0 && slab.mass > 0.0) {
            r.velocity = slab.momentum * (1.0 / slab.mass);
            r.temperature = (slab.energy - norm2(slab.momentum) / slab.mass) / (D * slab.count);
        }
        return r;
    }

    // The sampling clock and the sums; the axis and the slabs are the run's (checked).
    // The CSV of output.profile: one row per slab (its centre x), every number in shortest
    // round-trip form (fmt's "{}"), the averages over every sample and the standard errors of the
    // complete blocks' averages (empty before two blocks, or where a block's slab was empty); the
    // temperature empty in an empty slab.
    std::string csv() const {
        static constexpr const char* names[] = {"x", "y", "z"};
        std::string out = "x,density,density_err,packing_fraction,temperature,temperature_err";
        for (int a = 0; a < D; ++a) out += fmt::format(",u_{0},u_{0}_err", names[a]);
        out += "\n";
        const auto blocks = block_sums();
        for (std::size_t k = 0; k < size(); ++k) {
            const Row r = row(total_, k);
            std::vector<Row> per_block;
            for (const auto& b : blocks) per_block.push_back(row(b, k));
            const auto err = [&](auto value) -> std::string {
                std::vector<double> v;
                for (const Row& b : per_block) {
                    const std::optional<double> x = value(b);
                    if (!x) return "";
                    v.push_back(*x);
                }
                const auto e = weighted_mean(v, std::vector<double>(v.size(), 1.0)).error;
                return e ? fmt::format("{}", *e) : "";
            };
            out +=
                fmt::format("{},{},{},{},", centre(k), r.density,
                            err([](const Row& b) { return std::optional(b.density); }), r.packing);
            out += r.temperature ? fmt::format("{}", *r.temperature) : "";
            out += "," + err([](const Row& b) { return b.temperature; });
            for (int a = 0; a < D; ++a)
                out += fmt::format(",{},{}", r.velocity[a], err([a](const Row& b) {
                                       return b.temperature ? std::optional(b.velocity[a])
                                                            : std::nullopt;
                                   }));
            out += "\n";
        }
        return out;
    }

    // Its checkpoint (archive.hpp): the clock and blocks, the sums at each block edge (their
    // count first), then the sums since the start. A reader must have as many slabs and
    // scalars as the saved profile (the axis and the slabs' places are the config's).
    template <class Archive>
    void fields(Archive& ar) {
        const std::size_t slabs = total_.slabs.size(), scalars = total_.scalars.size();
        const auto fits = [&](const Sums& s) {
            if (s.slabs.size() != slabs || s.scalars.size() != scalars)
                throw ArchiveError("the profile's slabs do not match the run's");
        };
        auto n = std::uint64_t{edges_.size()};
        ar(step_, t0_, block_samples_, in_block_, n);
        if constexpr (Archive::loading) {
            if (n == 0 || n > 2 * blocks + 1 || block_samples_ == 0)
                throw ArchiveError("the profile's blocks are damaged");
            edges_.assign(n, Sums{});
        }
        for (Sums& s : edges_) {
            ar(s);
            if constexpr (Archive::loading) fits(s);
        }
        ar(total_);
        if constexpr (Archive::loading) fits(total_);
    }

  private:
    void close_block() {
        in_block_ = 0;
        if (add_block_edge(edges_, total_, blocks)) block_samples_ *= 2;
    }

    int axis_ = 0;
    double length_ = 1.0, area_ = 1.0, step_ = 1.0, t0_ = 0.0;
    Sums total_;
    std::vector<Sums> edges_; // the sums at each block edge, the first at the start
    std::uint64_t block_samples_ = 1, in_block_ = 0;
};

} // namespace choc
