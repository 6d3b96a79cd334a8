// The Boost.Heap calendars, kept for comparison only: test_calendar and test_engine check
// them against the reference calendar and the engine's own, bench_calendar and
// bench_engine time them. The engine's calendars are in choc/kernel/calendar.hpp.
#pragma once

#include <boost/heap/d_ary_heap.hpp>
#include <boost/heap/pairing_heap.hpp>

#include "choc/kernel/calendar.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace choc {

// Heap order: the *largest* element by this comparison is on top, so "less" means later.
struct LaterFirst {
    bool operator()(const CalendarEntry& a, const CalendarEntry& b) const {
        return a.time > b.time || (a.time == b.time && a.particle > b.particle);
    }
};

// A Boost.Heap with mutable handles: set() updates the entry in place.
template <class Heap>
class BoostCalendar {
  public:
    explicit BoostCalendar(std::size_t n) {
        handles_.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            handles_.push_back(heap_.push(
                {std::numeric_limits<double>::infinity(), static_cast<std::uint32_t>(i)}));
    }
    void set(std::uint32_t i, double time) {
        const double old = (*handles_[i]).time;
        if (time < old)
            heap_.increase(handles_[i], {time, i}); // earlier = higher priority
        else if (time > old)
            heap_.decrease(handles_[i], {time, i});
    }
    std::uint32_t top() const { return heap_.top().particle; }
    double top_time() const { return heap_.top().time; }
    double time(std::uint32_t i) const { return (*handles_[i]).time; }
    void shift(double dt) {
        // Subtracting the same amount from every key keeps the order up to ties that
        // rounding creates; update() lets the heap re-place each entry where needed.
        for (std::uint32_t i = 0; i < handles_.size(); ++i) {
            const double t = (*handles_[i]).time;
            heap_.update(handles_[i], {t - dt, i});
        }
    }

  private:
    Heap heap_;
    std::vector<typename Heap::handle_type> handles_;
};

using DaryCalendar = BoostCalendar<
    boost::heap::d_ary_heap<CalendarEntry, boost::heap::arity<4>, boost::heap::mutable_<true>,
                            boost::heap::compare<LaterFirst>>>;
using PairingCalendar =
    BoostCalendar<boost::heap::pairing_heap<CalendarEntry, boost::heap::compare<LaterFirst>>>;

} // namespace choc
