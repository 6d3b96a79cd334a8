// Ctrl-C during a run from Python: choc's InterruptGuard (run/interrupt.hpp) records SIGINT
// and SIGTERM while it lives and the run stops at its next chunk of events. Python's own
// handlers are put back exactly (sigaction, flags included) when the guard goes: the
// guard restores them through std::signal, which would change their flags.
#pragma once

#include "choc/run/interrupt.hpp"

#include <csignal>
#include <optional>

namespace choc::python {

// Made and destroyed with the GIL held, so `alive_` needs no lock. Only the outermost one
// saves and restores Python's handlers: runs of independent Simulations in several threads
// overlap, and an inner one would save choc's handler as "Python's" and leave it in place
// once the last run ends (Ctrl-C would then never raise KeyboardInterrupt again).
class PythonInterrupts {
  public:
    PythonInterrupts() {
        if (alive_++ == 0) {
            sigaction(SIGINT, nullptr, &int_);
            sigaction(SIGTERM, nullptr, &term_);
        }
        guard_.emplace();
    }
    ~PythonInterrupts() {
        guard_.reset();
        if (--alive_ > 0) return;
        sigaction(SIGINT, &int_, nullptr);
        sigaction(SIGTERM, &term_, nullptr);
    }
    PythonInterrupts(const PythonInterrupts&) = delete;
    PythonInterrupts& operator=(const PythonInterrupts&) = delete;

    static bool requested() { return InterruptGuard::requested(); }

  private:
    static inline int alive_ = 0;
    static inline struct sigaction int_ {};
    static inline struct sigaction term_ {};
    std::optional<InterruptGuard> guard_;
};

} // namespace choc::python
