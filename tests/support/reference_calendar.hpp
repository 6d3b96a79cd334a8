// The slow, obviously right calendar: a sorted set of (time, particle). Tests compare
// every fast calendar against it on random schedules.
#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

namespace choc {

class ReferenceCalendar {
  public:
    explicit ReferenceCalendar(std::size_t n) : time_(n, std::numeric_limits<double>::infinity()) {
        for (std::size_t i = 0; i < n; ++i)
            order_.insert({time_[i], static_cast<std::uint32_t>(i)});
    }
    void set(std::uint32_t i, double time) {
        order_.erase({time_[i], i});
        time_[i] = time;
        order_.insert({time, i});
    }
    std::uint32_t top() const { return order_.begin()->second; }
    double top_time() const { return order_.begin()->first; }
    double time(std::uint32_t i) const { return time_[i]; }
    void shift(double dt) {
        std::set<std::pair<double, std::uint32_t>> shifted;
        for (std::uint32_t i = 0; i < time_.size(); ++i) shifted.insert({time_[i] -= dt, i});
        order_.swap(shifted);
    }

  private:
    std::vector<double> time_;
    std::set<std::pair<double, std::uint32_t>> order_;
};

} // namespace choc
