// libFuzzer target: an STL mesh of a [[walls]] entry (binary or ASCII), read as `choc run`
// reads it (parse_config: Assimp, the structure of an ASCII file, every facet's checks),
// then, for a mesh the config accepts, the lists of triangles by cell that a run builds:
// those of the random start's placement, and the engine's, with flat patches
// (triangle_cells.hpp). Each input is written to a private temporary file, the mesh of a
// fixed small config (a 12-unit walled cube, 8 spheres of radius 0.5).
//
// A documented input error (choc::InputError) is a normal outcome. Anything else is a
// finding: a crash, a sanitizer report, another exception, a hang (-timeout) or a huge
// allocation (-rss_limit_mb / -malloc_limit_mb).
#include <choc/errors.hpp>
#include <choc/init/initial_state.hpp>
#include <choc/kernel/cells.hpp>
#include <choc/kernel/tolerances.hpp>
#include <choc/kernel/triangle_cells.hpp>
#include <choc/run/config.hpp>

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

std::string config_text() {
    return "dimension = 3\n"
           "[box]\nsize = [12.0, 12.0, 12.0]\nboundary = \"wall\"\n"
           "[[species]]\nname = \"A\"\ncount = 8\nradius = 0.5\n"
           "[[walls]]\nmesh = \"" +
           input_path +
           "\"\n"
           "[init]\nlattice = \"random\"\nseed = 1\n"
           "[run]\ntime = 1.0\n";
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    spdlog::set_level(spdlog::level::off);
    input_path = (std::filesystem::temp_directory_path() /
                  ("choc-fuzz-stl-" + std::to_string(getpid()) + ".stl"))
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
        const choc::Config config = choc::parse_config(config_text(), "fuzz.toml", {});
        const auto start = choc::make_initial_state<3>(config);
        // the engine's lists for spheres of radius 0.5 in cells 1.25 wide
        const choc::Cells<3> cells(start.box, 1.25, 1, 1);
        const double a = 0.5, reach = a + choc::cell_bounds_round_off * (a + 1.25);
        const choc::TriangleCells<3> near(cells, start.box.triangles, reach,
                                          choc::TriangleCells<3>::PatchRadii{a, a});
        (void)near.patches();
    } catch (const choc::InputError&) {
        // a documented, clean refusal
    }
    return 0;
}
