// Whole-or-nothing output files: write a temporary beside the target (same file system,
// so the final rename is atomic), then rename it over the target.
//
// Why named temporaries and not O_TMPFILE + linkat: linkat cannot replace an existing
// file, so a second, named step is needed anyway, and O_TMPFILE is missing on some file
// systems (older NFS, overlay set-ups). A name that carries the writer's pid is portable,
// and a later run can tell a dead writer's leftovers from a live run's file.
#include "choc/io/atomic_file.hpp"

#include "choc/errors.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace choc {
namespace {

constexpr const char* marker = ".choc-";
constexpr const char* suffix = ".tmp";
// What the temporary adds to a name: ".", marker, a pid of up to 10 digits, "-", 8 hex
// digits, suffix.
constexpr std::size_t temporary_extra = 1 + 6 + 10 + 1 + 8 + 4;

std::string directory_of(const std::string& path) {
    const std::string parent = fs::path(path).parent_path().string();
    return parent.empty() ? "." : parent;
}

std::string name_of(const std::string& path) {
    return fs::path(path).filename().string();
}

std::string label(const std::string& key, const std::string& path) {
    return key.empty() ? path + ": cannot write file" : key + ": cannot write \"" + path + "\"";
}

// A fresh random part for each file: two outputs of one run, or a pid reused after a
// reboot, never meet on one name. One generator per thread: the runs of a sweep create
// files from several threads at once.
std::uint32_t random_part() {
    thread_local std::mt19937 generator{std::random_device{}()};
    return static_cast<std::uint32_t>(generator());
}

} // namespace

std::string create_temporary(const std::string& path, const std::string& key) {
    for (int attempt = 0; attempt < 16; ++attempt) {
        const std::string name = temporary_name(path, random_part());
        const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return name;
        }
        if (errno != EEXIST) throw InputError(label(key, path) + ": " + std::strerror(errno));
    }
    throw InputError(label(key, path) + ": no free temporary name beside it");
}

namespace {

// fsync of a file or directory: what was written survives a crash of the machine.
void sync_path(const std::string& path, const std::string& key, const std::string& target) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
        const std::string reason = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        throw InputError(label(key, target) + ": cannot make it durable (" + reason + ")");
    }
    ::close(fd);
}

// extend_crc32 over the bytes of `path` in [begin, end), read in blocks; none if they
// cannot all be read.
std::optional<std::uint32_t> extend_crc32_from(const std::string& path, std::uint32_t crc,
                                               std::uint64_t begin, std::uint64_t end) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(begin));
    std::string block(std::size_t{1} << 20, '\0');
    for (std::uint64_t at = begin; at < end;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), end - at));
        in.read(block.data(), static_cast<std::streamsize>(n));
        if (!in) return std::nullopt;
        crc = extend_crc32(crc, block.data(), n);
        at += n;
    }
    return crc;
}

} // namespace

std::uint32_t extend_crc32(std::uint32_t crc, const char* data, std::size_t size) {
    // zlib's crc32 goes on from a checksum as it is (the standard CRC-32, "123456789" gives
    // cbf43926), at about 1.5 GB/s here, ten times Boost's crc_32_type.
    uLong sum = crc;
    for (std::size_t at = 0; at < size;) {
        const auto n = static_cast<uInt>(std::min<std::size_t>(size - at, std::size_t{1} << 30));
        sum = ::crc32(sum, reinterpret_cast<const Bytef*>(data + at), n);
        at += n;
    }
    return static_cast<std::uint32_t>(sum);
}

std::string temporary_name(const std::string& path, std::uint32_t random) {
    char tail[64];
    std::snprintf(tail, sizeof tail, "%s%ld-%08x%s", marker, static_cast<long>(::getpid()),
                  static_cast<unsigned>(random), suffix);
    // Appended piece by piece: GCC 12's -Wrestrict misfires on "." + name + tail.
    std::string name(1, '.');
    name.append(name_of(path)).append(tail);
    return (fs::path(path).parent_path() / name).string();
}

void check_writable(const std::string& path, const std::string& key) {
    auto fail = [&](const std::string& what) {
        throw InputError(key + ": cannot write \"" + path + "\": " + what);
    };
    if (path.empty()) fail("empty path");
    const std::string name = name_of(path);
    if (name.empty() || name == "." || name == "..") fail("it names a directory, not a file");
    // The temporary's name is the longest one written (NAME_MAX counts bytes); its extra
    // bytes are counted for the widest pid, so the limit does not depend on the run.
    if (name.size() + temporary_extra > NAME_MAX)
        fail("the file name is " + std::to_string(name.size()) + " bytes, more than " +
             std::to_string(NAME_MAX - temporary_extra) + " (NAME_MAX " + std::to_string(NAME_MAX) +
             " less the " + std::to_string(temporary_extra) + " bytes the temporary name adds)");
    const std::string directory = directory_of(path);
    struct stat st {};
    if (::stat(directory.c_str(), &st) != 0)
        fail("directory \"" + directory + "\" " +
             (errno == ENOENT ? std::string("does not exist") : std::strerror(errno)));
    if (!S_ISDIR(st.st_mode)) fail("\"" + directory + "\" is not a directory");
    if (::access(directory.c_str(), W_OK | X_OK) != 0)
        fail("directory \"" + directory + "\" is not writable (" + std::strerror(errno) + ")");
    char resolved[PATH_MAX];
    if (!::realpath(directory.c_str(), resolved))
        fail("directory \"" + directory + "\": " + std::strerror(errno));
    if (std::strlen(resolved) + 1 + name.size() + temporary_extra >= PATH_MAX)
        fail("the path is longer than PATH_MAX (" + std::to_string(PATH_MAX) + " bytes)");
    // A rename would put a regular file in place of whatever is there: refuse anything
    // that is not a regular file, and a link (the rename replaces the link, not its target).
    if (::lstat(path.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode))
            fail("it is a symbolic link (choc would replace the link, not write through it); "
                 "give the path of the file itself");
        if (S_ISDIR(st.st_mode)) fail("it is a directory");
        if (!S_ISREG(st.st_mode))
            fail("it exists and is not a regular file (a device, FIFO or socket); choc writes "
                 "only regular files");
    } else if (errno != ENOENT) {
        fail(std::strerror(errno));
    }
}

int remove_stale_temporaries(const std::string& path) {
    const std::string directory = directory_of(path);
    std::string prefix(1, '.');
    prefix.append(name_of(path)).append(marker);
    DIR* dir = ::opendir(directory.c_str());
    if (!dir) return 0;
    int removed = 0;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name.size() <= prefix.size() + std::strlen(suffix) || name.rfind(prefix, 0) != 0 ||
            !name.ends_with(suffix))
            continue;
        // ".<name>.choc-<pid>-<8 hex>.tmp": only a writer that no longer exists is stale.
        const std::string rest = name.substr(prefix.size());
        char* end = nullptr;
        const long pid = std::strtol(rest.c_str(), &end, 10);
        if (pid <= 0 || *end != '-') continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
        const std::string full = (fs::path(directory) / name).string();
        struct stat st {};
        if (::lstat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(full.c_str()) == 0)
            ++removed;
    }
    ::closedir(dir);
    return removed;
}

void write_file_atomically(const std::string& path, const std::string& content,
                           const std::string& key) {
    AtomicOutput out(path, key);
    out.stream() << content;
    out.commit();
}

void write_file_durably(const std::string& path, const std::string& content,
                        const std::string& key) {
    AtomicOutput out(path, key);
    out.stream() << content;
    out.finish();
    sync_path(out.temporary(), key, path);
    out.publish();
    sync_path(directory_of(path), key, path);
}

AtomicOutput::AtomicOutput(std::string path, std::string key, std::optional<InPlace> in_place)
    : path_(std::move(path)), key_(std::move(key)), in_place_(in_place.has_value()) {
    if (!in_place_) {
        temporary_ = create_temporary(path_, key_);
        out_.open(temporary_, std::ios::binary | std::ios::trunc);
        if (!out_) fail(std::strerror(errno));
        return;
    }
    temporary_ = path_;
    if (!in_place->resume) {
        out_.open(path_, std::ios::binary | std::ios::trunc);
        if (!out_) fail(std::strerror(errno));
        return;
    }
    // Continuing: the file must be the one the mark was taken of, at least as long (it
    // may hold what was written after the checkpoint), then cut back to the mark.
    const OutputMark& at = *in_place->resume;
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0)
        fail("the run to continue wrote it, but it cannot be found (" +
             std::string(std::strerror(errno)) + ")");
    if (static_cast<std::uint64_t>(st.st_size) < at.bytes)
        fail("it holds " + std::to_string(st.st_size) + " bytes, fewer than the " +
             std::to_string(at.bytes) +
             " the checkpoint covers: it is not the file of the run "
             "to continue");
    // The whole of it up to the mark: one read of the file per continuation.
    const auto crc = extend_crc32_from(path_, 0, 0, at.bytes);
    if (!crc) fail("it cannot be read back (" + std::string(std::strerror(errno)) + ")");
    if (*crc != at.crc)
        fail("its content up to the checkpoint is not what the run to continue wrote (its "
             "CRC-32 over the " +
             std::to_string(at.bytes) + " bytes the checkpoint covers differs)");
    crc_ = at.crc;
    summed_ = at.bytes;
    if (::truncate(path_.c_str(), static_cast<off_t>(at.bytes)) != 0) fail(std::strerror(errno));
    // (in | out: no truncation, and tellp() counts from the start, as mark() needs)
    out_.open(path_, std::ios::binary | std::ios::in | std::ios::out);
    if (!out_) fail(std::strerror(errno));
    out_.seekp(0, std::ios::end);
}

OutputMark AtomicOutput::mark() {
    out_.flush();
    check();
    sync_path(path_, key_, path_);
    OutputMark m;
    m.bytes = static_cast<std::uint64_t>(out_.tellp());
    // Only what was written since the last mark is read back (from the page cache, just
    // written): the checksum costs one more pass over each byte, once.
    const auto crc = extend_crc32_from(path_, crc_, summed_, m.bytes);
    if (!crc) fail("it cannot be read back (" + std::string(std::strerror(errno)) + ")");
    crc_ = m.crc = *crc;
    summed_ = m.bytes;
    return m;
}

AtomicOutput::~AtomicOutput() {
    if (published_ || in_place_) return;
    out_.close();
    ::unlink(temporary_.c_str());
}

void AtomicOutput::fail(const std::string& reason) {
    throw InputError(label(key_, path_) + ": " + reason);
}

void AtomicOutput::check() {
    if (!out_) fail("write failed (" + std::string(std::strerror(errno)) + ")");
}

void AtomicOutput::finish() {
    if (finished_) return;
    out_.flush();
    check();
    out_.close();
    if (out_.fail()) fail("write failed (" + std::string(std::strerror(errno)) + ")");
    finished_ = true;
}

void AtomicOutput::publish() {
    finish();
    if (in_place_) {
        published_ = true;
        return;
    }
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) fail(std::strerror(errno));
    published_ = true;
}

} // namespace choc
