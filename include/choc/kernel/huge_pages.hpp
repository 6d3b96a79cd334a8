// An allocator for the large arrays the event loop reads at random (particle records,
// schedules, cell lists, the calendar). An array of 2 MiB or more is aligned to 2 MiB and
// marked for transparent huge pages before its first use: with 4 KiB pages a random access
// into tens of megabytes misses the TLB as well as the cache (a page walk is more memory
// traffic), while 2 MiB pages let the TLB cover the whole working set. Smaller arrays are
// aligned to a cache line. Where the kernel gives no huge pages the advice is ignored and
// this is a plain aligned allocation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace choc {

inline void* allocate_aligned_for_speed(std::size_t bytes) {
    constexpr std::size_t huge_page = std::size_t{2} << 20, line = 64;
    const std::size_t align = bytes >= huge_page ? huge_page : line;
    const std::size_t rounded = std::max((bytes + align - 1) / align * align, align);
    void* p = std::aligned_alloc(align, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align == huge_page) madvise(p, rounded, MADV_HUGEPAGE); // a hint: failure is harmless
#endif
    return p;
}

template <class T>
struct HugePageAllocator {
    using value_type = T;
    static_assert(alignof(T) <= 64, "HugePageAllocator aligns to a cache line at least");

    HugePageAllocator() = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U>&) {}

    T* allocate(std::size_t n) {
        return static_cast<T*>(allocate_aligned_for_speed(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t) { std::free(p); }

    template <class U>
    bool operator==(const HugePageAllocator<U>&) const {
        return true;
    }
};

// A vector whose storage comes from HugePageAllocator.
template <class T>
using FastVector = std::vector<T, HugePageAllocator<T>>;

// The bytes of a vector's elements, for the engine's account of its memory (its size, not
// its capacity: the figure is then the same for a run restored from a checkpoint).
template <class V>
std::size_t held_bytes(const V& v) {
    return v.size() * sizeof(typename V::value_type);
}

} // namespace choc
