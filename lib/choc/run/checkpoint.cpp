#include "choc/run/checkpoint.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/io/toml_file.hpp"
#include "choc/kernel/archive.hpp"
#include "choc/message_text.hpp"
#include "choc_commit.hpp"
#include "choc_version.hpp"

#include <boost/crc.hpp>
#include <toml++/toml.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <sys/stat.h>

namespace choc {
namespace {

constexpr char magic[] = "choc checkpoint\n"; // 16 bytes and the terminator
constexpr std::size_t magic_size = sizeof magic - 1;
// A checkpoint larger than this is not one (the state of 1e8 spheres is about 20 GB).
constexpr std::uint64_t largest_checkpoint = std::uint64_t{1} << 40;

std::uint32_t crc32(const char* data, std::size_t size) {
    boost::crc_32_type crc;
    crc.process_bytes(data, size);
    return crc.checksum();
}

// Every leaf of a TOML table as (dotted key, value as TOML text); arrays of tables
// ([[species]]) by index, species[0].name.
void flatten(const toml::node& node, const std::string& key,
             std::map<std::string, std::string>& out) {
    if (const auto* table = node.as_table()) {
        for (const auto& [k, v] : *table)
            flatten(v, key.empty() ? std::string(k.str()) : key + "." + std::string(k.str()), out);
        return;
    }
    if (const auto* array = node.as_array(); array && array->is_array_of_tables()) {
        for (std::size_t i = 0; i < array->size(); ++i)
            flatten(*array->get(i), key + "[" + std::to_string(i) + "]", out);
        return;
    }
    std::ostringstream text;
    node.visit([&text](const auto& value) { text << value; });
    out[key] = text.str();
}

// What a continuation may change: the run limits, the trajectory's size limit and the
// checkpoints (any value, present or not), and where the outputs go (a different path for an output
// that both have).
bool may_differ(const std::string& key, bool in_both) {
    if (key == "run.time" || key == "run.collisions" || key.rfind("output.checkpoint", 0) == 0 ||
        key == "output.trajectory.max_bytes")
        return true;
    if (!in_both || key.rfind("output.", 0) != 0) return false;
    return key == "output.summary" || key == "output.histogram" ||
           key == "output.velocity_histogram" || key == "output.rdf" || key == "output.vacf" ||
           key.ends_with(".path");
}

} // namespace

std::string checkpoint_bytes(const Checkpoint& c) {
    ArchiveWriter out;
    for (std::size_t k = 0; k < magic_size; ++k) out.put(magic[k]);
    out.put(checkpoint_format);
    out.put(std::string(version));
    out.put(std::string(git_commit));
    out.put(c.config);
    out.put(crc32(c.config.data(), c.config.size()));
    out.put(static_cast<std::uint32_t>(c.dimension));
    out.put(static_cast<std::uint8_t>(c.field));
    out.put(c.state);
    std::string bytes = out.bytes();
    const std::uint32_t crc = crc32(bytes.data(), bytes.size());
    bytes.append(reinterpret_cast<const char*>(&crc), sizeof crc);
    return bytes;
}

void write_checkpoint(const std::string& path, const Checkpoint& c, const std::string& key) {
    write_file_durably(path, checkpoint_bytes(c), key);
}

Checkpoint parse_checkpoint(const std::string& bytes, const std::string& name) {
    auto fail = [&name](const std::string& what) -> InputError {
        return InputError(name + ": " + what);
    };
    if (bytes.size() < magic_size || bytes.compare(0, magic_size, magic) != 0)
        throw fail("not a choc checkpoint");
    if (bytes.size() < magic_size + 4 + sizeof(std::uint32_t))
        throw fail("the checkpoint is damaged: it is cut short");
    std::uint32_t stored = 0;
    std::memcpy(&stored, bytes.data() + bytes.size() - sizeof stored, sizeof stored);
    if (crc32(bytes.data(), bytes.size() - sizeof stored) != stored)
        throw fail("the checkpoint is damaged: its checksum does not match (cut short, or "
                   "changed after it was written)");
    const std::string body = bytes.substr(magic_size, bytes.size() - magic_size - sizeof stored);
    ArchiveReader in(body);
    Checkpoint c;
    try {
        const auto format = in.get<std::uint32_t>();
        in.get(c.version);
        in.get(c.commit);
        if (format != checkpoint_format || c.version != version)
            // (a crafted file's strings: shown escaped and cut, never raw on a terminal)
            throw fail("written by choc " + escaped(c.version, 40) + " (commit " +
                       escaped(c.commit, 40) + ", checkpoint format " + std::to_string(format) +
                       "); this is choc " + version + " (checkpoint format " +
                       std::to_string(checkpoint_format) +
                       "): continue it with the version that wrote it");
        in.get(c.config);
        if (in.get<std::uint32_t>() != crc32(c.config.data(), c.config.size()))
            throw fail("the checkpoint is damaged: its config does not match its hash");
        c.dimension = static_cast<int>(in.get<std::uint32_t>());
        c.field = in.get<std::uint8_t>() != 0;
        in.get(c.state);
    } catch (const ArchiveError& e) {
        throw fail(std::string("the checkpoint is damaged: ") + e.what());
    }
    if (!in.done() || (c.dimension != 2 && c.dimension != 3))
        throw fail("the checkpoint is damaged: its layout is not a choc checkpoint's");
    return c;
}

Checkpoint read_checkpoint(const std::string& path, const std::string& key) {
    const std::string name = key + " \"" + escaped(path) + "\"";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw InputError(name + ": cannot read the file");
    if (!S_ISREG(st.st_mode)) throw InputError(name + ": not a regular file");
    if (static_cast<std::uint64_t>(st.st_size) > largest_checkpoint)
        throw InputError(name + ": not a choc checkpoint (too large)");
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(name + ": cannot read the file");
    return parse_checkpoint(bytes, name);
}

namespace {

// The first key at which two resolved configs differ in anything `allowed(key, in_both)`
// does not let differ.
template <class Allowed>
std::optional<std::string> first_difference(const std::string& checkpointed,
                                            const std::string& given, Allowed&& allowed) {
    std::map<std::string, std::string> a, b;
    flatten(parse_toml(checkpointed, "the checkpoint's config"), "", a);
    flatten(parse_toml(given, "the config"), "", b);
    auto ia = a.begin();
    auto ib = b.begin();
    while (ia != a.end() || ib != b.end()) {
        if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
            if (!allowed(ia->first, false)) return ia->first;
            ++ia;
        } else if (ia == a.end() || ib->first < ia->first) {
            if (!allowed(ib->first, false)) return ib->first;
            ++ib;
        } else {
            if (ia->second != ib->second && !allowed(ia->first, true)) return ia->first;
            ++ia, ++ib;
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> config_difference(const std::string& checkpointed,
                                             const std::string& given) {
    return first_difference(checkpointed, given, may_differ);
}

std::optional<std::string> config_difference_but(const std::string& a, const std::string& b,
                                                 bool (*allowed)(const std::string& key)) {
    return first_difference(a, b, [allowed](const std::string& key, bool) { return allowed(key); });
}

// Where the outputs go: a different path for an output both configs have (may_differ's
// paths), nothing else. A sweep's run moved with its sweep directory, or run from another
// working directory, has other paths and is the same run (issue 43).
std::optional<std::string> difference_but_paths(const std::string& a, const std::string& b) {
    return first_difference(a, b, [](const std::string& key, bool in_both) {
        return in_both && key.rfind("output.", 0) == 0 && key != "output.checkpoint.every" &&
               key != "output.trajectory.max_bytes" && may_differ(key, in_both);
    });
}

} // namespace choc
