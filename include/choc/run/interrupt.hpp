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
// Interrupted (errors.hpp), before anything is written. The kernel's (the mesh listed by
// cell) call it through its hook between chunks (kernel/between_chunks.hpp), which a guard
// installs: the kernel includes nothing of the run. A stage that cannot check (a read
// inside HDF5) is an ExitOnInterrupt section.
#pragma once

#include "choc/errors.hpp"
#include "choc/kernel/between_chunks.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstddef>
#include <string>

#include <unistd.h>

namespace choc {

inline std::atomic<int> interrupt_signal{0};
inline std::atomic<int> interrupt_guards{0}; // guards alive

// ExitOnInterrupt (below): whether this program allows it (`choc run`), the line the handler
// then writes (null outside a section), and what it removes first (the run's lock files,
// output_lock.cpp).
inline std::atomic<bool> exit_on_interrupt_allowed{false};
inline std::atomic<const char*> exit_on_interrupt_line{nullptr};
inline std::atomic<void (*)()> exit_on_interrupt_cleanup{nullptr};

extern "C" inline void record_interrupt(int signal) {
    interrupt_signal = signal;
    if (const char* line = exit_on_interrupt_line.load()) {
        // only async-signal-safe calls from here
        if (void (*cleanup)() = exit_on_interrupt_cleanup.load()) cleanup();
        std::size_t size = 0;
        while (line[size] != '\0') ++size;
        (void)!::write(STDERR_FILENO, line, size);
        ::_exit(130);
    }
}

// Throws Interrupted naming `stage` ("listing the triangles by cell") when SIGINT or SIGTERM
// is pending (InterruptGuard::requested); a check costs one atomic load.
inline void stop_if_interrupted(const char* stage) {
    if (interrupt_signal != 0)
        throw Interrupted(std::string("interrupted while ") + stage +
                          " (SIGINT or SIGTERM): nothing was written");
}

class InterruptGuard {
  public:
    InterruptGuard() {
        // the kernel's long set-up stops at a pending signal too (between_chunks.hpp); the
        // hook stays after the guard, as the checks of the run's own stages do
        set_between_chunks(stop_if_interrupted);
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

// A stage of the start that cannot stop at a check: a read inside the HDF5 library, which
// polls no flag, and which a damaged file or a stalled file system can hold for ever. In a
// program that allows it (`choc run` sets exit_on_interrupt_allowed; not the Python module,
// nor a sweep, whose other runs write meanwhile), SIGINT or SIGTERM during the section end
// the process from the handler: the run's lock files removed, one line on stderr ("choc:
// interrupted while <stage> ...: nothing was written", as Interrupted prints), status 130.
// Such a stage only reads, before anything is written. Elsewhere the signal is recorded
// and acted on after the section, as always. One section at a time (the program's thread).
class ExitOnInterrupt {
  public:
    explicit ExitOnInterrupt(const std::string& stage) {
        if (!exit_on_interrupt_allowed || exit_on_interrupt_line.load()) return;
        static char line[512];
        const std::string text = "choc: interrupted while " + stage.substr(0, 400) +
                                 " (SIGINT or SIGTERM): nothing was written\n";
        text.copy(line, sizeof line - 1);
        line[std::min(text.size(), sizeof line - 1)] = '\0';
        exit_on_interrupt_line = line;
        active_ = true;
        // a signal that came before the section is acted on as at any check
        if (InterruptGuard::requested()) {
            exit_on_interrupt_line = nullptr;
            active_ = false;
            stop_if_interrupted(stage.c_str());
        }
    }
    ~ExitOnInterrupt() {
        if (active_) exit_on_interrupt_line = nullptr;
    }
    ExitOnInterrupt(const ExitOnInterrupt&) = delete;
    ExitOnInterrupt& operator=(const ExitOnInterrupt&) = delete;

  private:
    bool active_ = false;
};

} // namespace choc
