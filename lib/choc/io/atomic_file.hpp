// Output files appear whole or not at all: content goes to a uniquely named temporary
// file beside the target (".<name>.choc-<pid>-<random>.tmp") and is renamed over it only
// when complete. A run killed outright leaves that temporary behind; the next run writing
// the same output recognises it by its name and dead pid and removes it.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace choc {

// Throws InputError naming `key` (or `path` when key is empty) if it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content,
                           const std::string& key = "");

// Checks before a run that `path` can be written: a name that fits NAME_MAX and PATH_MAX
// with its temporary name too, an existing writable directory, and no existing target
// that is a directory, a symbolic link, a device, a FIFO or a socket (a rename would
// replace it by a regular file). Throws InputError naming `key`.
void check_writable(const std::string& path, const std::string& key);

// The CRC-32 of a + b from the CRC-32 `crc` of a and the bytes of b (OutputMark).
std::uint32_t extend_crc32(std::uint32_t crc, const char* data, std::size_t size);

// The temporary name this process uses for `path` (tests; the random part is fixed to
// `random`).
std::string temporary_name(const std::string& path, std::uint32_t random);

// Creates an empty temporary for `path` beside it, exclusively (never opening someone
// else's file), and returns its name: for writers that need a file name rather than a
// stream (HDF5). The caller renames it over `path` when complete, or removes it. Throws
// InputError naming `key` (or `path`).
std::string create_temporary(const std::string& path, const std::string& key);

// Removes temporaries of `path` left by choc processes that no longer exist (killed
// outright, SIGKILL). Returns how many were removed.
int remove_stale_temporaries(const std::string& path);

// Writes `content` as write_file_atomically does, and makes it durable before and after
// the rename (fsync of the file, then of its directory): a checkpoint that a crash of the
// machine, not only of the process, leaves whole or as it was.
void write_file_durably(const std::string& path, const std::string& content,
                        const std::string& key = "");

// Where a file written in place stood at a checkpoint: its length, and the CRC-32 of all
// its bytes up to there, carried forward from mark to mark (each mark reads back only what
// was written since the last), so that any byte changed before the mark is noticed.
struct OutputMark {
    std::uint64_t bytes = 0;
    std::uint32_t crc = 0;
    // An H5MD trajectory's sample counts too (its bytes and CRC-32 are those HDF5 flushed,
    // which its journal gives back: h5md_journal.hpp).
    std::uint64_t frames = 0, rows = 0;

    // Its checkpoint (archive.hpp), field by field: as one block of bytes it carried the 4
    // bytes of padding after `crc`, never set, so equal states saved unequal bytes.
    template <class Archive>
    void fields(Archive& ar) {
        ar(bytes, crc, frames, rows);
    }
};

// A streamed output of a checkpointed run is written in place, so that what a checkpoint
// covers is on disk when the process dies; a continuation cuts the file back to the
// checkpoint's mark (after checking it is the file the mark was taken of) and appends.
struct InPlace {
    std::optional<OutputMark> resume; // none: a new file
};

// A file written over a run (trajectory frames, time series) or at its end: writes to a
// temporary beside `path`; finish() flushes and checks it, publish() renames it to `path`.
// The destructor removes the temporary if it was never published. In place (InPlace), it
// writes `path` itself and publish() only finishes it.
class AtomicOutput {
  public:
    AtomicOutput(std::string path, std::string key = "",
                 std::optional<InPlace> in_place = std::nullopt);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    std::ostream& stream() { return out_; }
    // Throws InputError naming the key if a write failed (a full disk): call it after
    // writing so a run stops at the first failure, not at its end.
    void check();
    void finish();
    void publish();
    void commit() {
        finish();
        publish();
    }
    const std::string& path() const { return path_; }
    const std::string& key() const { return key_; }
    bool in_place() const { return in_place_; }
    const std::string& temporary() const { return temporary_; }
    // In place: flushes and fsyncs what was written, and returns its mark.
    OutputMark mark();

  private:
    [[noreturn]] void fail(const std::string& reason);
    std::string path_, key_, temporary_;
    std::ofstream out_;
    // In place: the CRC-32 of the file's first `summed_` bytes (OutputMark).
    std::uint32_t crc_ = 0;
    std::uint64_t summed_ = 0;
    bool finished_ = false, published_ = false, in_place_ = false;
};

} // namespace choc
