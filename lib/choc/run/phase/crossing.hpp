// output.crossing: the net count of particles through a plane over the measured phase
// (observers/crossing_count.hpp). Never due on its own: the time series reads it at its rows
// (phase/rows.hpp), the summary at the end ("crossing").
#pragma once

#include "choc/observers/crossing_count.hpp"
#include "choc/run/phase/observer.hpp"

#include <cstdint>
#include <memory>
#include <optional>

namespace choc {

template <int D>
class CrossingObserver final : public ObserverFields<CrossingObserver<D>, D> {
  public:
    static std::unique_ptr<CrossingObserver> make(const PhaseSetup<D>& setup) {
        if (!setup.config.crossing) return nullptr;
        return std::unique_ptr<CrossingObserver>(new CrossingObserver(setup));
    }

    const char* name() const override { return "output.crossing"; }
    double next_time() const override { return never; }
    void sample(PhaseStop<D>&) override {}
    template <class Archive>
    void fields(Archive& ar) {
        ar(count_);
    }
    void summarise(Summary& s, const SummaryContext<D>&) const override {
        const auto crossed = this->crossed();
        s.crossing = CrossingSummary{
            crossed, s.sim_time > 0
                         ? std::optional<double>(static_cast<double>(crossed) / s.sim_time)
                         : std::nullopt};
    }

    // The net crossings of the plane since the phase began, now.
    std::int64_t crossed() const { return count_.crossed(in_front()); }

  private:
    explicit CrossingObserver(const PhaseSetup<D>& setup)
        : engine_(setup.engine),
          count_(vec(setup.config.crossing->point), vec(setup.config.crossing->normal)) {
        count_.start(in_front());
    }
    template <class A>
    static Vec<D> vec(const A& from) {
        Vec<D> v;
        for (int a = 0; a < D; ++a) v[a] = from[static_cast<std::size_t>(a)];
        return v;
    }
    std::int64_t in_front() const {
        return count_.in_front([&](auto&& f) {
            engine_.visit(engine_.time(), [&](std::uint32_t, const auto& p) { f(p.x); });
        });
    }

    const EngineView<D>& engine_;
    CrossingCount<D> count_;
};

} // namespace choc
