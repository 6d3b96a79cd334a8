#include "choc/run/provenance_text.hpp"

#include "choc/io/xyz.hpp"
#include "choc_commit.hpp"
#include "choc_version.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <array>
#include <ctime>

namespace choc {

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::array<char, 32> text{};
    const std::size_t length = std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return std::string(text.data(), length);
}

std::string host_name() {
    // POSIX host names are at most 255 bytes; the last byte stays 0 even if one is cut.
    std::array<char, 256> name{};
    if (gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') return "unknown";
    return std::string(name.data());
}

Provenance provenance(const Config& config, const RunOptions& options, const std::string& started) {
    Provenance p;
    p.config = config.resolved;
    p.seed = config.seed;
    p.command_line = options.command_line;
    p.started = started;
    p.host = host_name();
    return p;
}

namespace {

// JSON text on one line; a byte that is not UTF-8 (a command-line argument may hold any)
// becomes U+FFFD rather than an exception.
std::string json_text(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One "# " line per line of `text`, indented under its key.
std::string comment_lines(const std::string& text) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t end = text.find('\n', i);
        const std::size_t stop = end == std::string::npos ? text.size() : end;
        out += "#   " + text.substr(i, stop - i) + "\n";
        i = stop + 1;
    }
    return out;
}

// A value on one comment line: a line break in it would start a data row.
std::string one_line(std::string text) {
    for (char& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    return text;
}

} // namespace

std::string provenance_header(const Provenance& p) {
    return fmt::format("# choc_version: {}\n# git_commit: {}\n# seed: {}\n# command_line: {}\n"
                       "# started: {}\n# host: {}\n# config:\n{}",
                       version, git_commit, p.seed, json_text(p.command_line), one_line(p.started),
                       one_line(p.host), comment_lines(p.config));
}

std::string timeseries_footer(const std::string& finished) {
    return "# finished: " + one_line(finished) + "\n";
}

XyzProvenance xyz_provenance(const Provenance& p) {
    XyzProvenance x;
    x.other_frames = fmt::format("choc_version={} git_commit={} seed={} started={} host={} "
                                 "command_line={}",
                                 xyz_quoted(version), xyz_quoted(git_commit), p.seed,
                                 xyz_quoted(one_line(p.started)), xyz_quoted(one_line(p.host)),
                                 xyz_json(json_text(p.command_line)));
    x.first_frame = x.other_frames + " config=" + xyz_json(json_text(p.config));
    return x;
}

} // namespace choc
