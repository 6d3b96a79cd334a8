// A run owns its outputs: before anything is opened for writing it locks each of them, so
// that a second run given any of the same outputs (the same config started twice in one
// directory, a continuation started while the run still goes on) is refused before it
// changes a file, instead of truncating or interleaving the first run's files.
//
// The lock of an output is a small file beside it, ".<name>.choc-lock", held with flock(2)
// and holding the owner's pid (for the refusal's message). The kernel releases a flock when
// its process dies, however it dies: a lock file left by a killed run is free, and the
// next run takes it over; no pid is ever guessed dead. A run removes its lock files when it
// ends. flock rather than fcntl locks: a flock belongs to the open file, so two runs in one
// process (a sweep's threads) exclude each other too, and closing another descriptor of the
// file does not drop it.
#pragma once

#include "choc/io/output_paths.hpp"

#include <string>
#include <utility>
#include <vector>

namespace choc {

// The lock file of output `path`.
std::string lock_name(const std::string& path);

class OutputLocks {
  public:
    // Locks every output, in order; throws InputError naming the first output another
    // process holds (its key, its path and that run's pid), having released what it took.
    // Where the file system has no locks (flock fails with ENOLCK or EOPNOTSUPP, some
    // network file systems), an output goes unlocked.
    explicit OutputLocks(const std::vector<NamedPath>& outputs);
    ~OutputLocks(); // removes the lock files, then releases them
    OutputLocks(const OutputLocks&) = delete;
    OutputLocks& operator=(const OutputLocks&) = delete;

  private:
    void release();
    std::vector<std::pair<std::string, int>> held_; // lock file, its open descriptor
};

} // namespace choc
