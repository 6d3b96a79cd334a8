// libFuzzer target: the collision-group file of `choc collide`, read and resolved as the
// command does (parse_group_file is what load_group_file calls on the file's text, then
// collide_group_file solves the group). The printed outputs and the plot are not built.
//
// A documented input error (choc::InputError) is a normal outcome. Anything else is a
// finding: a crash, a sanitizer report, another exception, a hang (-timeout) or a huge
// allocation (-rss_limit_mb / -malloc_limit_mb).
#include <choc/collide/collide_file.hpp>
#include <choc/collide/group_file.hpp>
#include <choc/errors.hpp>

#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    spdlog::set_level(spdlog::level::off);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const choc::GroupFile file = choc::parse_group_file(text, "fuzz.toml");
        (void)choc::collide_group_file(file);
    } catch (const choc::InputError&) {
        // a documented, clean refusal
    }
    return 0;
}
