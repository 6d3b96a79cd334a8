// A calendar queue (Brown 1988) in exact (time, index) order: what orders the blocks of
// eight particles in the engine's default calendar (BucketBlockCalendar, calendar.hpp).
// A 4-ary heap over the blocks spent 13 % (32k spheres) to 19 % (1M) of a run in the
// sift_down that follows every event (the top block's earliest time moves later: log4 of
// N / 8 levels of unpredictable comparisons, cache misses at 1M); here an entry that moves
// later is unlinked from one list and linked into another, O(1).
//
// Time is cut into buckets of a fixed width w from an origin t0: entry e is in bucket
//     k(e) = floor((t_e - t0) / w)        (one subtraction, one multiplication by 1 / w).
// Rounded subtraction and multiplication by a positive number are monotone, and so is
// floor: t_a <= t_b implies k(a) <= k(b). So every entry of a lower bucket is no later
// than every entry of a higher one, equal times share a bucket, and the earliest entry
// of all, ties to the lowest index, is the earliest of the lowest non-empty bucket. That
// bucket (with anything below it) is kept in a small binary heap in (time, index) order;
// the next B buckets are unsorted doubly linked lists in a ring of B slots (bucket k in
// slot k mod B); later entries wait in an overflow list, and +infinity in a list of its own.
// When the heap empties, the next non-empty slot is poured into it; when the ring is
// used up, the overflow is dealt out again from its earliest bucket on.
//
// The width: about two entries per bucket near the front, from the quarter quantile q of
// the entries' times past the earliest (m/4 of the m finite entries lie within q, so
// w = 8 q / m), re-estimated at every shift; when the ring is used up after n set() calls
// or having poured fewer entries than an eighth of its slots; and when the heap grows past
// 64 after n set() calls. A bad width costs time, never order.
#pragma once

#include "choc/kernel/huge_pages.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace choc {

class BucketCalendar {
  public:
    explicit BucketCalendar(std::size_t n) : node_(n), slots_(ring_size(n)) {
        heads_.assign(slots_ + 2, none);
        for (std::uint32_t i = n; i-- > 0;) {
            node_[i].time = inf;
            link(i, never_list());
        }
    }

    void set(std::uint32_t i, double time) {
        ++sets_;
        Node& e = node_[i];
        e.time = time;
        const std::uint32_t to = place_of(time);
        if (e.where == in_heap()) {
            if (to == in_heap()) {
                sift_up(sift_down(e.heap)); // the key changed either way
                return;
            }
            erase_from_heap(i);
            link(i, to);
        } else if (e.where != to) {
            unlink(i);
            if (to == in_heap())
                push(i);
            else
                link(i, to);
        }
        if (heap_.empty())
            refill();
        else if (heap_.size() > large_heap && sets_ > node_.size())
            rebuild(); // buckets too wide for the times now (a start from all +infinity)
    }

    std::uint32_t top() const { return heap_.empty() ? 0 : heap_[0]; }
    double top_time() const { return heap_.empty() ? inf : node_[heap_[0]].time; }
    double time(std::uint32_t i) const { return node_[i].time; }
    // The arrays that grow with N. The heap of the earliest bucket is left out: it holds a
    // few entries, and its capacity depends on the run's history, which would make the
    // figure differ between a run and the same run continued from a checkpoint.
    std::size_t bytes() const { return held_bytes(node_) + held_bytes(heads_); }
    // Entries likely to be next after the top (for prefetching): the top's children in
    // the heap, then the first entries of the next two slots. At most three.
    std::size_t upcoming(std::uint32_t* out) const {
        std::size_t k = 0;
        for (std::size_t h = 1; h < heap_.size() && k < 3; ++h) out[k++] = heap_[h];
        for (std::int64_t b = current_ + 1; b < end_ && b <= current_ + 2 && k < 3; ++b)
            for (std::uint32_t j = heads_[slot(b)]; j != none && k < 3; j = node_[j].next)
                out[k++] = j;
        return k;
    }
    void shift(double dt) {
        for (Node& e : node_) e.time -= dt; // +infinity stays
        rebuild();
    }

  private:
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    static constexpr double inf = std::numeric_limits<double>::infinity();
    // Bucket numbers are clamped to +-2^62 (times far beyond the ring, or NaN from a
    // broken caller, go to the overflow without undefined conversions).
    static constexpr double bucket_limit = 4611686018427387904.0;

    struct Node {
        double time;
        std::uint32_t next = none, prev = none; // in a list
        std::uint32_t where = 0;                // a ring slot, or one of the marks below
        std::uint32_t heap = 0;                 // position in the heap, when there
    };

    // One to two slots per entry, a power of two so that a slot is a mask away: with about
    // two entries per bucket near the front the ring spans 8 to 16 quarter quantiles.
    static std::uint32_t ring_size(std::size_t n) {
        std::uint32_t b = 8;
        while (b < n) b *= 2;
        return b;
    }

    std::int64_t bucket(double t) const {
        const double q = std::floor((t - origin_) * inverse_width_);
        if (!(q < bucket_limit)) return static_cast<std::int64_t>(bucket_limit);
        return static_cast<std::int64_t>(std::max(q, -bucket_limit));
    }
    // The lists after the ring's slots, and the mark of an entry in the heap.
    std::uint32_t overflow_list() const { return slots_; }
    std::uint32_t never_list() const { return slots_ + 1; }
    std::uint32_t in_heap() const { return slots_ + 2; }
    std::uint32_t slot(std::int64_t b) const {
        return static_cast<std::uint32_t>(b) & (slots_ - 1);
    }
    // Where an entry of this time belongs now.
    std::uint32_t place_of(double t) const {
        if (t == inf) return never_list();
        const std::int64_t b = bucket(t);
        if (b <= current_) return in_heap();
        return b < end_ ? slot(b) : overflow_list();
    }

    // --- the lists (ring slots, overflow, never) ---
    void link(std::uint32_t i, std::uint32_t list) {
        Node& e = node_[i];
        e.where = list;
        if (list < slots_) ++ringed_;
        e.prev = none;
        e.next = heads_[list];
        if (e.next != none) node_[e.next].prev = i;
        heads_[list] = i;
    }
    void unlink(std::uint32_t i) {
        const Node& e = node_[i];
        if (e.where < slots_) --ringed_;
        if (e.prev != none)
            node_[e.prev].next = e.next;
        else
            heads_[e.where] = e.next;
        if (e.next != none) node_[e.next].prev = e.prev;
    }

    // --- the heap of the current bucket, in (time, index) order ---
    bool earlier(std::uint32_t a, std::uint32_t b) const {
        const double ta = node_[a].time, tb = node_[b].time;
        return ta < tb || (ta == tb && a < b);
    }
    void put(std::uint32_t k, std::uint32_t i) {
        heap_[k] = i;
        node_[i].heap = k;
    }
    std::uint32_t sift_up(std::uint32_t k) {
        const std::uint32_t i = heap_[k];
        while (k > 0) {
            const std::uint32_t parent = (k - 1) / 2;
            if (!earlier(i, heap_[parent])) break;
            put(k, heap_[parent]);
            k = parent;
        }
        put(k, i);
        return k;
    }
    std::uint32_t sift_down(std::uint32_t k) {
        const std::uint32_t i = heap_[k];
        const auto n = static_cast<std::uint32_t>(heap_.size());
        while (true) {
            std::uint32_t child = 2 * k + 1;
            if (child >= n) break;
            if (child + 1 < n && earlier(heap_[child + 1], heap_[child])) ++child;
            if (!earlier(heap_[child], i)) break;
            put(k, heap_[child]);
            k = child;
        }
        put(k, i);
        return k;
    }
    void push(std::uint32_t i) {
        node_[i].where = in_heap();
        heap_.push_back(i);
        sift_up(static_cast<std::uint32_t>(heap_.size() - 1));
    }
    void erase_from_heap(std::uint32_t i) {
        const std::uint32_t k = node_[i].heap;
        const std::uint32_t last = heap_.back();
        heap_.pop_back();
        if (last == i) return;
        put(k, last);
        sift_up(sift_down(k));
    }

    // The heap is empty: pour the next non-empty bucket into it, or deal out the
    // overflow once the ring is used up. Leaves the heap empty only when every entry is
    // at +infinity.
    void refill() {
        for (std::int64_t b = current_ + 1; ringed_ > 0 && b < end_; ++b) {
            const std::uint32_t s = slot(b);
            if (heads_[s] == none) continue;
            current_ = b;
            pour(s);
            return;
        }
        if (heads_[overflow_list()] == none) return; // all at +infinity
        if (sets_ > node_.size() || poured_ < slots_ / 8)
            rebuild(); // the width no longer fits: look at the times again
        else
            deal_overflow();
    }
    void pour(std::uint32_t list) {
        for (std::uint32_t j = heads_[list]; j != none;) {
            const std::uint32_t next = node_[j].next;
            push(j);
            ++poured_;
            --ringed_;
            j = next;
        }
        heads_[list] = none;
    }
    // The ring is used up: start it again at the earliest bucket in the overflow.
    void deal_overflow() {
        std::int64_t first = std::numeric_limits<std::int64_t>::max();
        for (std::uint32_t j = heads_[overflow_list()]; j != none; j = node_[j].next)
            first = std::min(first, bucket(node_[j].time));
        current_ = first;
        end_ = first + slots_ + 1;
        poured_ = 0;
        std::uint32_t j = heads_[overflow_list()];
        heads_[overflow_list()] = none;
        while (j != none) {
            const std::uint32_t next = node_[j].next;
            const std::uint32_t to = place_of(node_[j].time);
            if (to == in_heap())
                push(j);
            else
                link(j, to);
            j = next;
        }
    }

    // A new origin and width from the entries' times, and every entry placed again.
    void rebuild() {
        sets_ = 0;
        poured_ = 0;
        double first = inf;
        std::size_t finite = 0;
        for (const Node& e : node_)
            if (e.time != inf) first = std::min(first, e.time), ++finite;
        heap_.clear();
        std::fill(heads_.begin(), heads_.end(), none);
        ringed_ = 0;
        origin_ = first == inf ? 0.0 : first;
        inverse_width_ = 1.0 / width_for(first, finite);
        current_ = 0;
        end_ = std::int64_t{slots_} + 1;
        for (std::uint32_t i = static_cast<std::uint32_t>(node_.size()); i-- > 0;) {
            const std::uint32_t to = place_of(node_[i].time);
            if (to == in_heap())
                push(i);
            else
                link(i, to);
        }
    }
    // w = 8 q / m (see the top), from a sample of at most 256 entries' times.
    double width_for(double first, std::size_t finite) const {
        if (finite == 0) return 1.0;
        std::vector<double> sample;
        const std::size_t stride = std::max<std::size_t>(1, node_.size() / 256);
        for (std::size_t i = 0; i < node_.size(); i += stride)
            if (node_[i].time != inf) sample.push_back(node_[i].time - first);
        double q = 0.0;
        if (!sample.empty()) {
            auto quarter = sample.begin() + static_cast<std::ptrdiff_t>(sample.size() / 4);
            std::nth_element(sample.begin(), quarter, sample.end());
            q = *quarter;
            if (!(q > 0.0)) { // many ties with the earliest: the smallest gap instead
                q = inf;
                for (const double d : sample)
                    if (d > 0.0) q = std::min(q, d);
            }
        }
        const double w = 8.0 * q / static_cast<double>(finite);
        // all equal (or no usable gap): one bucket for them, the heap orders them
        if (!(w > std::numeric_limits<double>::min()) || w == inf) return 1.0;
        return w;
    }

    std::vector<Node> node_;           // (no huge pages: a 2 MB page would round up a few MB at 1M)
    std::uint32_t slots_;              // B, a power of two
    std::vector<std::uint32_t> heads_; // B ring slots, then the overflow and never lists
    std::vector<std::uint32_t> heap_;
    double origin_ = 0.0, inverse_width_ = 1.0;
    std::int64_t current_ = 0;                    // the heap holds buckets <= current_
    std::int64_t end_ = std::int64_t{slots_} + 1; // the ring holds current_ < k < end_
    std::size_t sets_ = 0;                        // set() calls since the last rebuild
    std::size_t poured_ = 0;                      // entries poured since the ring started
    std::size_t ringed_ = 0;                      // entries in the ring's slots
    static constexpr std::size_t large_heap = 64;
};

} // namespace choc
