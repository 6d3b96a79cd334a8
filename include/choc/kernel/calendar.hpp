// The event calendar: one entry per particle holding the time of that particle's
// earliest scheduled event. The engine needs four operations, the interface every
// calendar here provides (so they can be swapped and benchmarked):
//     Calendar(n)            n entries, all at +infinity
//     set(i, time)           move entry i to a new time (earlier or later)
//     top() / top_time()     the particle with the earliest entry (ties: lowest index)
//     shift(dt)              subtract dt from every entry (time-origin rebasing)
#pragma once

#include "choc/kernel/bucket_calendar.hpp"
#include "choc/kernel/huge_pages.hpp"

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <vector>

namespace choc {

template <class C>
concept Calendar = requires(C c, const C cc, std::uint32_t i, double t) {
    C(std::size_t{});
    c.set(i, t);
    { cc.top() } -> std::convertible_to<std::uint32_t>;
    { cc.top_time() } -> std::convertible_to<double>;
    c.shift(t);
};

struct CalendarEntry {
    double time;
    std::uint32_t particle;
};

// A 4-ary min-heap over particle indices with each particle's position in the heap kept
// alongside: no handles, no list nodes, one flat array of (time, particle). The heap of
// BlockCalendar (the engine's default); bench/bench_calendar and bench/bench_engine compare
// both with the Boost heaps of tests/support/boost_calendars.hpp.
class IndexedCalendar {
  public:
    explicit IndexedCalendar(std::size_t n)
        : storage_(n + 3), heap_(storage_.data() + 3), size_(n), where_(n) {
        for (std::uint32_t i = 0; i < n; ++i) {
            heap_[i] = {std::numeric_limits<double>::infinity(), i};
            where_[i] = i;
        }
    }
    void set(std::uint32_t i, double time) {
        const std::uint32_t k = where_[i];
        const double old = heap_[k].time;
        heap_[k].time = time;
        if (earlier(heap_[k], CalendarEntry{old, i}))
            sift_up(k);
        else
            sift_down(k);
    }
    std::uint32_t top() const { return heap_[0].particle; }
    double top_time() const { return heap_[0].time; }
    double time(std::uint32_t i) const { return heap_[where_[i]].time; }
    std::size_t bytes() const { return held_bytes(storage_) + held_bytes(where_); }
    // The top's children: the next entry after the top is among them (or the top itself,
    // moved later, or another entry moved earlier). An engine may prefetch their data.
    // Their particles are written to `out` (room for four); returns how many.
    std::size_t upcoming(std::uint32_t* out) const {
        const std::size_t n = std::min<std::size_t>(size_, arity + 1);
        for (std::size_t k = 1; k < n; ++k) out[k - 1] = heap_[k].particle;
        return n > 0 ? n - 1 : 0;
    }
    void shift(double dt) {
        // The same amount off every key keeps the order, except that rounding can turn
        // two close times into a tie that the index then breaks the other way: restore
        // the heap bottom-up, O(n).
        for (std::size_t k = 0; k < size_; ++k) heap_[k].time -= dt;
        for (auto k = static_cast<std::uint32_t>(size_ / arity + 1); k-- > 0;)
            if (k < size_) sift_down(k);
    }

  private:
    static constexpr std::uint32_t arity = 4;
    static bool earlier(const CalendarEntry& a, const CalendarEntry& b) {
        return a.time < b.time || (a.time == b.time && a.particle < b.particle);
    }
    void place(std::uint32_t k, const CalendarEntry& e) {
        heap_[k] = e;
        where_[e.particle] = k;
    }
    void sift_up(std::uint32_t k) {
        const CalendarEntry e = heap_[k];
        while (k > 0) {
            const std::uint32_t parent = (k - 1) / arity;
            if (!earlier(e, heap_[parent])) break;
            place(k, heap_[parent]);
            k = parent;
        }
        place(k, e);
    }
    void sift_down(std::uint32_t k) {
        const CalendarEntry e = heap_[k];
        const auto n = static_cast<std::uint32_t>(size_);
        while (true) {
            const std::uint32_t first = arity * k + 1;
            if (first >= n) break;
            std::uint32_t best = first;
            const std::uint32_t last = std::min(first + arity, n);
            for (std::uint32_t c = first + 1; c < last; ++c)
                if (earlier(heap_[c], heap_[best])) best = c;
            if (!earlier(heap_[best], e)) break;
            place(k, heap_[best]);
            k = best;
        }
        place(k, e);
    }

    // The children of node k are 4k+1 .. 4k+4; with the array starting three entries
    // into a 64-byte line (FastVector storage starts on a line) they are stored at
    // line-aligned slots 4(k+1) .. 4(k+1)+3, so a level of sift_down reads one cache line,
    // not two.
    FastVector<CalendarEntry> storage_;
    CalendarEntry* heap_;
    std::size_t size_;
    std::vector<std::uint32_t> where_; // heap position of each particle
};

// Entries in blocks of eight consecutive particles (one 64-byte line of times) and a
// calendar over the blocks (Blocks: IndexedCalendar or BucketCalendar), keyed by each
// block's earliest entry. That calendar is eight times smaller, so it stays in cache for larger
// systems; and a new time that neither beats its block's earliest entry nor replaces it (the usual
// case for a collision partner) costs one cache line and nothing in the blocks' calendar.
//
// Order: the blocks' calendar breaks ties between blocks by block index, and a block's earliest
// entry is its lowest index among equal times; blocks are consecutive ranges of particles, so
// together this is (time, particle) order, as for every calendar here.
template <class Blocks>
class BlockedCalendar {
  public:
    explicit BlockedCalendar(std::size_t n)
        : time_((n + width - 1) / width * width, std::numeric_limits<double>::infinity()),
          earliest_(time_.size() / width), heap_(earliest_.size()) {
        for (std::uint32_t b = 0; b < earliest_.size(); ++b)
            earliest_[b] = {std::numeric_limits<double>::infinity(), b * width};
    }
    void set(std::uint32_t i, double time) {
        const std::uint32_t b = i / width;
        time_[i] = time;
        CalendarEntry& e = earliest_[b];
        if (i == e.particle) {
            // moved later: another entry may now be the earliest
            e = time > e.time ? earliest_in(b) : CalendarEntry{time, i};
            heap_.set(b, e.time);
        } else if (time < e.time || (time == e.time && i < e.particle)) {
            e = {time, i};
            heap_.set(b, time);
        }
    }
    // The engine may ask for the memory that set(i, ...) will touch ahead of time.
    [[gnu::always_inline]] void prefetch(std::uint32_t i) const {
        __builtin_prefetch(&time_[i]); // inlined: GCC would delete a call to it as pure
        __builtin_prefetch(&earliest_[i / width]);
    }
    std::size_t bytes() const { return held_bytes(time_) + held_bytes(earliest_) + heap_.bytes(); }
    std::uint32_t top() const { return earliest_[heap_.top()].particle; }
    double top_time() const { return heap_.top_time(); }
    double time(std::uint32_t i) const { return time_[i]; }
    // The earliest entries of the blocks next in line (IndexedCalendar::upcoming).
    std::size_t upcoming(std::uint32_t* out) const {
        const std::size_t n = heap_.upcoming(out);
        for (std::size_t k = 0; k < n; ++k) out[k] = earliest_[out[k]].particle;
        return n;
    }
    void shift(double dt) {
        // Subtracting keeps each block's order except for new ties: find every block's
        // earliest entry again.
        for (double& t : time_) t -= dt; // the padding stays at +infinity
        heap_.shift(dt);
        for (std::uint32_t b = 0; b < earliest_.size(); ++b) {
            earliest_[b] = earliest_in(b);
            heap_.set(b, earliest_[b].time);
        }
    }

  private:
    static constexpr std::uint32_t width = 8; // doubles per 64-byte line

    // The earliest entry of block b (the lowest index among equal times).
    CalendarEntry earliest_in(std::uint32_t b) const {
        std::uint32_t e = b * width;
        for (std::uint32_t k = e + 1; k < (b + 1) * width; ++k)
            if (time_[k] < time_[e]) e = k;
        return {time_[e], e};
    }

    // Every particle's time, +infinity in the padding past n (after every real entry of
    // its block); FastVector storage starts on a cache line, so a block is one line.
    FastVector<double> time_;
    std::vector<CalendarEntry> earliest_; // per block: its earliest entry (as in the heap)
    Blocks heap_;                         // blocks, keyed by their earliest time
};

using BlockCalendar = BlockedCalendar<IndexedCalendar>;
using BucketBlockCalendar = BlockedCalendar<BucketCalendar>;

// The calendar the engine uses unless told otherwise.
using DefaultCalendar = BucketBlockCalendar;

} // namespace choc
