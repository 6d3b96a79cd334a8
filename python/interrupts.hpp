// Ctrl-C during a run from Python: choc's InterruptGuard (run/interrupt.hpp) records SIGINT
// and SIGTERM while it lives and the run stops at its next chunk of events. Python's own
// handlers are put back exactly (sigaction, flags included) when the guard goes: the
// guard restores them through std::signal, which would change their flags.
#pragma once

#include "choc/run/interrupt.hpp"

#include <csignal>
#include <optional>

namespace choc::python {

class PythonInterrupts {
  public:
    PythonInterrupts() {
        sigaction(SIGINT, nullptr, &int_);
        sigaction(SIGTERM, nullptr, &term_);
        guard_.emplace();
    }
    ~PythonInterrupts() {
        guard_.reset();
        sigaction(SIGINT, &int_, nullptr);
        sigaction(SIGTERM, &term_, nullptr);
    }
    PythonInterrupts(const PythonInterrupts&) = delete;
    PythonInterrupts& operator=(const PythonInterrupts&) = delete;

    static bool requested() { return InterruptGuard::requested(); }

  private:
    struct sigaction int_ {};
    struct sigaction term_ {};
    std::optional<InterruptGuard> guard_;
};

} // namespace choc::python
