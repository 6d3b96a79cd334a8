// output.crossing: how many particles have crossed a plane (the neck of an hourglass, the
// orifice of a silo) since the measured phase began, counted in the direction of the
// plane's normal: the discharge of granular flow.
//
// The count is the change in the number of centres in front of the plane (the side its
// normal points to): N_front(t) - N_front(start). That is exactly the number of crossings
// forwards minus the number backwards, wherever on the plane they happen, because a centre
// changes sides only by crossing it: the plane may not be tilted along a periodic axis (the
// config refuses it), where a centre could leave through the box's face and come back on
// the other side. It costs one pass over the particles per sample, and nothing per event.
#pragma once

#include "choc/kernel/archive.hpp"
#include "choc/kernel/vec.hpp"

#include <cstdint>

namespace choc {

template <int D>
class CrossingCount {
  public:
    CrossingCount(const Vec<D>& point, const Vec<D>& unit_normal)
        : normal_(unit_normal), offset_(dot(point, unit_normal)) {}

    // The centres in front of the plane now; `visit(f)` calls f(x) for every centre.
    template <class Visit>
    std::int64_t in_front(Visit&& visit) const {
        std::int64_t n = 0;
        visit([&](const Vec<D>& x) { n += dot(x, normal_) > offset_; });
        return n;
    }
    void start(std::int64_t in_front_now) { start_ = in_front_now; }
    // The net crossings forwards since the start.
    std::int64_t crossed(std::int64_t in_front_now) const { return in_front_now - start_; }

    // Its checkpoint (archive.hpp): the count at the start (the plane is the config's).
    template <class Archive>
    void fields(Archive& ar) {
        ar(start_);
    }

  private:
    Vec<D> normal_;
    double offset_ = 0.0;
    std::int64_t start_ = 0;
};

} // namespace choc
