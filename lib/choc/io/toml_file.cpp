#include "toml_file.hpp"

#include "../errors.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace choc {

std::string read_text_file(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        throw InputError(path + ": cannot read file: is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read file: " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw InputError(path + ": cannot read file: read error");
    return text.str();
}

toml::table parse_toml(const std::string& text, const std::string& source) {
    try {
        return toml::parse(text, source);
    } catch (const toml::parse_error& error) {
        const auto& where = error.source().begin;
        throw InputError(source + ":" + std::to_string(where.line) + ":" +
                         std::to_string(where.column) + ": " + std::string(error.description()));
    }
}

} // namespace choc
