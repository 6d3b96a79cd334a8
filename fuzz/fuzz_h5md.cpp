// libFuzzer target: the H5MD reader of `init.from` (H5mdFile::last_frame), which reads the
// last frame of a trajectory choc wrote: its box, positions, velocities, time and species.
// The reader takes a path, as `choc run` gives it, so each input is written to a private
// temporary file first. The seeds are small trajectories choc wrote (fuzz/make_corpus.py).
//
// A documented input error (choc::InputError) is a normal outcome. Anything else is a
// finding: a crash, a sanitizer report, another exception, a hang (-timeout) or a huge
// allocation (-rss_limit_mb / -malloc_limit_mb).
#include <choc/errors.hpp>
#include <choc/io/h5md.hpp>

#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
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
                  ("choc-fuzz-h5md-" + std::to_string(getpid()) + ".h5"))
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
        // as a run reads it: no frame of more particles than the config's (here up to
        // 65536, a frame of 3 MB), whatever count the file declares
        (void)choc::H5mdFile::last_frame(input_path, "init.from", std::uint64_t{1} << 16);
    } catch (const choc::InputError&) {
        // a documented, clean refusal
    }
    return 0;
}
