// Up-front checks of a run's set of outputs against each other and its inputs.
#include "choc/io/output_paths.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include <sys/stat.h>
#include <sys/statvfs.h>

namespace fs = std::filesystem;

namespace choc {
namespace {

struct Resolved {
    std::string path;                          // real path of the directory + the name
    std::optional<std::pair<dev_t, ino_t>> id; // when the file exists
};

// The directory exists (check_writable has made sure for outputs); the name itself is not
// followed, since an output that is a link is refused anyway.
Resolved resolve_output(const std::string& path) {
    const fs::path p(path);
    const std::string parent = p.parent_path().empty() ? "." : p.parent_path().string();
    char real[PATH_MAX];
    Resolved r{::realpath(parent.c_str(), real) ? (fs::path(real) / p.filename()).string() : path,
               std::nullopt};
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) r.id = std::pair{st.st_dev, st.st_ino};
    return r;
}

// An input is read through links, so it is the file at the end of them.
Resolved resolve_input(const std::string& path) {
    char real[PATH_MAX];
    Resolved r{::realpath(path.c_str(), real) ? std::string(real) : path, std::nullopt};
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) r.id = std::pair{st.st_dev, st.st_ino};
    return r;
}

bool same(const Resolved& a, const Resolved& b) {
    return a.path == b.path || (a.id && b.id && *a.id == *b.id);
}

} // namespace

void check_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
    for (const auto& output : outputs) check_writable(output.path, output.key);
    std::vector<Resolved> resolved;
    for (const auto& output : outputs) resolved.push_back(resolve_output(output.path));
    for (std::size_t b = 0; b < outputs.size(); ++b) {
        for (std::size_t a = 0; a < b; ++a)
            if (same(resolved[a], resolved[b]))
                // Named from the first of the two (the summary, when it is one of them).
                throw InputError(outputs[a].key + ": " + outputs[a].path + " is also " +
                                 outputs[b].key + " (\"" + outputs[b].path +
                                 "\"): one file; give each output its own path");
        for (const auto& input : inputs)
            if (same(resolve_input(input.path), resolved[b]))
                throw InputError(outputs[b].key + ": \"" + outputs[b].path +
                                 "\" is the same file as " + input.key + " (\"" + input.path +
                                 "\"), which the run reads; writing it would destroy the input");
    }
}

std::optional<std::uint64_t> free_bytes(const std::string& path) {
    const fs::path p(path);
    const std::string parent = p.parent_path().empty() ? "." : p.parent_path().string();
    struct statvfs fs {};
    if (::statvfs(parent.c_str(), &fs) != 0) return std::nullopt;
    return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

void remove_stale_temporaries(const std::vector<NamedPath>& outputs) {
    for (const auto& output : outputs) remove_stale_temporaries(output.path);
}

} // namespace choc
