// SIGINT and SIGTERM stop a run gracefully: the loop checks the flag between chunks of
// events, the summary covers the part run so far and the app exits with 130.
// The app installs the handlers before it reads the config, so a signal during start-up
// (reading, building the start, equilibrating) is recorded too, never fatal. Guards nest:
// only the outermost one installs the handlers, clears the flag and restores the previous
// handlers when it goes out of scope. The outermost guard belongs to the thread that
// starts the work (the program's main thread); the runs of a sweep, in worker threads,
// nest their guards inside it, so the count is atomic.
//
// Stages of building the start too long to wait for (a large mesh read, or listed by cell)
// call stop_if_interrupted every so often: a pending signal stops them at once with
// Interrupted (errors.hpp), before anything is written.
#pragma once

#include "choc/errors.hpp"

#include <atomic>
#include <csignal>
#include <string>

namespace choc {

inline std::atomic<int> interrupt_signal{0};
inline std::atomic<int> interrupt_guards{0}; // guards alive

extern "C" inline void record_interrupt(int signal) {
    interrupt_signal = signal;
}

class InterruptGuard {
  public:
    InterruptGuard() {
        if (interrupt_guards++ > 0) return;
        interrupt_signal = 0;
        previous_int_ = std::signal(SIGINT, record_interrupt);
        previous_term_ = std::signal(SIGTERM, record_interrupt);
    }
    ~InterruptGuard() {
        if (--interrupt_guards > 0) return;
        std::signal(SIGINT, previous_int_);
        std::signal(SIGTERM, previous_term_);
    }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    static bool requested() { return interrupt_signal != 0; }

  private:
    void (*previous_int_)(int) = SIG_DFL;
    void (*previous_term_)(int) = SIG_DFL;
};

// Throws Interrupted naming `stage` ("listing the triangles by cell") when SIGINT or SIGTERM
// is pending; a check costs one atomic load.
inline void stop_if_interrupted(const char* stage) {
    if (InterruptGuard::requested())
        throw Interrupted(std::string("interrupted while ") + stage +
                          " (SIGINT or SIGTERM): nothing was written");
}

} // namespace choc
