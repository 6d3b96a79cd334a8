#include "choc/io/toml_file.hpp"

#include "choc/errors.hpp"
#include "choc/message_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
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

// Floats are rewritten token by token outside strings: a token that starts a number (not
// inside a bare key) and parses whole as a double with a '.' or an exponent is written
// back by fmt's "{}" (shortest round-trip), with ".0" where that leaves an integer's look.
// toml++ writes keys as bare words or quoted strings, strings as '...', "...", '''...'''
// or """...""", and no comments.
std::string document_text(const toml::table& document) {
    std::ostringstream stream;
    stream << document;
    const std::string text = stream.str();
    std::string out;
    out.reserve(text.size());
    const auto word = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
               c == '+';
    };
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"' || c == '\'') { // a string, copied whole
            const bool triple = text.compare(i, 3, std::string(3, c)) == 0;
            const std::string close = triple ? std::string(3, c) : std::string(1, c);
            std::size_t j = i + close.size();
            while (j < text.size() && text.compare(j, close.size(), close) != 0)
                j += (c == '"' && text[j] == '\\') ? 2 : 1; // (basic strings escape)
            j = std::min(text.size(), j + close.size());
            out.append(text, i, j - i);
            i = j;
            continue;
        }
        if (!word(c)) {
            out += c;
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && word(text[j])) ++j;
        const std::string_view token(text.data() + i, j - i);
        double x = 0.0;
        const bool numeric = std::isdigit(static_cast<unsigned char>(token.front())) ||
                             ((token.front() == '-' || token.front() == '+') && token.size() > 1 &&
                              std::isdigit(static_cast<unsigned char>(token[1])));
        const auto [end, error] =
            numeric ? std::from_chars(token.data() + (token.front() == '+'),
                                      token.data() + token.size(), x)
                    : std::from_chars_result{token.data(), std::errc::invalid_argument};
        if (numeric && error == std::errc{} && end == token.data() + token.size() &&
            token.find_first_of(".eE") != std::string_view::npos) {
            std::string shortest = fmt::format("{}", x);
            if (shortest.find_first_of(".eEn") == std::string::npos) shortest += ".0";
            out += shortest;
        } else {
            out.append(token);
        }
        i = j;
    }
    return out;
}

} // namespace choc
