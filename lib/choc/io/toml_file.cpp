#include "choc/io/toml_file.hpp"

#include "choc/errors.hpp"
#include "choc/message_text.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace choc {

std::string read_text_file(const std::string& path) {
    const std::string name = escaped(path);
    // Only a regular file of bounded size: /dev/zero, a FIFO or a terminal would be read
    // for ever (or until memory runs out), a directory cannot be read at all.
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
        throw InputError(name + ": cannot read file: " + std::strerror(errno));
    if (S_ISDIR(info.st_mode)) throw InputError(name + ": cannot read file: is a directory");
    if (!S_ISREG(info.st_mode))
        throw InputError(name + ": cannot read file: not a regular file (a device, FIFO or "
                                "socket)");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(name + ": cannot read file: " + std::strerror(errno));
    // Read in pieces up to one byte past the limit, so that a file that grew since stat is
    // caught too. (A buffer of the limit's size, zeroed for every file, was most of a
    // sweep's set-up, which read the config four times a point: 1.3 ms of CPU a point,
    // 0.06 ms now with one read; issue 41.)
    std::string text;
    std::array<char, 1 << 16> piece;
    while (text.size() <= max_input_bytes) {
        in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
        text.append(piece.data(), static_cast<std::size_t>(in.gcount()));
        if (!in) break;
    }
    if (in.bad()) throw InputError(name + ": cannot read file: read error");
    if (text.size() > max_input_bytes)
        throw InputError(name + ": cannot read file: larger than the limit of " +
                         std::to_string(max_input_bytes >> 20) + " MiB for an input file");
    return text;
}

toml::table parse_toml(const std::string& text, const std::string& source) {
    try {
        return toml::parse(text, source);
    } catch (const toml::parse_error& error) {
        const auto& where = error.source().begin;
        throw InputError(escaped(source) + ":" + std::to_string(where.line) + ":" +
                         std::to_string(where.column) + ": " + escaped(error.description()));
    }
}

} // namespace choc
