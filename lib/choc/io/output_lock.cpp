// Output locks: flock on a lock file beside each output (output_lock.hpp).
#include "choc/io/output_lock.hpp"

#include "choc/errors.hpp"
#include "choc/message_text.hpp"
#include "choc/run/interrupt.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace choc {
namespace {

// The pid a lock file names, as text ("" when it holds none yet: its owner took the lock
// an instant ago and has not written it).
std::string owner_of(int fd) {
    char text[32] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    std::string pid;
    for (ssize_t k = 0; k < n && text[k] >= '0' && text[k] <= '9'; ++k) pid += text[k];
    return pid;
}

// The lock files this process holds, as C strings, for a process ended from its signal
// handler during a stage that cannot stop at a check (interrupt.hpp, ExitOnInterrupt): it
// removes them there, with unlink, which is async-signal-safe. A run holds a handful; a
// lock beyond the slots (a sweep's many runs, which never end so) is only not listed.
std::array<std::atomic<char*>, 64> listed_locks{};

extern "C" void remove_listed_locks() {
    for (auto& slot : listed_locks)
        if (const char* name = slot.load()) ::unlink(name);
}

void list_lock(const std::string& name) {
    static const bool installed = [] {
        exit_on_interrupt_cleanup = remove_listed_locks;
        return true;
    }();
    (void)installed;
    char* copy = ::strdup(name.c_str());
    if (!copy) return;
    for (auto& slot : listed_locks) {
        char* empty = nullptr;
        if (slot.compare_exchange_strong(empty, copy)) return;
    }
    std::free(copy);
}

void unlist_lock(const std::string& name) {
    for (auto& slot : listed_locks) {
        char* held = slot.load();
        if (held && name == held && slot.compare_exchange_strong(held, nullptr)) {
            std::free(held);
            return;
        }
    }
}

bool same_file(int fd, const std::string& path) {
    struct stat held {
    }, named{};
    return ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 &&
           held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

} // namespace

std::string lock_name(const std::string& path) {
    const fs::path p(path);
    // Appended piece by piece: GCC 12's -Wrestrict misfires on "." + name + suffix.
    std::string name(1, '.');
    name.append(p.filename().string()).append(".choc-lock");
    return (p.parent_path() / name).string();
}

OutputLocks::OutputLocks(const std::vector<NamedPath>& outputs) {
    try {
        for (const auto& output : outputs) {
            const std::string name = lock_name(output.path);
            auto fail = [&](const std::string& what) {
                throw InputError(output.key + ": \"" + escaped(output.path) + "\": " + what);
            };
            // A run that ends removes its lock file after taking it and before releasing it:
            // a lock taken on a file no longer at that name is retaken on the new one.
            for (int attempt = 0;; ++attempt) {
                if (attempt == 16) fail("its lock file \"" + escaped(name) + "\" keeps changing");
                const int fd =
                    ::open(name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (fd < 0)
                    fail("cannot create its lock file \"" + escaped(name) +
                         "\": " + std::strerror(errno));
                if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
                    const int error = errno;
                    if (error == ENOLCK || error == EOPNOTSUPP) { // no locks here: go on
                        ::close(fd);
                        break;
                    }
                    const std::string pid = owner_of(fd);
                    ::close(fd);
                    if (error == EWOULDBLOCK)
                        fail("another choc run is writing it (" +
                             (pid.empty() ? std::string("its pid not recorded") : "pid " + pid) +
                             ", lock file \"" + escaped(name) +
                             "\"); wait for that run to end, or give this run other outputs");
                    fail("cannot lock it (\"" + escaped(name) + "\": " + std::strerror(error) +
                         ")");
                }
                if (!same_file(fd, name)) {
                    ::close(fd);
                    continue;
                }
                held_.emplace_back(name, fd);
                list_lock(name);
                // The pid is for the message of a run refused (owner_of); the lock is the
                // flock. On a full disk it cannot be written, and the run goes on without.
                const std::string pid = std::to_string(::getpid()) + "\n";
                if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
                break;
            }
        }
    } catch (...) {
        release();
        throw;
    }
}

OutputLocks::~OutputLocks() {
    release();
}

void OutputLocks::release() {
    // Removed while still held: a run that opened the file meanwhile finds, once it has the
    // lock, that the name no longer leads to it, and takes a new one.
    for (const auto& [name, fd] : held_) {
        unlist_lock(name);
        ::unlink(name.c_str());
        ::close(fd);
    }
    held_.clear();
}

} // namespace choc
