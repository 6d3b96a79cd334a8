// SIGINT and SIGTERM stop a run gracefully: the loop checks the flag between chunks of
// events, the summary covers the part run so far and the app exits with 128 + signal.
// The previous handlers come back when the guard goes out of scope.
#pragma once

#include <atomic>
#include <csignal>

namespace choc {

inline std::atomic<int> interrupt_signal{0};

extern "C" inline void record_interrupt(int signal) {
    interrupt_signal = signal;
}

class InterruptGuard {
  public:
    InterruptGuard() {
        interrupt_signal = 0;
        previous_int_ = std::signal(SIGINT, record_interrupt);
        previous_term_ = std::signal(SIGTERM, record_interrupt);
    }
    ~InterruptGuard() {
        std::signal(SIGINT, previous_int_);
        std::signal(SIGTERM, previous_term_);
    }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    static bool requested() { return interrupt_signal != 0; }

  private:
    void (*previous_int_)(int);
    void (*previous_term_)(int);
};

} // namespace choc
