// The undo journal of an H5MD trajectory written in place (a checkpointed run), and a
// continuation's restore of the file from it (issue 41, item 2).
//
// Why: HDF5 1.10 keeps no journal of its own. Between two checkpoints it rewrites metadata
// (chunk-index B-tree nodes, object headers, the superblock) and partly filled chunks in
// place, frees the old copies of rewritten chunks and reuses their space, all in whatever
// order its caches evict them. A run killed in between leaves a file whose chunk index can
// point at space that now holds another chunk (seen: /particles/all/box/edges's first chunk
// pointing at a `step` chunk, 8 KiB where 72 KiB are due). HDF5 1.10.8 inflates such a chunk
// without checking that it comes out a chunk long (H5D__chunk_lock), and writing it back
// copies a whole chunk out of the short buffer (H5D__chunk_flush_entry): the heap overflow in
// H5Fflush under ASan and "corrupted size vs. prev_size" in release; read back, it gives
// wrong samples without an error. No check of such a file can make reading it with HDF5 safe,
// and copying it (H5Ocopy copies the chunks as they are) carries the damage along, so a
// continuation never reads a killed file with HDF5: it first gives the file back the bytes
// it had at the checkpoint, which HDF5 itself flushed whole.
//
// How: every write HDF5 makes (through choc's file driver, h5md.cpp) below the length the
// file had at the last mark first copies the bytes it is about to replace into the journal
// (once per byte between two marks), so the file as it was at the mark is always the file
// now with the journal's bytes put back, cut to the mark's length; the driver never cuts the
// file shorter than that. A mark (each checkpoint, after HDF5's flush and an fsync) records
// the length and the CRC-32 of every byte up to it (carried forward from the last mark with
// the journal's records and the bytes appended since, not by reading the whole file again)
// and starts a new section of the journal. The section before it is kept until the next
// mark: a run killed after a mark but before its checkpoint file was written continues from
// the checkpoint before. A continuation checks the restored bytes against the checkpoint's
// CRC-32 before it changes the file, so a journal that is missing, damaged or another run's
// is a refusal, never a wrong file.
//
// The journal, ".<name>.choc-journal" beside the trajectory, is replaced whole (a temporary
// renamed over it) at each mark and appended to between marks; it stays after the run, as
// the checkpoint does, so that the run can be extended. A process killed at any moment
// leaves it usable; a crash of the machine may not (it is not synced between marks), and
// then the continuation is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace choc {

// The journal of the H5MD file `path`.
std::string journal_name(const std::string& path);

// The CRC-32 of a message `length` bytes long after its `size` bytes at `offset` changed
// from `before` to `after`, from its CRC-32 `crc` before the change.
std::uint32_t crc32_after_change(std::uint32_t crc, std::uint64_t length, std::uint64_t offset,
                                 const unsigned char* before, const unsigned char* after,
                                 std::size_t size);

class H5mdJournal {
  public:
    // Where the file stood at a mark: its length and the CRC-32 of its bytes up to there.
    struct Mark {
        std::uint64_t bytes = 0;
        std::uint32_t crc = 0;
        bool operator==(const Mark&) const = default;
    };

    // Starts the journal of `path`, whose content is now that of `mark` (a new file: the
    // empty mark): the journal file is replaced by one holding that mark alone. Errors are
    // InputErrors naming `key` and `shown`.
    H5mdJournal(std::string path, std::string shown, std::string key, Mark mark);
    ~H5mdJournal();
    H5mdJournal(const H5mdJournal&) = delete;
    H5mdJournal& operator=(const H5mdJournal&) = delete;

    // For the file driver, before `size` bytes at `offset` of the file (open as `fd`) are
    // written: the bytes below the mark's length not yet journaled are copied into the
    // journal. False (errno set) if they could not be: the write must not happen then.
    bool before_write(int fd, std::uint64_t offset, std::uint64_t size) noexcept;
    // The length below which the driver must not cut the file.
    std::uint64_t keep_length() const { return mark_.bytes; }

    // After everything was written, flushed and synced: the file (open as `fd`, now
    // `length` bytes, never less than the last mark's) is marked, and the journal's new
    // section begins. InputError if the journal cannot be written.
    Mark advance(int fd, std::uint64_t length);
    const Mark& mark() const { return mark_; }

  private:
    void replace(const std::string& content); // the journal file, whole
    [[noreturn]] void fail(const std::string& what) const;

    std::string path_, shown_, key_;
    Mark mark_;
    int fd_ = -1;                                                // the journal, appending
    std::vector<std::pair<std::uint64_t, std::string>> section_; // this section's records
    std::map<std::uint64_t, std::uint64_t> covered_;             // their ranges: begin -> end
};

// A continuation's first step: gives the H5MD file `path` the content it had at `mark`
// (the file now with its journal's bytes put back, cut to the mark's length), after checking
// that content against the mark's CRC-32. Throws InputError naming `key` and `shown`, the
// file unchanged ("left as it was"), if it cannot (no journal where one is needed, a journal
// of another mark or damaged, a file changed otherwise, shorter than the mark, unreadable);
// a write that fails while the bytes are put back is an InputError too, the journal kept
// for the next attempt. Only reads and plain writes: no HDF5.
void restore_h5md(const std::string& path, const std::string& shown, const std::string& key,
                  H5mdJournal::Mark mark);

} // namespace choc
