// libFuzzer target: the run configuration, as `choc run CONFIG --set KEY=VALUE ...` reads it.
//
// Input: leading lines of the form `--set KEY=VALUE` are the overrides, in order; the rest
// of the input is the TOML text. The config is parsed through parse_config (the same
// reader load_config uses) and, when the particle count is small, the initial state is
// built as `choc run` builds it (lattice or random placement, velocities): overflow and
// endless loops in derived sizes live there.
//
// A documented input error (choc::InputError) is a normal outcome. Anything else is a
// finding: a crash, a sanitizer report, another exception, a hang (-timeout) or a huge
// allocation (-rss_limit_mb / -malloc_limit_mb).
#include <choc/errors.hpp>
#include <choc/init/initial_state.hpp>
#include <choc/run/config.hpp>

#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

// Above this many particles the start is not built: the fuzzer would spend its time
// placing particles rather than exploring the reader.
constexpr std::uint64_t max_particles = 2000;

constexpr std::string_view set_prefix = "--set ";

// Splits the input into the overrides (leading `--set ` lines) and the TOML text.
void split_input(std::string_view input, std::vector<std::string>& overrides, std::string& toml) {
    while (input.substr(0, set_prefix.size()) == set_prefix) {
        const auto end = input.find('\n');
        overrides.emplace_back(input.substr(set_prefix.size(), end == std::string_view::npos
                                                                   ? std::string_view::npos
                                                                   : end - set_prefix.size()));
        if (end == std::string_view::npos) {
            input = {};
            break;
        }
        input.remove_prefix(end + 1);
    }
    toml.assign(input);
}

bool small_enough(const choc::Config& config) {
    std::uint64_t n = 0;
    for (const auto& s : config.species) {
        if (s.count > max_particles - n) return false;
        n += s.count;
    }
    return true;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    spdlog::set_level(spdlog::level::off); // warnings about the config are not findings
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> overrides;
    std::string toml;
    split_input(std::string_view(reinterpret_cast<const char*>(data), size), overrides, toml);
    try {
        const choc::Config config = choc::parse_config(toml, "fuzz.toml", overrides);
        (void)choc::output_paths(config);
        // init.from names a file on this machine: reading it is the XYZ target's job.
        if (config.from || !small_enough(config)) return 0;
        if (config.dimension == 2)
            (void)choc::make_initial_state<2>(config);
        else
            (void)choc::make_initial_state<3>(config);
    } catch (const choc::InputError&) {
        // a documented, clean refusal
    }
    return 0;
}
