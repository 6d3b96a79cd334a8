// Whole-or-nothing output files: write "<path>.partial" beside the target (same
// filesystem, so the final rename is atomic), then rename it over the target.
#include "atomic_file.hpp"

#include "../errors.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace fs = std::filesystem;

namespace choc {
namespace {

[[noreturn]] void cannot_write(const std::string& path, const std::string& reason) {
    throw InputError(path + ": cannot write file: " + reason);
}

void rename_into_place(const std::string& temporary, const std::string& path) {
    std::error_code error;
    fs::rename(temporary, path, error);
    if (error) {
        fs::remove(temporary, error);
        cannot_write(path, error.message());
    }
}

} // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
    const std::string temporary = path + ".partial";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) cannot_write(path, std::strerror(errno));
        out << content;
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(temporary, ignored);
            cannot_write(path, "write failed");
        }
    }
    rename_into_place(temporary, path);
}

void check_writable(const std::string& path, const std::string& key) {
    auto fail = [&](const std::string& what) {
        throw InputError(key + ": cannot write \"" + path + "\": " + what);
    };
    if (path.empty()) fail("empty path");
    fs::path directory = fs::path(path).parent_path();
    if (directory.empty()) directory = ".";
    std::error_code error;
    auto status = fs::status(directory, error);
    if (!fs::exists(status)) fail("directory \"" + directory.string() + "\" does not exist");
    if (!fs::is_directory(status)) fail("\"" + directory.string() + "\" is not a directory");
    if (::access(directory.c_str(), W_OK) != 0)
        fail("directory \"" + directory.string() + "\" is not writable (" + std::strerror(errno) +
             ")");
    if (fs::is_directory(path, error)) fail("it is a directory");
}

AtomicOutput::AtomicOutput(std::string path)
    : path_(std::move(path)), temporary_(path_ + ".partial"),
      out_(temporary_, std::ios::binary | std::ios::trunc) {
    if (!out_) cannot_write(path_, std::strerror(errno));
}

AtomicOutput::~AtomicOutput() {
    if (committed_) return;
    out_.close();
    std::error_code ignored;
    fs::remove(temporary_, ignored);
}

void AtomicOutput::commit() {
    out_.flush();
    if (!out_) cannot_write(path_, "write failed");
    out_.close();
    rename_into_place(temporary_, path_);
    committed_ = true;
}

} // namespace choc
