#include "choc/run/provenance.hpp"

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

} // namespace choc
