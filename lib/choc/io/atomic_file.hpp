// Output files appear whole or not at all: content goes to a temporary file beside the
// target and is renamed over it only when complete.
#pragma once

#include <fstream>
#include <string>

namespace choc {

// Throws InputError naming `path` if it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

// Checks before a run that `path` can be created (its directory exists and is writable),
// so a run never fails at its end for a bad output path. Throws InputError naming `key`.
void check_writable(const std::string& path, const std::string& key);

// A stream written over a run (trajectory frames): writes to "<path>.partial" and renames
// to `path` on commit(); the destructor removes the temporary file if never committed.
class AtomicOutput {
public:
    explicit AtomicOutput(std::string path);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    std::ostream& stream() { return out_; }
    void commit();

private:
    std::string path_, temporary_;
    std::ofstream out_;
    bool committed_ = false;
};

} // namespace choc
