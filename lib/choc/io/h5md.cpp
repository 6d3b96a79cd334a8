// H5MD 1.1 with the HDF5 C API (Debian's libhdf5-dev). Every HDF5 object is held by a
// move-only Handle that closes it, so no path (an error included) leaks an identifier;
// the file is opened with the "strong" close degree as well, so closing the file closes
// whatever might still be open in it.
//
// Storage: every time-dependent dataset is chunked and extensible along time only, with
// shuffle + deflate level 4 (shuffle groups the bytes of the doubles by significance, which
// deflate then packs far better than raw doubles). Positions and velocities take one frame
// per chunk (a frame of many particles split into chunks of at most
// `chunk_particles`, so that a chunk stays below a megabyte); the small per-sample records
// (step, time, box edges, observables) take `chunk_scalars` samples per chunk. The file is written
// in the HDF5 1.8 format (superblock 2, which H5MD recommends), which every HDF5 from 1.8 on reads.
#include "choc/io/h5md.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/io/h5md_journal.hpp"
#include "choc/io/xyz.hpp"
#include "choc/message_text.hpp"
#include "choc/run/interrupt.hpp"
#include "choc_commit.hpp"
#include "choc_version.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <string>
#include <utility>

namespace choc {
namespace {

// Particles per chunk of a frame: 32768 * 3 doubles = 768 KiB.
constexpr hsize_t chunk_particles = 32768;
// Records per chunk of a one-number-per-sample dataset (step, time, scalar observables).
constexpr hsize_t chunk_scalars = 1024;
constexpr unsigned deflate_level = 4;

// The names of the time-series observables (TimeSeriesRow) under /observables, in order.
constexpr const char* scalar_observables[] = {"collisions_per_particle",
                                              "temperature",
                                              "Z",
                                              "kurtosis",
                                              "ks_distance",
                                              "ks_pvalue",
                                              "H",
                                              "msd"};

} // namespace

// Outside the anonymous namespace: H5mdFile::State holds handles, and a type of another
// linkage in its members is an error where this source is compiled inside a unity file.
class Handle {
  public:
    using Closer = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Closer close) : id_(id), close_(close) {}
    Handle(Handle&& other) noexcept
        : id_(std::exchange(other.id_, H5I_INVALID_HID)), close_(other.close_) {}
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, H5I_INVALID_HID);
            close_ = other.close_;
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }
    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    // Closes now; the status (negative on failure).
    herr_t reset() {
        herr_t status = 0;
        if (id_ >= 0) status = close_(id_);
        id_ = H5I_INVALID_HID;
        return status;
    }

  private:
    hid_t id_ = H5I_INVALID_HID;
    Closer close_ = nullptr;
};

namespace {

// What the innermost entry of HDF5's error stack says about the system call that failed
// ("Permission denied", "No space left on device"), else the outermost description.
herr_t collect_error(unsigned n, const H5E_error2_t* entry, void* data) {
    auto* out = static_cast<std::pair<std::string, std::string>*>(data);
    const std::string desc = entry->desc ? entry->desc : "";
    if (n == 0) out->first = desc;
    const auto at = desc.find("error message = '");
    if (at != std::string::npos) {
        const auto start = at + std::strlen("error message = '");
        out->second = desc.substr(start, desc.find('\'', start) - start);
    }
    return 0;
}

std::string hdf5_reason() {
    std::pair<std::string, std::string> found;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &found);
    H5Eclear2(H5E_DEFAULT);
    if (!found.second.empty()) return found.second;
    return found.first.empty() ? std::string("HDF5 error") : "HDF5: " + found.first;
}

// The login name for /h5md/author (H5MD requires an author).
std::string author_name() {
    if (const passwd* entry = ::getpwuid(::geteuid()); entry && entry->pw_name)
        return entry->pw_name;
    return "unknown";
}

// Variable-length strings of a file are read without HDF5's global-heap code. HDF5 1.10.8
// trusts the heap collections it reads: one whose free-space object has size 0 makes it
// loop for ever inside H5Aread (H5HG_read: the collection's parser never moves on; found by
// fuzz_h5md, a hang of init.from that SIGTERM could not end), and an object index past the
// collection's objects is read out of bounds (H5HG_read only asserts it). So an attribute
// of variable-length strings is read as the references HDF5 stores for it (a conversion
// that leaves the stored bytes as they are: length, collection address, object index),
// and choc looks the strings up in the collections itself, every size checked against the
// collection and the file.
constexpr const char* stored_reference_tag = "choc: variable-length string as stored";
// length (4 bytes), the collection's address (8: choc's files have 8-byte offsets), index (4)
constexpr std::size_t stored_reference_size = 16;

herr_t keep_stored_reference(hid_t source, hid_t destination, H5T_cdata_t* cdata, size_t, size_t,
                             size_t, void*, void*, hid_t) {
    switch (cdata->command) {
    case H5T_CONV_INIT: {
        if (H5Tis_variable_str(source) <= 0 || H5Tget_size(source) != stored_reference_size ||
            H5Tget_class(destination) != H5T_OPAQUE ||
            H5Tget_size(destination) != stored_reference_size)
            return -1;
        char* tag = H5Tget_tag(destination);
        const bool ours = tag && std::strcmp(tag, stored_reference_tag) == 0;
        H5free_memory(tag);
        if (!ours) return -1;
        cdata->need_bkg = H5T_BKG_NO;
        return 0;
    }
    case H5T_CONV_CONV: // the stored bytes as they are, in place (the same size)
    case H5T_CONV_FREE:
        return 0;
    default:
        return -1;
    }
}

// The memory type an attribute of variable-length strings is read into as stored
// references (the conversion registered once; HDF5 keeps only the types' classes of it).
hid_t stored_reference_type() {
    static const bool registered = [] {
        const hid_t opaque = H5Tcreate(H5T_OPAQUE, stored_reference_size);
        const hid_t string = H5Tcopy(H5T_C_S1);
        const bool done = opaque >= 0 && string >= 0 && H5Tset_size(string, H5T_VARIABLE) >= 0 &&
                          H5Tregister(H5T_PERS_SOFT, "choc_stored_string", string, opaque,
                                      keep_stored_reference) >= 0;
        if (string >= 0) H5Tclose(string);
        if (opaque >= 0) H5Tclose(opaque);
        return done;
    }();
    if (!registered) return -1;
    const hid_t type = H5Tcreate(H5T_OPAQUE, stored_reference_size);
    if (type >= 0 && H5Tset_tag(type, stored_reference_tag) < 0) {
        H5Tclose(type);
        return -1;
    }
    return type;
}

std::uint64_t little_endian(const unsigned char* p, int bytes) {
    std::uint64_t value = 0;
    for (int k = bytes - 1; k >= 0; --k) value = value << 8 | p[k];
    return value;
}

// choc's HDF5 file driver for a trajectory written in place (a checkpointed run): POSIX I/O
// as HDF5's default "sec2" driver does it, with two differences, both for the file's undo
// journal (h5md_journal.hpp says why a killed run's file needs one): every write first hands
// the bytes it replaces below the last mark to the journal (and does not happen if they
// cannot be journaled), and the file is never cut shorter than at the last mark (HDF5 cuts
// it to its allocated size when it flushes; bytes past that are ignored by every reader).
// The files it writes are plain HDF5 files: nothing of the driver is stored in them.
struct JournalDriverInfo {
    H5mdJournal* journal = nullptr;
};

struct JournalFile {
    H5FD_t public_part{}; // first: HDF5 sees the struct as its H5FD_t
    int fd = -1;
    haddr_t eoa = 0, eof = 0;
    dev_t device{};
    ino_t inode{};
    H5mdJournal* journal = nullptr;
};

JournalFile* as_file(H5FD_t* f) {
    return reinterpret_cast<JournalFile*>(f);
}
const JournalFile* as_file(const H5FD_t* f) {
    return reinterpret_cast<const JournalFile*>(f);
}

// An HDF5 error naming the system's reason as sec2 does ("error message = '...'", which
// hdf5_reason() finds).
herr_t driver_error(const char* function, const char* what, int error) {
    H5Epush2(H5E_DEFAULT, __FILE__, function, __LINE__, H5E_ERR_CLS, H5E_VFL, H5E_WRITEERROR,
             "%s, errno = %d, error message = '%s'", what, error, std::strerror(error));
    return -1;
}

void* journal_fapl_copy(const void* info) {
    return new (std::nothrow) JournalDriverInfo(*static_cast<const JournalDriverInfo*>(info));
}
herr_t journal_fapl_free(void* info) {
    delete static_cast<JournalDriverInfo*>(info);
    return 0;
}
void* journal_fapl_get(H5FD_t* f) {
    return new (std::nothrow) JournalDriverInfo{as_file(f)->journal};
}

H5FD_t* journal_open(const char* name, unsigned flags, hid_t fapl, haddr_t) {
    const auto* info = static_cast<const JournalDriverInfo*>(H5Pget_driver_info(fapl));
    int open_flags = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_TRUNC) open_flags |= O_TRUNC;
    if (flags & H5F_ACC_CREAT) open_flags |= O_CREAT;
    if (flags & H5F_ACC_EXCL) open_flags |= O_EXCL;
    const int fd = ::open(name, open_flags | O_CLOEXEC, 0666);
    if (fd < 0) {
        driver_error("journal_open", "unable to open file", errno);
        return nullptr;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int error = errno;
        ::close(fd);
        driver_error("journal_open", "unable to fstat file", error);
        return nullptr;
    }
    auto* f = new (std::nothrow) JournalFile;
    if (!f) {
        ::close(fd);
        driver_error("journal_open", "no memory for the file", ENOMEM);
        return nullptr;
    }
    f->fd = fd;
    f->eof = static_cast<haddr_t>(st.st_size);
    f->device = st.st_dev;
    f->inode = st.st_ino;
    f->journal = info ? info->journal : nullptr;
    return &f->public_part;
}

herr_t journal_close(H5FD_t* file) {
    JournalFile* f = as_file(file);
    const int status = ::close(f->fd);
    const int error = errno;
    delete f;
    return status == 0 ? 0 : driver_error("journal_close", "unable to close file", error);
}

int journal_cmp(const H5FD_t* a, const H5FD_t* b) {
    const JournalFile *f = as_file(a), *g = as_file(b);
    if (f->device != g->device) return f->device < g->device ? -1 : 1;
    if (f->inode != g->inode) return f->inode < g->inode ? -1 : 1;
    return 0;
}

herr_t journal_query(const H5FD_t*, unsigned long* flags) {
    // sec2's features but SWMR (a journaled file is written by one run, read after it)
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE |
             H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
    return 0;
}

haddr_t journal_get_eoa(const H5FD_t* f, H5FD_mem_t) {
    return as_file(f)->eoa;
}
herr_t journal_set_eoa(H5FD_t* f, H5FD_mem_t, haddr_t address) {
    as_file(f)->eoa = address;
    return 0;
}
haddr_t journal_get_eof(const H5FD_t* f, H5FD_mem_t) {
    return as_file(f)->eof;
}
herr_t journal_get_handle(H5FD_t* f, hid_t, void** handle) {
    *handle = &as_file(f)->fd;
    return 0;
}

herr_t journal_read(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t address, size_t size, void* out) {
    const JournalFile* f = as_file(file);
    if (address == HADDR_UNDEF || address + size < address)
        return driver_error("journal_read", "address out of range", EINVAL);
    auto* data = static_cast<char*>(out);
    while (size > 0) {
        const ssize_t n = ::pread(f->fd, data, size, static_cast<off_t>(address));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return driver_error("journal_read", "file read failed", errno);
        if (n == 0) { // past the end of the file: zeros, as sec2 gives
            std::memset(data, 0, size);
            break;
        }
        data += n, size -= static_cast<size_t>(n), address += static_cast<haddr_t>(n);
    }
    return 0;
}

herr_t journal_write(H5FD_t* file, H5FD_mem_t, hid_t, haddr_t address, size_t size,
                     const void* in) {
    JournalFile* f = as_file(file);
    if (address == HADDR_UNDEF || address + size < address)
        return driver_error("journal_write", "address out of range", EINVAL);
    if (f->journal && !f->journal->before_write(f->fd, address, size))
        return driver_error("journal_write", "cannot journal the bytes the write replaces", errno);
    const auto* data = static_cast<const char*>(in);
    while (size > 0) {
        const ssize_t n = ::pwrite(f->fd, data, size, static_cast<off_t>(address));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return driver_error("journal_write", "file write failed", n < 0 ? errno : EIO);
        data += n, size -= static_cast<size_t>(n), address += static_cast<haddr_t>(n);
        f->eof = std::max(f->eof, address);
    }
    return 0;
}

herr_t journal_flush(H5FD_t*, hid_t, hbool_t) {
    return 0; // H5mdFile::flush syncs the file itself
}

herr_t journal_truncate(H5FD_t* file, hid_t, hbool_t) {
    JournalFile* f = as_file(file);
    const haddr_t length = std::max<haddr_t>(f->eoa, f->journal ? f->journal->keep_length() : 0);
    if (length == f->eof) return 0;
    if (::ftruncate(f->fd, static_cast<off_t>(length)) != 0)
        return driver_error("journal_truncate", "unable to extend or truncate file", errno);
    f->eof = length;
    return 0;
}

// Where the file system has no locks, the file goes unlocked (the run's own output lock,
// output_lock.hpp, still excludes a second run).
herr_t journal_lock(H5FD_t* file, hbool_t writing) {
    if (::flock(as_file(file)->fd, (writing ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) return 0;
    if (errno == ENOSYS || errno == ENOLCK || errno == EOPNOTSUPP) return 0;
    return driver_error("journal_lock", "unable to lock file", errno);
}
herr_t journal_unlock(H5FD_t* file) {
    if (::flock(as_file(file)->fd, LOCK_UN) == 0) return 0;
    if (errno == ENOSYS || errno == ENOLCK || errno == EOPNOTSUPP) return 0;
    return driver_error("journal_unlock", "unable to unlock file", errno);
}

const H5FD_class_t journal_driver_class = {
    "choc_journal",                              // name
    (haddr_t{1} << (8 * sizeof(off_t) - 1)) - 1, // maxaddr, as sec2's
    H5F_CLOSE_WEAK,                              // fc_degree
    nullptr,                                     // terminate
    nullptr,                                     // sb_size: nothing of the driver in the file
    nullptr,                                     // sb_encode
    nullptr,                                     // sb_decode
    sizeof(JournalDriverInfo),                   // fapl_size
    journal_fapl_get,
    journal_fapl_copy,
    journal_fapl_free,
    0,       // dxpl_size
    nullptr, // dxpl_copy
    nullptr, // dxpl_free
    journal_open,
    journal_close,
    journal_cmp,
    journal_query,
    nullptr, // get_type_map
    nullptr, // alloc
    nullptr, // free
    journal_get_eoa,
    journal_set_eoa,
    journal_get_eof,
    journal_get_handle,
    journal_read,
    journal_write,
    journal_flush,
    journal_truncate,
    journal_lock,
    journal_unlock,
    H5FD_FLMAP_DICHOTOMY,
};

// The driver's identifier, registered once (never unregistered: HDF5's clean-up at exit is
// off, quiet_hdf5()).
hid_t journal_driver() {
    static const hid_t id = H5FDregister(&journal_driver_class);
    return id;
}

} // namespace

// One open file and everything in it that the writer touches.
struct H5mdFile::State {
    std::string shown; // the name errors give
    std::string path;  // the file (strings are read from it directly: read_strings)
    int dimension = 3;
    hsize_t particles = 0;
    // A file written in place: its undo journal, which the driver uses until the file is
    // closed (so declared before it, and destroyed after it).
    std::unique_ptr<H5mdJournal> journal;
    Handle file;
    std::uint64_t frames = 0, rows = 0;
    std::vector<double> position, velocity; // one frame's buffers
    std::vector<std::int64_t> image;

    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(std::string(key) + ": \"" + escaped(shown) + "\": " + what);
    }
    [[noreturn]] void fail_hdf5(const std::string& what) const {
        fail(what + " (" + hdf5_reason() + ")");
    }
    hid_t check(hid_t id, const std::string& what) const {
        if (id < 0) fail_hdf5(what);
        return id;
    }
    void check_status(herr_t status, const std::string& what) const {
        if (status < 0) fail_hdf5(what);
    }
    Handle group(hid_t parent, const char* name, bool create) const {
        const hid_t id = create ? H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)
                                : H5Gopen2(parent, name, H5P_DEFAULT);
        return Handle(check(id, std::string(create ? "cannot create" : "no") + " group " + name),
                      H5Gclose);
    }

    // Attributes: strings are variable-length UTF-8, which h5py returns as str.
    Handle string_type() const {
        Handle type(check(H5Tcopy(H5T_C_S1), "string type"), H5Tclose);
        check_status(H5Tset_size(type.get(), H5T_VARIABLE), "string type");
        check_status(H5Tset_cset(type.get(), H5T_CSET_UTF8), "string type");
        return type;
    }
    void attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                   const std::vector<hsize_t>& dims, const void* data) const {
        Handle space(check(dims.empty() ? H5Screate(H5S_SCALAR)
                                        : H5Screate_simple(static_cast<int>(dims.size()),
                                                           dims.data(), nullptr),
                           std::string("attribute ") + name),
                     H5Sclose);
        if (H5Aexists(object, name) > 0) H5Adelete(object, name);
        Handle attr(
            check(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                  std::string("cannot create attribute ") + name),
            H5Aclose);
        check_status(H5Awrite(attr.get(), memory_type, data),
                     std::string("cannot write attribute ") + name);
    }
    void text(hid_t object, const char* name, const std::string& value) const {
        const char* c = value.c_str();
        const Handle type = string_type();
        attribute(object, name, type.get(), type.get(), {}, &c);
    }
    void texts(hid_t object, const char* name, const std::vector<std::string>& values) const {
        std::vector<const char*> c;
        for (const auto& v : values) c.push_back(v.c_str());
        // HDF5 refuses a null buffer even for no elements (a library call's empty command line)
        const char* none = "";
        const Handle type = string_type();
        attribute(object, name, type.get(), type.get(), {values.size()},
                  c.empty() ? static_cast<const void*>(&none) : c.data());
    }
    // The variable-length strings of attribute `name` of `object`: from `fewest` to `most`
    // of them, each of at most `longest` bytes (read_strings's comment above says how).
    std::vector<std::string> read_strings(hid_t object, const char* name, hssize_t fewest,
                                          hssize_t most, std::size_t longest) const {
        const std::string what = std::string("attribute ") + name;
        Handle attr(check(H5Aopen(object, name, H5P_DEFAULT), "no " + what), H5Aclose);
        Handle stored(check(H5Aget_type(attr.get()), name), H5Tclose);
        if (H5Tget_class(stored.get()) != H5T_STRING || H5Tis_variable_str(stored.get()) <= 0)
            fail(what + " is not a string as choc writes it");
        Handle space(check(H5Aget_space(attr.get()), name), H5Sclose);
        const hssize_t count = H5Sget_simple_extent_npoints(space.get());
        if (count < fewest || count > most)
            fail(what + " holds " + std::to_string(count) + " strings, not " +
                 (fewest == most ? std::to_string(fewest)
                                 : std::to_string(fewest) + " to " + std::to_string(most)));
        const auto n = static_cast<std::size_t>(count);
        std::vector<unsigned char> references(std::max<std::size_t>(n, 1) * stored_reference_size);
        const Handle reference_type(check(stored_reference_type(), "string type"), H5Tclose);
        check_status(H5Aread(attr.get(), reference_type.get(), references.data()),
                     what + " is not a string as choc writes it");
        // The file's layout: 8-byte addresses and lengths (as choc writes), and where its
        // addresses start (a user block before the superblock).
        hsize_t base = 0;
        {
            Handle properties(check(H5Fget_create_plist(file.get()), "file properties"), H5Pclose);
            std::size_t address_size = 0, length_size = 0;
            check_status(H5Pget_sizes(properties.get(), &address_size, &length_size),
                         "file properties");
            check_status(H5Pget_userblock(properties.get(), &base), "file properties");
            if (address_size != 8 || length_size != 8)
                fail("its addresses or lengths are not of 8 bytes, as choc writes them");
        }
        std::ifstream in(path, std::ios::binary);
        in.seekg(0, std::ios::end);
        const auto size = static_cast<std::uint64_t>(std::max<std::streamoff>(in.tellg(), 0));
        if (!in) fail("cannot read " + what);
        auto read_at = [&](std::uint64_t at, void* out, std::size_t bytes) {
            in.seekg(static_cast<std::streamoff>(at));
            in.read(static_cast<char*>(out), static_cast<std::streamsize>(bytes));
            if (!in) fail("cannot read " + what);
        };
        // Each collection read once: its bytes, and where each object's bytes start and end.
        struct Collection {
            std::vector<unsigned char> bytes;
            std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> objects;
        };
        std::map<std::uint64_t, Collection> collections;
        const std::string damaged = what + " is damaged: ";
        std::vector<std::string> strings;
        std::uint64_t total = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const unsigned char* reference = references.data() + k * stored_reference_size;
            const std::uint64_t length = little_endian(reference, 4),
                                address = little_endian(reference + 4, 8),
                                index = little_endian(reference + 12, 4);
            if (length == 0) {
                strings.emplace_back();
                continue;
            }
            if (length > longest)
                fail(what + " has a string of " + std::to_string(length) + " bytes, more than " +
                     std::to_string(longest));
            if (address > size || base > size - address)
                fail(damaged + "a string's heap address lies outside the file");
            const std::uint64_t at = base + address;
            auto found = collections.find(at);
            if (found == collections.end()) {
                // "GCOL", version 1, 3 reserved bytes, the collection's size (header included)
                unsigned char header[16];
                if (size - at < sizeof header) fail(damaged + "a string's heap is cut short");
                read_at(at, header, sizeof header);
                const std::uint64_t bytes = little_endian(header + 8, 8);
                if (std::memcmp(header, "GCOL", 4) != 0 || header[4] != 1 || bytes < 16 ||
                    bytes > size - at || bytes > (std::uint64_t{1} << 30))
                    fail(damaged + "a string's heap is not a heap collection");
                Collection c;
                c.bytes.resize(static_cast<std::size_t>(bytes));
                read_at(at, c.bytes.data(), c.bytes.size());
                // Objects: index (2), references (2), reserved (4), size (8), the bytes
                // padded to 8. They tile the collection: index 0 is the free space, its
                // size counting its header, to the end (or fewer than 16 bytes are left).
                // (HDF5's own parser stops only where the objects end it: one of size 0
                // is the loop it never leaves.)
                for (std::uint64_t o = 16; bytes - o >= 16;) {
                    const std::uint64_t object = little_endian(c.bytes.data() + o, 2),
                                        object_size = little_endian(c.bytes.data() + o + 8, 8);
                    if (object == 0) {
                        if (object_size != bytes - o)
                            fail(damaged + "its heap collection's free space does not fill it");
                        break;
                    }
                    const std::uint64_t padded = (object_size + 7) / 8 * 8;
                    if (object_size > bytes - (o + 16) || padded > bytes - (o + 16))
                        fail(damaged + "an object runs past its heap collection");
                    if (!c.objects.emplace(object, std::pair{o + 16, o + 16 + object_size}).second)
                        fail(damaged + "its heap collection holds an object twice");
                    o += 16 + padded;
                }
                found = collections.emplace(at, std::move(c)).first;
            }
            const auto object = found->second.objects.find(index);
            if (object == found->second.objects.end())
                fail(damaged + "a string's heap object is missing");
            const auto [begin, end] = object->second;
            if (end - begin < length) fail(damaged + "a string is longer than its heap object");
            total += length;
            if (total > (std::uint64_t{1} << 26)) fail(what + " holds more than 64 MiB of strings");
            const auto* text = found->second.bytes.data() + begin;
            strings.emplace_back(reinterpret_cast<const char*>(text),
                                 static_cast<std::size_t>(length));
        }
        return strings;
    }
    std::string read_text(hid_t object, const char* name) const {
        return read_strings(object, name, 1, 1, std::size_t{1} << 26).front();
    }
    std::vector<long long> read_integers(hid_t object, const char* name) const {
        Handle attr(check(H5Aopen(object, name, H5P_DEFAULT), std::string("no attribute ") + name),
                    H5Aclose);
        Handle space(check(H5Aget_space(attr.get()), name), H5Sclose);
        const hssize_t n = H5Sget_simple_extent_npoints(space.get());
        if (n < 1 || n > 16) fail(std::string("attribute ") + name + " has an unexpected shape");
        std::vector<long long> values(static_cast<std::size_t>(n));
        check_status(H5Aread(attr.get(), H5T_NATIVE_LLONG, values.data()), name);
        return values;
    }

    // Shuffle + deflate in chunks of `chunk`.
    Handle compressed(const std::vector<hsize_t>& chunk) const {
        Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "dataset properties"), H5Pclose);
        check_status(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()),
                     "chunked layout");
        check_status(H5Pset_shuffle(dcpl.get()), "shuffle filter");
        check_status(H5Pset_deflate(dcpl.get(), deflate_level), "deflate filter");
        return dcpl;
    }

    // A per-particle dataset that does not change (species, mass, radius).
    void fixed(hid_t parent, const char* name, hid_t file_type, hid_t memory_type,
               const void* data) const {
        const hsize_t n = particles;
        Handle space(check(H5Screate_simple(1, &n, nullptr), name), H5Sclose);
        Handle dcpl = n > 0 ? compressed({std::min(n, chunk_particles)})
                            : Handle(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        Handle set(check(H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(),
                                    H5P_DEFAULT),
                         std::string("cannot create dataset ") + name),
                   H5Dclose);
        if (n > 0)
            check_status(H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
                         std::string("cannot write dataset ") + name);
    }

    // A time-dependent H5MD element: a group with value [samples][record...], step
    // [samples] (integer) and time [samples] (double).
    struct Element {
        std::string name;
        Handle group, value, step, time;
        std::vector<hsize_t> record; // the shape of one sample
        hid_t memory_type = H5T_NATIVE_DOUBLE;
        hsize_t length = 0;
    };

    // `per_particle`: a record is one frame of particles ([N][D]).
    Element create_element(hid_t parent, const char* name, std::vector<hsize_t> record,
                           hid_t file_type, hid_t memory_type, bool per_particle = false) const {
        Element e;
        e.name = name;
        e.group = group(parent, name, true);
        e.record = std::move(record);
        e.memory_type = memory_type;
        auto extensible = [&](const char* dataset, hid_t type, const std::vector<hsize_t>& shape,
                              std::vector<hsize_t> chunk) {
            std::vector<hsize_t> dims{0}, max{H5S_UNLIMITED};
            dims.insert(dims.end(), shape.begin(), shape.end());
            max.insert(max.end(), shape.begin(), shape.end());
            for (auto& c : chunk) c = std::max<hsize_t>(c, 1);
            Handle space(
                check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max.data()),
                      dataset),
                H5Sclose);
            const Handle dcpl = compressed(chunk);
            return Handle(check(H5Dcreate2(e.group.get(), dataset, type, space.get(), H5P_DEFAULT,
                                           dcpl.get(), H5P_DEFAULT),
                                std::string("cannot create dataset ") + name + "/" + dataset),
                          H5Dclose);
        };
        // A frame of particles: one frame per chunk (split if large); anything smaller
        // (a number, box edges, a temperature per species): many samples per chunk.
        std::vector<hsize_t> chunk{per_particle ? 1 : chunk_scalars};
        for (std::size_t a = 0; a < e.record.size(); ++a)
            chunk.push_back(a == 0 && per_particle ? std::min(e.record[0], chunk_particles)
                                                   : e.record[a]);
        e.value = extensible("value", file_type, e.record, chunk);
        e.step = extensible("step", H5T_STD_I64LE, {}, {chunk_scalars});
        e.time = extensible("time", H5T_IEEE_F64LE, {}, {chunk_scalars});
        return e;
    }

    // The length of a dataset along time, and the shape of one record.
    std::vector<hsize_t> shape(const Handle& set, const std::string& what) const {
        Handle space(check(H5Dget_space(set.get()), what), H5Sclose);
        const int rank = H5Sget_simple_extent_ndims(space.get());
        if (rank < 1) fail(what + " is not an array");
        std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
        H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
        return dims;
    }

    Element open_element(hid_t parent, const char* name, hid_t memory_type) const {
        Element e;
        e.name = name;
        e.group = group(parent, name, false);
        e.memory_type = memory_type;
        auto dataset = [&](const char* which) {
            return Handle(check(H5Dopen2(e.group.get(), which, H5P_DEFAULT),
                                std::string("no dataset ") + name + "/" + which),
                          H5Dclose);
        };
        e.value = dataset("value");
        e.step = dataset("step");
        e.time = dataset("time");
        auto dims = shape(e.value, std::string(name) + "/value");
        e.length = dims[0];
        e.record.assign(dims.begin() + 1, dims.end());
        // A run killed between the datasets of one sample leaves them of unequal lengths:
        // only the samples all three hold count.
        e.length = std::min({e.length, shape(e.step, std::string(name) + "/step")[0],
                             shape(e.time, std::string(name) + "/time")[0]});
        return e;
    }

    void resize(Element& e, hsize_t length) const {
        for (const Handle* set : {&e.value, &e.step, &e.time}) {
            std::vector<hsize_t> dims{length};
            if (set == &e.value) dims.insert(dims.end(), e.record.begin(), e.record.end());
            check_status(H5Dset_extent(set->get(), dims.data()),
                         "cannot resize the datasets of " + e.name);
        }
        e.length = length;
    }

    // Appends one sample (`data` holds one record of e.memory_type).
    void append(Element& e, const void* data, std::int64_t step, double time) const {
        const hsize_t at = e.length;
        resize(e, at + 1);
        auto write = [&](const Handle& set, hid_t type, const std::vector<hsize_t>& record,
                         const void* values) {
            std::vector<hsize_t> start(record.size() + 1, 0), count{1};
            start[0] = at;
            count.insert(count.end(), record.begin(), record.end());
            Handle file_space(check(H5Dget_space(set.get()), e.name), H5Sclose);
            check_status(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(),
                                             nullptr, count.data(), nullptr),
                         e.name);
            Handle memory_space(
                check(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                      e.name),
                H5Sclose);
            check_status(H5Dwrite(set.get(), type, memory_space.get(), file_space.get(),
                                  H5P_DEFAULT, values),
                         "cannot write " + e.name);
        };
        write(e.value, e.memory_type, e.record, data);
        write(e.step, H5T_NATIVE_INT64, {}, &step);
        write(e.time, H5T_NATIVE_DOUBLE, {}, &time);
    }

    Handle particles_group, observables_group, parameters_group;
    Element position_element, velocity_element, image_element, edges_element, collisions_element;
    // scalar_observables, then species_temperature, then (with output.crossing) crossed
    std::vector<Element> observables;
    static constexpr std::size_t species_at = std::size(scalar_observables);

    void create_observables(std::size_t species) {
        for (const char* name : scalar_observables)
            observables.push_back(create_element(observables_group.get(), name, {}, H5T_IEEE_F64LE,
                                                 H5T_NATIVE_DOUBLE));
        observables.push_back(create_element(observables_group.get(), "species_temperature",
                                             {species}, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE));
    }
    // The net crossings of output.crossing's plane: a whole number, stored as one.
    void create_crossed() {
        observables.push_back(create_element(observables_group.get(), "crossed", {}, H5T_STD_I64LE,
                                             H5T_NATIVE_INT64));
    }
    bool has_crossed() const { return observables.size() > species_at + 1; }

    // File access: the 1.8 format, and closing the file closes everything in it; a file
    // with a journal goes through the journal's driver.
    Handle access_properties() const {
        Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "file access properties"), H5Pclose);
        check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18),
                     "file format bounds");
        check_status(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG), "file close degree");
        // HDF5 locks the files it opens, and by default fails where the file system has no
        // locks (some NFS set-ups): lock where possible, go on without where not.
        check_status(H5Pset_file_locking(fapl.get(), true, true), "file locking");
        if (journal) {
            const JournalDriverInfo info{journal.get()};
            check_status(H5Pset_driver(fapl.get(), check(journal_driver(), "file driver"), &info),
                         "file driver");
        }
        return fapl;
    }

    // Frame elements: written together, kept at one length.
    std::vector<Element*> frame_elements() {
        return {&position_element, &velocity_element, &image_element, &edges_element,
                &collisions_element};
    }
};

H5mdFile::H5mdFile(std::unique_ptr<State> state) : state_(std::move(state)) {}
H5mdFile::H5mdFile(H5mdFile&&) noexcept = default;
H5mdFile& H5mdFile::operator=(H5mdFile&&) noexcept = default;
H5mdFile::~H5mdFile() = default;

namespace {

// Before the library's first use: no printing of HDF5's error stack (failures become
// InputErrors), and no HDF5 clean-up at exit. A file whose close failed (a full disk: its
// last metadata could not be written) stays half-closed, and HDF5 1.10's exit handler then
// crashes closing it again (SIGSEGV in H5F__close_cb after the `choc: error:` line). Every
// file is closed explicitly before exit, so the handler has nothing of ours to do.
void quiet_hdf5() {
    static const bool once = [] {
        H5dont_atexit();
        return true;
    }();
    (void)once;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

} // namespace

template <int D>
H5mdFile H5mdFile::create(const std::string& file, const std::string& shown, const Box<D>& box,
                          const Particles<D>& particles, const Provenance& provenance,
                          bool observables, bool journaled) {
    quiet_hdf5();
    auto s = std::make_unique<State>();
    s->shown = shown;
    s->path = file;
    s->dimension = D;
    s->particles = particles.size();
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 || H5Zfilter_avail(H5Z_FILTER_SHUFFLE) <= 0)
        s->fail("this HDF5 library has no deflate or shuffle filter");
    // (a new file's journal, whose mark is the empty file, replaces a killed run's)
    if (journaled)
        s->journal = std::make_unique<H5mdJournal>(file, shown, key, H5mdJournal::Mark{});
    {
        const Handle fapl = s->access_properties();
        s->file = Handle(s->check(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()),
                                  "cannot create the file"),
                         H5Fclose);
    }
    const hid_t root = s->file.get();
    const hid_t i32 = H5T_STD_I32LE, f64 = H5T_IEEE_F64LE;

    {
        const Handle h5md = s->group(root, "h5md", true);
        const int version[2] = {1, 1};
        s->attribute(h5md.get(), "version", i32, H5T_NATIVE_INT, {2}, version);
        const Handle author = s->group(h5md.get(), "author", true);
        s->text(author.get(), "name", author_name());
        const Handle creator = s->group(h5md.get(), "creator", true);
        s->text(creator.get(), "name", "choc");
        s->text(creator.get(), "version", choc::version);
    }

    const Handle particles_root = s->group(root, "particles", true);
    s->particles_group = s->group(particles_root.get(), "all", true);
    const hid_t all = s->particles_group.get();
    {
        const Handle box_group = s->group(all, "box", true);
        const int dimension = D;
        s->attribute(box_group.get(), "dimension", i32, H5T_NATIVE_INT, {}, &dimension);
        std::vector<std::string> boundary;
        for (int a = 0; a < D; ++a) boundary.push_back(box.periodic[a] ? "periodic" : "none");
        s->texts(box_group.get(), "boundary", boundary);
        // Edges as a time-dependent element (one per frame, though the box is fixed) and
        // as the D x D matrix of the box vectors (diagonal) rather than the vector of
        // lengths, both of which H5MD allows: MDAnalysis (2.4) reads only
        // box/edges/value, and only as a matrix.
        s->edges_element =
            s->create_element(box_group.get(), "edges", {D, D}, f64, H5T_NATIVE_DOUBLE);
    }
    const hsize_t n = particles.size(), d = D;
    s->position_element = s->create_element(all, "position", {n, d}, f64, H5T_NATIVE_DOUBLE, true);
    s->velocity_element = s->create_element(all, "velocity", {n, d}, f64, H5T_NATIVE_DOUBLE, true);
    // H5MD's periodic image of each particle: position + image * edges is unwrapped.
    s->image_element =
        s->create_element(all, "image", {n, d}, H5T_STD_I64LE, H5T_NATIVE_INT64, true);
    std::vector<int> species;
    std::vector<double> mass, radius;
    for (std::uint32_t i = 0; i < particles.size(); ++i) {
        species.push_back(static_cast<int>(particles.state[i].species));
        mass.push_back(particles.mass(i));
        radius.push_back(particles.radius(i));
    }
    s->fixed(all, "species", i32, H5T_NATIVE_INT, species.data());
    s->fixed(all, "mass", f64, H5T_NATIVE_DOUBLE, mass.data());
    s->fixed(all, "radius", f64, H5T_NATIVE_DOUBLE, radius.data());

    s->observables_group = s->group(root, "observables", true);
    s->collisions_element = s->create_element(s->observables_group.get(), "collisions", {},
                                              H5T_STD_I64LE, H5T_NATIVE_INT64);
    if (observables) s->create_observables(particles.table.size());

    const Handle parameters = s->group(root, "parameters", true);
    s->parameters_group = s->group(parameters.get(), "choc", true);
    const hid_t p = s->parameters_group.get();
    s->text(p, "choc_version", choc::version);
    s->text(p, "git_commit", choc::git_commit);
    s->text(p, "config", provenance.config);
    const unsigned long long seed = provenance.seed;
    s->attribute(p, "seed", H5T_STD_U64LE, H5T_NATIVE_ULLONG, {}, &seed);
    s->texts(p, "command_line", provenance.command_line);
    s->text(p, "started", provenance.started);
    s->text(p, "host", provenance.host);
    std::vector<std::string> names;
    for (const auto& sp : particles.table.species) names.push_back(sp.name);
    s->texts(p, "species_names", names);
    return H5mdFile(std::move(s));
}

namespace {

// Opens the H5MD layout of the file open in `s` (written by create()) and checks it: H5MD
// 1.1 by choc, `dimension` and `particles` as the run's, at least `keep_frames` complete
// frames and `keep_rows` time-series rows.
void open_layout(H5mdFile::State& s, int dimension, std::uint64_t particles,
                 std::uint64_t keep_frames, std::uint64_t keep_rows) {
    const hid_t root = s.file.get();
    auto expect = [&](bool ok, const std::string& what) {
        if (!ok) s.fail("not an H5MD trajectory written by choc: " + what);
    };
    expect(H5Lexists(root, "h5md", H5P_DEFAULT) > 0, "no /h5md group");
    {
        const Handle h5md = s.group(root, "h5md", false);
        expect(s.read_integers(h5md.get(), "version") == std::vector<long long>{1, 1},
               "/h5md version is not [1, 1]");
        expect(H5Lexists(h5md.get(), "creator", H5P_DEFAULT) > 0, "no /h5md/creator");
        const Handle creator = s.group(h5md.get(), "creator", false);
        expect(s.read_text(creator.get(), "name") == "choc", "/h5md/creator name is not choc");
    }
    expect(H5Lexists(root, "particles", H5P_DEFAULT) > 0 &&
               H5Lexists(root, "particles/all", H5P_DEFAULT) > 0,
           "no /particles/all");
    s.particles_group = s.group(root, "particles/all", false);
    const hid_t all = s.particles_group.get();
    const Handle box = s.group(all, "box", false);
    const auto stored_dimension = s.read_integers(box.get(), "dimension");
    if (stored_dimension != std::vector<long long>{dimension})
        s.fail("the file holds a " + std::to_string(stored_dimension[0]) +
               "D trajectory, the run is " + std::to_string(dimension) + "D");
    s.position_element = s.open_element(all, "position", H5T_NATIVE_DOUBLE);
    s.velocity_element = s.open_element(all, "velocity", H5T_NATIVE_DOUBLE);
    s.image_element = s.open_element(all, "image", H5T_NATIVE_INT64);
    s.edges_element = s.open_element(box.get(), "edges", H5T_NATIVE_DOUBLE);
    const auto& record = s.position_element.record;
    if (record.size() != 2 || record[1] != static_cast<hsize_t>(dimension))
        s.fail("position/value is not [frames][N][" + std::to_string(dimension) + "]");
    if (record[0] != particles)
        s.fail("the file holds " + std::to_string(record[0]) + " particles, the run has " +
               std::to_string(particles));
    s.observables_group = s.group(root, "observables", false);
    s.collisions_element =
        s.open_element(s.observables_group.get(), "collisions", H5T_NATIVE_INT64);
    const hid_t obs = s.observables_group.get();
    if (H5Lexists(obs, "temperature", H5P_DEFAULT) > 0) {
        for (const char* name : scalar_observables)
            s.observables.push_back(s.open_element(obs, name, H5T_NATIVE_DOUBLE));
        s.observables.push_back(s.open_element(obs, "species_temperature", H5T_NATIVE_DOUBLE));
        if (H5Lexists(obs, "crossed", H5P_DEFAULT) > 0)
            s.observables.push_back(s.open_element(obs, "crossed", H5T_NATIVE_INT64));
    }
    s.parameters_group = s.group(root, "parameters/choc", false);

    std::uint64_t frames = ~std::uint64_t{0}, rows = s.observables.empty() ? 0 : frames;
    for (auto* e : s.frame_elements()) frames = std::min<std::uint64_t>(frames, e->length);
    for (const auto& e : s.observables) rows = std::min<std::uint64_t>(rows, e.length);
    if (frames < keep_frames)
        s.fail("it holds " + std::to_string(frames) + " complete frames, fewer than the " +
               std::to_string(keep_frames) + " to keep");
    if (rows < keep_rows)
        s.fail("it holds " + std::to_string(rows) + " complete time-series rows, fewer than the " +
               std::to_string(keep_rows) + " to keep");
}

} // namespace

H5mdFile H5mdFile::reopen(const std::string& file, const std::string& shown, int dimension,
                          std::uint64_t particles, const OutputMark& mark) {
    quiet_hdf5();
    auto s = std::make_unique<State>();
    s->shown = shown;
    s->path = file;
    s->dimension = dimension;
    s->particles = particles;
    // A killed run's file is never read with HDF5 as it was left (h5md_journal.hpp says
    // why): it first gets back the bytes it had at the checkpoint, checked against the
    // checkpoint's CRC-32, which HDF5 itself flushed whole. Refused, it is left as it was.
    const H5mdJournal::Mark at{mark.bytes, mark.crc};
    restore_h5md(file, shown, key, at);
    if (H5Fis_hdf5(file.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        s->fail("not an HDF5 file (or it cannot be read)");
    }
    s->journal = std::make_unique<H5mdJournal>(file, shown, key, at);
    {
        const Handle fapl = s->access_properties();
        s->file = Handle(
            s->check(H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl.get()), "cannot open the file"),
            H5Fclose);
    }
    open_layout(*s, dimension, particles, mark.frames, mark.rows);
    // (the file's samples are the mark's: the frames and rows after it went with the bytes
    // after it; a file marked between the datasets of a sample is cut to the mark)
    for (auto* e : s->frame_elements()) s->resize(*e, mark.frames);
    for (auto& e : s->observables) s->resize(e, mark.rows);
    s->frames = mark.frames;
    s->rows = mark.rows;
    return H5mdFile(std::move(s));
}

XyzFrame H5mdFile::last_frame(const std::string& file, const std::string& from_key,
                              std::uint64_t most_particles) {
    quiet_hdf5();
    State s;
    s.shown = file;
    s.path = file;
    auto fail = [&](const std::string& what) -> InputError {
        return InputError(from_key + ": \"" + escaped(file) + "\": " + what);
    };
    // Inside HDF5 no flag is polled: in `choc run`, SIGINT or SIGTERM end the process here.
    const ExitOnInterrupt section("reading " + from_key + " \"" + escaped(file) + "\"");
    // Test hook: CHOC_TEST_HDF5_STALL holds the read here for ever, as a read that never
    // returns from HDF5 would (tests/cli/cli_h5md.py, DEVELOPING).
    if (std::getenv("CHOC_TEST_HDF5_STALL")) {
        const char held[] = "choc: CHOC_TEST_HDF5_STALL: the read is held\n";
        (void)!::write(STDERR_FILENO, held, sizeof held - 1);
        for (;;) ::pause();
    }
    if (H5Fis_hdf5(file.c_str()) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        throw fail("not an HDF5 file (or it cannot be read)");
    }
    try {
        {
            const Handle fapl = s.access_properties();
            s.file = Handle(
                s.check(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl.get()), "cannot open the file"),
                H5Fclose);
        }
        const hid_t root = s.file.get();
        if (H5Lexists(root, "h5md", H5P_DEFAULT) <= 0 ||
            H5Lexists(root, "particles", H5P_DEFAULT) <= 0 ||
            H5Lexists(root, "particles/all", H5P_DEFAULT) <= 0 ||
            H5Lexists(root, "parameters", H5P_DEFAULT) <= 0 ||
            H5Lexists(root, "parameters/choc", H5P_DEFAULT) <= 0)
            throw fail("not an H5MD trajectory written by choc");
        const Handle all = s.group(root, "particles/all", false);
        const Handle box = s.group(all.get(), "box", false);
        XyzFrame f;
        const auto dimension = s.read_integers(box.get(), "dimension");
        if (dimension.size() != 1 || (dimension[0] != 2 && dimension[0] != 3))
            throw fail("box dimension is not 2 or 3");
        f.dimension = static_cast<int>(dimension[0]);
        const auto d = static_cast<hsize_t>(f.dimension);
        // A dataset's shape, and a read of one record (the last along the first axis).
        auto open = [&](hid_t parent, const char* name) {
            return Handle(s.check(H5Dopen2(parent, name, H5P_DEFAULT), std::string("no ") + name),
                          H5Dclose);
        };
        auto shape = [&](const Handle& set) {
            Handle space(s.check(H5Dget_space(set.get()), "dataspace"), H5Sclose);
            const int rank = H5Sget_simple_extent_ndims(space.get());
            std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
            if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
            return dims;
        };
        hsize_t file_bytes = 0;
        if (H5Fget_filesize(root, &file_bytes) < 0) throw fail("cannot get its size");
        // A damaged chunk index may declare a stored chunk of any size, and HDF5 allocates
        // that much to read it (4 GB, found by fuzz_h5md): every chunk a read touches must
        // lie in the file, so one larger than the file is refused first.
        auto check_chunks = [&](const Handle& set, const std::vector<hsize_t>& start,
                                const std::vector<hsize_t>& count) {
            const Handle plist(s.check(H5Dget_create_plist(set.get()), "dataset properties"),
                               H5Pclose);
            if (H5Pget_layout(plist.get()) != H5D_CHUNKED) return;
            const auto rank = static_cast<int>(start.size());
            std::vector<hsize_t> chunk(start.size()), at(start.size());
            if (H5Pget_chunk(plist.get(), rank, chunk.data()) != rank ||
                std::find(chunk.begin(), chunk.end(), hsize_t{0}) != chunk.end())
                throw fail("a dataset's chunks are damaged");
            for (int a = 0; a < rank; ++a) at[a] = start[a] / chunk[a] * chunk[a];
            for (;;) { // every chunk of the selection, the last axis fastest
                unsigned filters = 0;
                haddr_t address = 0;
                hsize_t bytes = 0;
                if (H5Dget_chunk_info_by_coord(set.get(), at.data(), &filters, &address, &bytes) <
                        0 ||
                    bytes > file_bytes)
                    throw fail("a dataset's chunk is damaged (larger than the file)");
                int a = rank - 1;
                for (; a >= 0; --a) {
                    at[a] += chunk[a];
                    if (at[a] < start[a] + count[a]) break;
                    at[a] = start[a] / chunk[a] * chunk[a];
                }
                if (a < 0) return;
            }
        };
        auto read_record = [&](const Handle& set, hsize_t index, hid_t type, void* out) {
            auto dims = shape(set);
            Handle space(s.check(H5Dget_space(set.get()), "dataspace"), H5Sclose);
            std::vector<hsize_t> start(dims.size(), 0), count = dims;
            start[0] = index;
            count[0] = 1;
            check_chunks(set, start, count);
            s.check_status(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                               count.data(), nullptr),
                           "selection");
            Handle memory(
                s.check(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                        "memory space"),
                H5Sclose);
            s.check_status(H5Dread(set.get(), type, memory.get(), space.get(), H5P_DEFAULT, out),
                           "cannot read the frame");
        };
        const Handle position = open(all.get(), "position/value");
        const Handle velocity = open(all.get(), "velocity/value");
        const Handle times = open(all.get(), "position/time");
        const Handle edges = open(box.get(), "edges/value");
        const auto p_shape = shape(position);
        if (p_shape.size() != 3 || p_shape[2] != d || shape(velocity) != p_shape)
            throw fail("position and velocity are not [frames][N][" + std::to_string(d) + "]");
        const hsize_t frames = std::min({p_shape[0], shape(times)[0], shape(edges)[0]});
        if (frames == 0) throw fail("the trajectory holds no frame");
        const hsize_t n = p_shape[1], last = frames - 1;
        if (n > most_particles)
            throw fail("its last frame holds " + std::to_string(n) + " particles, more than the " +
                       std::to_string(most_particles) + " of the config's [[species]]");
        std::vector<double> x, v, edge(d * d);
        try {
            x.resize(n * d), v.resize(n * d);
        } catch (const std::bad_alloc&) {
            throw fail("not enough memory for its last frame of " + std::to_string(n) +
                       " particles");
        }
        read_record(position, last, H5T_NATIVE_DOUBLE, x.data());
        read_record(velocity, last, H5T_NATIVE_DOUBLE, v.data());
        read_record(times, last, H5T_NATIVE_DOUBLE, &f.time);
        if (shape(edges) != std::vector<hsize_t>{shape(edges)[0], d, d})
            throw fail("box edges are not [frames][D][D]");
        read_record(edges, last, H5T_NATIVE_DOUBLE, edge.data());
        // choc's boxes are rectangular, as XYZ's Lattice= must be
        for (hsize_t a = 0; a < d; ++a)
            for (hsize_t b = 0; b < d; ++b)
                if (a != b && edge[a * d + b] != 0.0)
                    throw fail("particles/all/box/edges: the last frame's box is not diagonal "
                               "(entry [" +
                               std::to_string(a) + "][" + std::to_string(b) + "] is " +
                               number_text(edge[a * d + b]) + "): choc's boxes are rectangular");
        f.box = {1.0, 1.0, 1.0};
        for (hsize_t a = 0; a < d; ++a) f.box[a] = edge[a * d + a];
        // boundary: "periodic" | "none" per axis
        const auto boundary = s.read_strings(box.get(), "boundary", static_cast<hssize_t>(d),
                                             static_cast<hssize_t>(d), 64);
        for (hsize_t a = 0; a < d; ++a) f.periodic[a] = boundary[a] == "periodic";
        // species names, then every particle's species, mass and radius
        const Handle parameters = s.group(root, "parameters/choc", false);
        const auto names =
            s.read_strings(parameters.get(), "species_names", 1, hssize_t{1} << 20, 1 << 16);
        std::vector<int> species(n);
        f.mass.resize(n);
        f.radius.resize(n);
        for (const auto& [name, type, out] :
             {std::tuple{"species", H5T_NATIVE_INT, static_cast<void*>(species.data())},
              {"mass", H5T_NATIVE_DOUBLE, static_cast<void*>(f.mass.data())},
              {"radius", H5T_NATIVE_DOUBLE, static_cast<void*>(f.radius.data())}}) {
            const Handle set = open(all.get(), name);
            if (shape(set) != std::vector<hsize_t>{n})
                throw fail(std::string(name) + " does not have one value per particle");
            if (n > 0)
                s.check_status(H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out), name);
        }
        for (hsize_t i = 0; i < n; ++i) {
            if (species[i] < 0 || static_cast<std::size_t>(species[i]) >= names.size())
                throw fail("particle " + std::to_string(i) + " has no species name");
            f.species.push_back(names[static_cast<std::size_t>(species[i])]);
            std::array<double, 3> xi{}, vi{};
            for (hsize_t a = 0; a < d; ++a) xi[a] = x[i * d + a], vi[a] = v[i * d + a];
            f.position.push_back(xi);
            f.velocity.push_back(vi);
        }
        return f;
    } catch (const InputError& e) {
        const std::string what = e.what();
        // the State's errors name output.trajectory.path: this file is an input
        if (what.rfind(key, 0) == 0) throw fail(what.substr(what.find(": ", what.find('"')) + 2));
        throw;
    }
}

template <int D>
void H5mdFile::write_frame(const Box<D>& box, const Particles<D>& particles, double time,
                           std::uint64_t collisions,
                           const std::type_identity_t<ImageCountList<D>>& images) {
    State& s = *state_;
    if (D != s.dimension || particles.size() != s.particles || images.size() != s.particles)
        s.fail("a frame of another dimension or particle count than the file's");
    s.position.resize(particles.size() * D);
    s.velocity.resize(particles.size() * D);
    s.image.resize(particles.size() * D);
    for (std::size_t i = 0; i < particles.size(); ++i) {
        const Vec<D> x = frame_position(box, particles.state[i], time);
        for (int a = 0; a < D; ++a) {
            const std::size_t k = i * D + static_cast<std::size_t>(a);
            s.position[k] = x[a];
            s.velocity[k] = particles.state[i].v[a];
            s.image[k] = images[i][static_cast<std::size_t>(a)];
        }
    }
    std::array<double, D * D> edges{}; // the box vectors: a diagonal matrix
    for (int a = 0; a < D; ++a) edges[static_cast<std::size_t>(a * (D + 1))] = box.length[a];
    const auto step = static_cast<std::int64_t>(s.frames);
    const auto count = static_cast<std::int64_t>(collisions);
    s.append(s.position_element, s.position.data(), step, time);
    s.append(s.velocity_element, s.velocity.data(), step, time);
    s.append(s.image_element, s.image.data(), step, time);
    s.append(s.edges_element, edges.data(), step, time);
    s.append(s.collisions_element, &count, step, time);
    ++s.frames;
}

void H5mdFile::write_observables(const TimeSeriesRow& row) {
    State& s = *state_;
    if (s.observables.empty()) {
        if (s.rows > 0) s.fail("time-series rows to append, but the file has none");
        s.create_observables(row.species_temperature.size());
    }
    const double scalars[] = {row.collisions_per_particle,
                              row.temperature,
                              row.Z,
                              row.velocities.kurtosis,
                              row.velocities.ks_distance,
                              row.velocities.ks_pvalue,
                              row.velocities.H,
                              row.msd};
    if (row.crossed && !s.has_crossed()) {
        if (s.rows > 0)
            s.fail("the run counts output.crossing, but the file's rows have no crossed");
        s.create_crossed();
    }
    if (!row.crossed && s.has_crossed())
        s.fail("the file's rows have crossed, but the run has no output.crossing");
    const auto step = static_cast<std::int64_t>(s.rows);
    for (std::size_t k = 0; k < std::size(scalars); ++k)
        s.append(s.observables[k], &scalars[k], step, row.time);
    auto& species = s.observables[State::species_at];
    if (species.record != std::vector<hsize_t>{row.species_temperature.size()})
        s.fail("species_temperature has another number of species than the run");
    s.append(species, row.species_temperature.data(), step, row.time);
    if (row.crossed) {
        const auto crossed = static_cast<std::int64_t>(*row.crossed);
        s.append(s.observables.back(), &crossed, step, row.time);
    }
    ++s.rows;
}

std::uint64_t H5mdFile::frames() const {
    return state_->frames;
}

std::uint64_t H5mdFile::rows() const {
    return state_->rows;
}

double H5mdFile::bytes() const {
    hsize_t size = 0;
    if (H5Fget_filesize(state_->file.get(), &size) < 0) state_->fail_hdf5("cannot get its size");
    return static_cast<double>(size);
}

void H5mdFile::flush() {
    State& s = *state_;
    s.check_status(H5Fflush(s.file.get(), H5F_SCOPE_GLOBAL), "cannot flush the file");
    void* handle = nullptr;
    s.check_status(H5Fget_vfd_handle(s.file.get(), H5P_DEFAULT, &handle), "no file descriptor");
    // The default (sec2) driver's handle is a pointer to its POSIX file descriptor.
    if (handle && ::fsync(*static_cast<int*>(handle)) != 0)
        s.fail(std::string("cannot sync the file: ") + std::strerror(errno));
}

OutputMark H5mdFile::mark() {
    State& s = *state_;
    if (!s.journal) s.fail("a mark of a file not written in place");
    flush();
    void* handle = nullptr;
    s.check_status(H5Fget_vfd_handle(s.file.get(), H5P_DEFAULT, &handle), "no file descriptor");
    const int fd = *static_cast<int*>(handle);
    struct stat st {};
    if (::fstat(fd, &st) != 0) s.fail(std::string("cannot get its size: ") + std::strerror(errno));
    const H5mdJournal::Mark m = s.journal->advance(fd, static_cast<std::uint64_t>(st.st_size));
    OutputMark result;
    result.bytes = m.bytes;
    result.crc = m.crc;
    result.frames = s.frames;
    result.rows = s.rows;
    return result;
}

void H5mdFile::close(const std::string& finished) {
    State& s = *state_;
    if (!s.file.valid()) return;
    s.text(s.parameters_group.get(), "finished", finished);
    flush();
    // Datasets and groups first, then the file, whose close writes the last metadata.
    for (auto* e : s.frame_elements()) *e = State::Element{};
    s.observables.clear();
    s.particles_group.reset();
    s.observables_group.reset();
    s.parameters_group.reset();
    if (s.file.reset() < 0) s.fail_hdf5("cannot close the file");
}

template H5mdFile H5mdFile::create<2>(const std::string&, const std::string&, const Box<2>&,
                                      const Particles<2>&, const Provenance&, bool, bool);
template H5mdFile H5mdFile::create<3>(const std::string&, const std::string&, const Box<3>&,
                                      const Particles<3>&, const Provenance&, bool, bool);
template void H5mdFile::write_frame<2>(const Box<2>&, const Particles<2>&, double, std::uint64_t,
                                       const ImageCountList<2>&);
template void H5mdFile::write_frame<3>(const Box<3>&, const Particles<3>&, double, std::uint64_t,
                                       const ImageCountList<3>&);

} // namespace choc
