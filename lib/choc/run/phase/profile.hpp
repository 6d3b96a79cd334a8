// output.profile, and the slabs between thermal walls: density, packing fraction,
// temperature and mean velocity in slabs across one axis (observers/axial_profile.hpp),
// sampled every window_step with the walls' heat and momentum; Fourier's and Newton's laws
// between two thermal walls in the summary (summary_physics.hpp, gap_summaries).
#pragma once

#include "choc/kernel/ball_volume.hpp"
#include "choc/observers/axial_profile.hpp"
#include "choc/run/phase/observer.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace choc {

template <int D>
class ProfileObserver final : public ObserverFields<ProfileObserver<D>, D> {
  public:
    static std::unique_ptr<ProfileObserver> make(const PhaseSetup<D>& setup) {
        if (!setup.config.profile && !thermal_walls(setup.engine.box())) return nullptr;
        return std::unique_ptr<ProfileObserver>(new ProfileObserver(setup));
    }

    const char* name() const override { return "slab profile"; }
    double next_time() const override { return profile_ ? profile_->next_time() : never; }
    void sample(PhaseStop<D>& now) override {
        const auto& species = engine_.particles().table.species;
        profile_->sample(
            [&](auto&& f) {
                engine_.visit(now.time(), [&](std::uint32_t, const auto& p) {
                    const auto& s = species[p.species];
                    f(p.x, p.v, s.mass, ball_volume<D>(s.radius));
                });
            },
            wall_scalars());
    }
    // (it exists when the saved phase's particles moved; its step and origin replace those
    // of the one built to restore into)
    template <class Archive>
    void fields(Archive& ar) {
        optional_field(ar, profile_, [&] { return new_profile(1.0); });
    }
    void summarise(Summary& s, const SummaryContext<D>& c) const override {
        if (profile_) gap_summaries(s, c, *profile_);
    }

    // The profiles so far; absent when nothing moved at the start.
    const std::optional<AxialProfile<D>>& profile() const { return profile_; }
    // output.profile's CSV; its header alone when nothing moved at the start.
    std::string csv() const {
        if (profile_) return profile_->csv();
        const auto empty = AxialProfile<D>(0, 1.0, 1.0, 1, {}, 1.0, 0.0).csv();
        return empty.substr(0, empty.find('\n') + 1);
    }

    static bool thermal_walls(const Box<D>& box) {
        return std::any_of(box.walls.begin(), box.walls.end(),
                           [](const Wall<D>& w) { return w.thermal(); });
    }
    // The axis of the profile: output.profile.axis, else the axis of the first thermal wall
    // whose normal lies along one, else the first walled axis, else x.
    static int profile_axis(const Box<D>& box, const Config& config) {
        if (config.profile && config.profile->axis) return *config.profile->axis;
        for (const auto& w : box.walls)
            if (w.thermal())
                for (int a = 0; a < D; ++a)
                    if (std::abs(w.normal[a]) == 1.0) return a;
        for (int a = 0; a < D; ++a)
            if (!box.periodic[a]) return a;
        return 0;
    }

  private:
    explicit ProfileObserver(const PhaseSetup<D>& setup)
        : engine_(setup.engine), config_(setup.config), start_(setup.start) {
        if (setup.stepped()) profile_.emplace(new_profile(setup.step));
    }

    AxialProfile<D> new_profile(double step) const {
        const Box<D>& box = engine_.box();
        const int axis = profile_axis(box, config_);
        double area = 1.0;
        for (int a = 0; a < D; ++a)
            if (a != axis) area *= box.length[a];
        return AxialProfile<D>(axis, box.length[axis], area,
                               config_.profile ? config_.profile->slabs : default_slabs,
                               wall_scalars(), step, start_);
    }
    // The walls' heat, then their momentum (three per wall), given the gas so far.
    std::vector<double> wall_scalars() const {
        std::vector<double> s = engine_.tally().wall_heat;
        const auto& m = engine_.tally().wall_momentum;
        s.insert(s.end(), m.begin(), m.end());
        return s;
    }
    static constexpr std::size_t default_slabs = 20;

    const EngineView<D>& engine_;
    const Config& config_;
    double start_;
    std::optional<AxialProfile<D>> profile_;
};

} // namespace choc
