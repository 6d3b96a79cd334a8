// Set-up work of the kernel too long to wait for (listing a large mesh's triangles by
// cell, triangle_cells.hpp: seconds for a million facets) calls between_chunks(stage)
// every so often. The kernel knows no signals: by itself the call does nothing. A program
// that stops on them installs a hook that throws there (the run layer: run/interrupt.hpp,
// whose InterruptGuard installs stop_if_interrupted, which throws Interrupted naming the
// stage when SIGINT or SIGTERM is pending). The hook may throw; it must not change what the
// kernel computes.
#pragma once

#include <atomic>

namespace choc {

using BetweenChunks = void (*)(const char* stage);

// The hook, or none (null). One for the process, set before the work it watches.
inline std::atomic<BetweenChunks> between_chunks_hook{nullptr};

inline void set_between_chunks(BetweenChunks hook) {
    between_chunks_hook.store(hook);
}

// Calls the hook, if any, with what is being done ("listing the triangles by cell").
inline void between_chunks(const char* stage) {
    if (const BetweenChunks hook = between_chunks_hook.load(std::memory_order_relaxed)) hook(stage);
}

} // namespace choc
