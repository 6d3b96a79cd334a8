// The undo journal of an H5MD trajectory written in place (h5md_journal.hpp says why).
//
// The journal file: the 16 bytes "choc journal 1\n\0", then records in the machine's byte
// order (a continuation runs on the same kind of machine, as for checkpoints), each ending
// with the CRC-32 of its bytes before it:
//   MARK  "MARK", the file's length (u64), the CRC-32 of its bytes (u32)   a section begins
//   SAVE  "SAVE", offset (u64), size (u64), the bytes the file held there   in that section
// A section holds the bytes that were overwritten after its mark (each byte at most once);
// a reader stops at the first record that is cut short or whose CRC-32 fails (a run killed
// while appending one: its write to the file had not begun).
#include "choc/io/h5md_journal.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/message_text.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace choc {
namespace {

constexpr char magic[16] = "choc journal 1\n";
constexpr char mark_tag[4] = {'M', 'A', 'R', 'K'};
constexpr char save_tag[4] = {'S', 'A', 'V', 'E'};
constexpr std::size_t block_size = std::size_t{1} << 20;

template <class T>
void put(std::string& out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

void seal(std::string& out, std::size_t record_start) {
    put(out, extend_crc32(0, out.data() + record_start, out.size() - record_start));
}

void put_mark(std::string& out, const H5mdJournal::Mark& m) {
    const std::size_t start = out.size();
    out.append(mark_tag, 4);
    put(out, m.bytes);
    put(out, m.crc);
    seal(out, start);
}

void put_save(std::string& out, std::uint64_t offset, const std::string& bytes) {
    const std::size_t start = out.size();
    out.append(save_tag, 4);
    put(out, offset);
    put(out, static_cast<std::uint64_t>(bytes.size()));
    out.append(bytes);
    seal(out, start);
}

// Whole reads and writes at an offset (EINTR and short transfers retried); false with errno
// set on failure, EIO for a read that meets the end of the file.
bool read_at(int fd, char* data, std::size_t size, std::uint64_t offset) {
    while (size > 0) {
        const ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        data += n, size -= static_cast<std::size_t>(n), offset += static_cast<std::uint64_t>(n);
    }
    return true;
}

bool write_at(int fd, const char* data, std::size_t size, std::uint64_t offset) {
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        data += n, size -= static_cast<std::size_t>(n), offset += static_cast<std::uint64_t>(n);
    }
    return true;
}

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        data += n, size -= static_cast<std::size_t>(n);
    }
    return true;
}

// One section of a journal read back: its mark, and the saved ranges (offset, bytes).
struct JournalSection {
    H5mdJournal::Mark mark;
    std::vector<std::pair<std::uint64_t, std::string_view>> saved;
};

// The sections of a journal's bytes, up to the first record cut short or damaged.
std::vector<JournalSection> parse_journal(const std::string& journal) {
    std::vector<JournalSection> sections;
    if (journal.size() < sizeof magic || std::memcmp(journal.data(), magic, sizeof magic) != 0)
        return sections;
    std::size_t at = sizeof magic;
    auto get = [&](auto& value, std::size_t from) {
        std::memcpy(&value, journal.data() + from, sizeof value);
    };
    auto sealed = [&](std::size_t start, std::size_t end) { // CRC-32 after [start, end)
        if (end + 4 > journal.size()) return false;
        std::uint32_t stored = 0;
        get(stored, end);
        return stored == extend_crc32(0, journal.data() + start, end - start);
    };
    while (at + 4 <= journal.size()) {
        const std::size_t start = at;
        if (std::memcmp(journal.data() + at, mark_tag, 4) == 0) {
            if (at + 4 + 8 + 4 > journal.size() || !sealed(start, at + 16)) break;
            JournalSection s;
            get(s.mark.bytes, at + 4);
            get(s.mark.crc, at + 12);
            sections.push_back(s);
            at += 20;
        } else if (std::memcmp(journal.data() + at, save_tag, 4) == 0) {
            if (sections.empty() || at + 20 > journal.size()) break;
            std::uint64_t offset = 0, size = 0;
            get(offset, at + 4);
            get(size, at + 12);
            if (size > journal.size() - (at + 20) || !sealed(start, at + 20 + size)) break;
            sections.back().saved.emplace_back(
                offset, std::string_view(journal.data() + at + 20, static_cast<std::size_t>(size)));
            at += 20 + static_cast<std::size_t>(size) + 4;
        } else {
            break;
        }
    }
    return sections;
}

} // namespace

std::string journal_name(const std::string& path) {
    const std::filesystem::path p(path);
    // Appended piece by piece: GCC 12's -Wrestrict misfires on "." + name + suffix.
    std::string name(1, '.');
    name.append(p.filename().string()).append(".choc-journal");
    return (p.parent_path() / name).string();
}

std::uint32_t crc32_after_change(std::uint32_t crc, std::uint64_t length, std::uint64_t offset,
                                 const unsigned char* before, const unsigned char* after,
                                 std::size_t size) {
    // The CRC-32 is affine in the message: for messages of one length, crc(a) ^ crc(b) is
    // the CRC of a ^ b with zero initial and final xor ("raw"). a ^ b is zero but for the
    // changed bytes, and leading zeros leave a raw CRC at zero: the change adds the raw CRC
    // of the changed bytes' difference, carried over the `length - offset - size` bytes
    // after them (zlib's crc32_combine with an empty second part, which multiplies by
    // x^(8 n) modulo the polynomial).
    std::vector<unsigned char> difference(size);
    for (std::size_t i = 0; i < size; ++i)
        difference[i] = static_cast<unsigned char>(before[i] ^ after[i]);
    uLong raw = 0xffffffffUL; // zlib's crc32 inverts on entry and exit: from ~0 it starts at 0
    for (std::size_t at = 0; at < size;) {
        const auto n = static_cast<uInt>(std::min<std::size_t>(size - at, std::size_t{1} << 30));
        raw = ::crc32(raw, difference.data() + at, n);
        at += n;
    }
    raw ^= 0xffffffffUL;
    const uLong carried = ::crc32_combine(raw, 0, static_cast<z_off_t>(length - offset - size));
    return crc ^ static_cast<std::uint32_t>(carried);
}

H5mdJournal::H5mdJournal(std::string path, std::string shown, std::string key, Mark mark)
    : path_(std::move(path)), shown_(std::move(shown)), key_(std::move(key)), mark_(mark) {
    std::string content(magic, sizeof magic);
    put_mark(content, mark_);
    replace(content);
}

H5mdJournal::~H5mdJournal() {
    if (fd_ >= 0) ::close(fd_);
}

void H5mdJournal::fail(const std::string& what) const {
    throw InputError(key_ + ": \"" + escaped(shown_) + "\": " + what);
}

void H5mdJournal::replace(const std::string& content) {
    const std::string name = journal_name(path_);
    const std::string temporary = create_temporary(path_, key_);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    const bool written = fd >= 0 && write_all(fd, content.data(), content.size());
    const int error = errno;
    if (fd >= 0) ::close(fd);
    if (!written || ::rename(temporary.c_str(), name.c_str()) != 0) {
        const std::string reason = std::strerror(written ? errno : error);
        ::unlink(temporary.c_str());
        fail("cannot write its journal \"" + escaped(name) + "\" (" + reason + ")");
    }
    if (fd_ >= 0) ::close(fd_);
    fd_ = ::open(name.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ < 0)
        fail("cannot open its journal \"" + escaped(name) + "\" (" + std::strerror(errno) + ")");
}

bool H5mdJournal::before_write(int fd, std::uint64_t offset, std::uint64_t size) noexcept {
    if (size == 0 || offset >= mark_.bytes) return true;
    const std::uint64_t end = std::min(mark_.bytes, offset + size);
    try {
        // the parts of [offset, end) not journaled since the mark
        std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps;
        std::uint64_t at = offset;
        auto next = covered_.upper_bound(offset);
        if (next != covered_.begin()) at = std::max(at, std::prev(next)->second);
        for (; at < end; ++next) {
            if (next == covered_.end() || next->first >= end) {
                gaps.emplace_back(at, end);
                break;
            }
            if (next->first > at) gaps.emplace_back(at, next->first);
            at = std::max(at, next->second);
        }
        for (const auto& [begin, stop] : gaps) {
            std::string old(static_cast<std::size_t>(stop - begin), '\0');
            if (!read_at(fd, old.data(), old.size(), begin)) return false;
            std::string record;
            put_save(record, begin, old);
            // Appended whole before the file is written: killed in between, the journal
            // holds the bytes; killed while appending, the file was not written yet.
            if (!write_all(fd_, record.data(), record.size())) return false;
            std::uint64_t a = begin, b = stop;
            auto it = covered_.lower_bound(a);
            if (it != covered_.begin() && std::prev(it)->second >= a) {
                --it;
                a = it->first;
                b = std::max(b, it->second);
                it = covered_.erase(it);
            }
            while (it != covered_.end() && it->first <= b) {
                b = std::max(b, it->second);
                it = covered_.erase(it);
            }
            covered_[a] = b;
            section_.emplace_back(begin, std::move(old));
        }
        return true;
    } catch (const std::bad_alloc&) {
        errno = ENOMEM;
        return false;
    }
}

H5mdJournal::Mark H5mdJournal::advance(int fd, std::uint64_t length) {
    if (length < mark_.bytes)
        fail("it is shorter (" + std::to_string(length) + " bytes) than at the last checkpoint (" +
             std::to_string(mark_.bytes) + ")");
    auto unreadable = [&] {
        fail(std::string("it cannot be read back (") + std::strerror(errno) + ")");
    };
    Mark next{length, mark_.crc};
    for (const auto& [offset, old] : section_) {
        std::string now(old.size(), '\0');
        if (!read_at(fd, now.data(), now.size(), offset)) unreadable();
        next.crc = crc32_after_change(
            next.crc, mark_.bytes, offset, reinterpret_cast<const unsigned char*>(old.data()),
            reinterpret_cast<const unsigned char*>(now.data()), old.size());
    }
    // only what was appended since the last mark is read (from the page cache, just written)
    std::string block(std::min<std::uint64_t>(block_size, length - mark_.bytes), '\0');
    for (std::uint64_t at = mark_.bytes; at < length;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), length - at));
        if (!read_at(fd, block.data(), n, at)) unreadable();
        next.crc = extend_crc32(next.crc, block.data(), n);
        at += n;
    }
    std::string content(magic, sizeof magic);
    put_mark(content, mark_);
    for (const auto& [offset, old] : section_) put_save(content, offset, old);
    put_mark(content, next);
    replace(content);
    mark_ = next;
    section_.clear();
    covered_.clear();
    return next;
}

void restore_h5md(const std::string& path, const std::string& shown, const std::string& key,
                  H5mdJournal::Mark mark) {
    auto fail = [&](const std::string& what) { // before anything is changed
        throw InputError(key + ": \"" + escaped(shown) + "\": " + what +
                         "; the file is left as it was (a continuation given another " + key +
                         " starts a new trajectory there)");
    };
    if (mark.bytes == 0)
        fail("the checkpoint records no length of the trajectory (a checkpoint of a choc "
             "before H5MD journals)");
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        fail("the run to continue wrote it, but it cannot be found (" +
             std::string(std::strerror(errno)) + ")");
    if (!S_ISREG(st.st_mode)) fail("it is not a regular file");
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size < mark.bytes)
        fail("it holds " + std::to_string(size) + " bytes, fewer than the " +
             std::to_string(mark.bytes) +
             " the checkpoint covers: it is not the file of the run to continue");

    // The journal, and the bytes to put back, newest section first: where sections overlap,
    // the older bytes (written last) are the ones the mark's file held.
    const std::string journal_path = journal_name(path);
    std::optional<std::string> journal;
    {
        std::ifstream in(journal_path, std::ios::binary);
        if (in)
            journal.emplace(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::vector<JournalSection> sections =
        journal ? parse_journal(*journal) : std::vector<JournalSection>{};
    const auto found = std::find_if(sections.begin(), sections.end(),
                                    [&](const JournalSection& s) { return s.mark == mark; });
    std::vector<std::pair<std::uint64_t, std::string_view>> patches;
    if (found != sections.end())
        for (auto s = sections.end(); s != found;) {
            --s;
            for (const auto& [offset, bytes] : s->saved) {
                if (offset >= mark.bytes) continue;
                const auto n = static_cast<std::size_t>(
                    std::min<std::uint64_t>(bytes.size(), mark.bytes - offset));
                patches.emplace_back(offset, bytes.substr(0, n));
            }
        }
    auto overlay = [&](char* data, std::uint64_t from, std::size_t n) {
        const std::uint64_t to = from + n;
        for (const auto& [offset, bytes] : patches) {
            const std::uint64_t begin = std::max(from, offset),
                                end = std::min<std::uint64_t>(to, offset + bytes.size());
            if (begin < end)
                std::memcpy(data + (begin - from), bytes.data() + (begin - offset),
                            static_cast<std::size_t>(end - begin));
        }
    };

    // The restored content is checked before anything is changed.
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail("it cannot be read (" + std::string(std::strerror(errno)) + ")");
        std::string block(std::min<std::uint64_t>(block_size, mark.bytes), '\0');
        std::uint32_t crc = 0;
        for (std::uint64_t at = 0; at < mark.bytes;) {
            const auto n =
                static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), mark.bytes - at));
            if (!read_at(fd, block.data(), n, at)) {
                const std::string reason = std::strerror(errno);
                ::close(fd);
                fail("it cannot be read (" + reason + ")");
            }
            overlay(block.data(), at, n);
            crc = extend_crc32(crc, block.data(), n);
            at += n;
        }
        ::close(fd);
        if (crc != mark.crc) {
            const std::string journal_state =
                !journal ? "it has no journal \"" + escaped(journal_path) + "\""
                : found == sections.end()
                    ? "its journal \"" + escaped(journal_path) +
                          "\" holds no record of that checkpoint"
                    : "with the bytes of its journal \"" + escaped(journal_path) + "\" put back";
            fail("its content up to the checkpoint is not what the run to continue wrote (the "
                 "CRC-32 over the " +
                 std::to_string(mark.bytes) + " bytes the checkpoint covers differs; " +
                 journal_state + ")");
        }
    }
    if (patches.empty() && size == mark.bytes) return;
    // Put back, then cut. Killed part-way, the journal is still there, and a continuation
    // does it again: the result depends on the journal alone.
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    bool done = fd >= 0;
    for (const auto& [offset, bytes] : patches)
        if (done) done = write_at(fd, bytes.data(), bytes.size(), offset);
    if (done && size > mark.bytes) done = ::ftruncate(fd, static_cast<off_t>(mark.bytes)) == 0;
    if (done) done = ::fsync(fd) == 0;
    const std::string reason = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    if (!done)
        throw InputError(key + ": \"" + escaped(shown) +
                         "\": cannot give it back its content at the checkpoint (" + reason +
                         "); its journal is kept, and a continuation does it again");
}

} // namespace choc
