// libFuzzer target: the extended XYZ reader of `init.from` (read_last_xyz_frame). The
// reader takes a path, as `choc run` gives it, so each input is written to a private
// temporary file first.
//
// A documented input error (choc::InputError) is a normal outcome. Anything else is a
// finding: a crash, a sanitizer report, another exception, a hang (-timeout) or a huge
// allocation (-rss_limit_mb / -malloc_limit_mb).
#include <choc/errors.hpp>
#include <choc/io/xyz.hpp>

#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::string input_path; // one file per fuzzing process, rewritten for every input

void remove_input() {
    std::error_code ignored;
    std::filesystem::remove(input_path, ignored);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    spdlog::set_level(spdlog::level::off);
    input_path = (std::filesystem::temp_directory_path() /
                  ("choc-fuzz-xyz-" + std::to_string(getpid()) + ".xyz"))
                     .string();
    std::atexit(remove_input);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(input_path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        if (!out) std::abort(); // the harness itself failed, not the reader
    }
    try {
        (void)choc::read_last_xyz_frame(input_path);
    } catch (const choc::InputError&) {
        // a documented, clean refusal
    }
    return 0;
}
