// Output files: temporary names, the checks of one path, outputs compared as files, the
// removal of a dead writer's temporaries, whole-or-nothing writing, the CRC-32 of a file
// written in place, and the locks of a run's outputs.
#include <choc/errors.hpp>
#include <choc/io/atomic_file.hpp>
#include <choc/io/output_lock.hpp>
#include <choc/io/output_paths.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace test_output_paths {

namespace fs = std::filesystem;
using choc::InputError;

namespace {

// A fresh directory, removed with everything in it at the end of a test.
struct Scratch {
    fs::path dir;
    Scratch() {
        std::string name = (fs::temp_directory_path() / "choc-output-paths-XXXXXX").string();
        dir = ::mkdtemp(name.data());
    }
    ~Scratch() { fs::remove_all(dir); }
    std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

std::string message(const auto& action) {
    try {
        action();
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

int entries(const fs::path& dir) {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

} // namespace

TEST_CASE("the temporary name sits beside the target, hidden, with pid and random part") {
    const std::string name = choc::temporary_name("out/summary.json", 0xabcdef01u);
    CHECK(name == "out/.summary.json.choc-" + std::to_string(::getpid()) + "-abcdef01.tmp");
}

TEST_CASE("check_writable refuses what a rename would destroy or cannot create") {
    Scratch s;
    CHECK(message([&] { choc::check_writable(s / "ok.json", "k"); }).empty());
    fs::create_directory(s / "dir");
    CHECK(message([&] { choc::check_writable(s / "dir", "k"); }).find("directory") !=
          std::string::npos);
    std::ofstream(s / "target") << "x";
    fs::create_symlink(s / "target", s / "link");
    CHECK(message([&] { choc::check_writable(s / "link", "k"); }).find("symbolic link") !=
          std::string::npos);
    REQUIRE(::mkfifo((s / "fifo").c_str(), 0600) == 0);
    CHECK(message([&] { choc::check_writable(s / "fifo", "k"); }).find("not a regular file") !=
          std::string::npos);
    CHECK(message([&] { choc::check_writable(s / std::string(225, 'a'), "k"); }).empty());
    CHECK(
        message([&] { choc::check_writable(s / std::string(226, 'a'), "k"); }).starts_with("k: "));
    CHECK(message([&] { choc::check_writable(s / "no/x", "k"); }).find("does not exist") !=
          std::string::npos);
}

TEST_CASE("outputs are compared as files: resolved directory, identity, inputs") {
    Scratch s;
    const std::string a = s / "a.json";
    const std::string dotted = (s.dir / "." / "a.json").string();
    CHECK(message([&] {
              choc::check_outputs({{"x", a}, {"y", dotted}}, {});
          }).find("is also y") != std::string::npos);
    std::ofstream(s / "in.toml") << "x";
    fs::create_hard_link(s / "in.toml", s / "hard.toml");
    CHECK(message([&] {
              choc::check_outputs({{"x", s / "hard.toml"}}, {{"in", s / "in.toml"}});
          }).find("same file as in") != std::string::npos);
    fs::create_directory_symlink(s.dir, s / "via");
    CHECK(message([&] {
              choc::check_outputs({{"x", s / "in.toml"}}, {{"in", s / "via/in.toml"}});
          }).find("same file as in") != std::string::npos);
    CHECK(message([&] { choc::check_outputs({{"x", a}, {"y", s / "b.json"}}, {}); }).empty());
}

TEST_CASE("a dead writer's temporaries are removed, a live one's are kept") {
    Scratch s;
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0); // now a pid that no longer exists
    const std::string dead = s / (".o.csv.choc-" + std::to_string(child) + "-00000001.tmp");
    const std::string live = s / (".o.csv.choc-" + std::to_string(::getpid()) + "-00000002.tmp");
    const std::string other = s / ".other.choc-1-00000003.tmp";
    for (const auto& p : {dead, live, other}) std::ofstream(p) << "x";
    CHECK(choc::remove_stale_temporaries(s / "o.csv") == 1);
    CHECK(!fs::exists(dead));
    CHECK(fs::exists(live));
    CHECK(fs::exists(other));
}

TEST_CASE("an output appears only when published; unpublished leaves nothing") {
    Scratch s;
    {
        choc::AtomicOutput out(s / "f.csv", "output.f");
        out.stream() << "row\n";
        out.finish();
        CHECK(!fs::exists(s / "f.csv"));
        CHECK(entries(s.dir) == 1); // the temporary
    }
    CHECK(entries(s.dir) == 0);
    choc::write_file_atomically(s / "f.csv", "done\n", "output.f");
    std::ifstream in(s / "f.csv");
    std::string line;
    std::getline(in, line);
    CHECK(line == "done");
    CHECK(entries(s.dir) == 1);
}

TEST_CASE("a CRC-32 carried forward equals the CRC-32 of the whole") {
    const std::string text = "Lattice=\"10 0 0 0 10 0 0 0 10\" Time=0.5\nA 1 2 3\n";
    const std::uint32_t whole = choc::extend_crc32(0, text.data(), text.size());
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
        const std::uint32_t first = choc::extend_crc32(0, text.data(), cut);
        CHECK(choc::extend_crc32(first, text.data() + cut, text.size() - cut) == whole);
    }
    // The standard check value of CRC-32 (ISO-HDLC): "123456789" gives cbf43926.
    CHECK(choc::extend_crc32(0, "123456789", 9) == 0xcbf43926u);
}

// A file written in place over three marks, 20000 bytes: a continuation from the last mark
// refuses it after any byte before the mark is changed (the first, one more than 4096
// bytes before the mark, the last), and accepts it unchanged.
TEST_CASE("a continuation notices a byte changed anywhere before the mark") {
    Scratch s;
    const std::string path = s / "traj.xyz";
    choc::OutputMark mark;
    {
        choc::AtomicOutput out(path, "output.trajectory.path", choc::InPlace{});
        for (int k = 0; k < 3; ++k) {
            out.stream() << std::string(6000 + 1000 * k, static_cast<char>('a' + k));
            mark = out.mark();
        }
        out.stream() << "after the mark";
        out.commit();
    }
    REQUIRE(mark.bytes == 21000);
    const std::string good = [&] {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    for (std::uint64_t at : {std::uint64_t{0}, mark.bytes - 4097, mark.bytes - 1}) {
        std::string bad = good;
        bad[at] ^= 0x20;
        std::ofstream(path, std::ios::binary) << bad;
        const std::string error = message(
            [&] { choc::AtomicOutput out(path, "output.trajectory.path", choc::InPlace{mark}); });
        CAPTURE(at);
        CHECK(error.find("output.trajectory.path") == 0);
        CHECK(error.find("not what the run to continue wrote") != std::string::npos);
    }
    std::ofstream(path, std::ios::binary) << good;
    {
        choc::AtomicOutput out(path, "output.trajectory.path", choc::InPlace{mark});
        out.stream() << "more";
        CHECK(out.mark().bytes == mark.bytes + 4);
        out.commit();
    }
    CHECK(fs::file_size(path) == mark.bytes + 4);
}

TEST_CASE("a run's outputs are locked: a second holder is refused, a dead one's lock taken over") {
    Scratch s;
    const std::vector<choc::NamedPath> outputs{{"output.summary", s / "s.json"},
                                               {"output.trajectory.path", s / "t.xyz"}};
    const std::string lock = choc::lock_name(s / "t.xyz");
    CHECK(fs::path(lock).filename() == ".t.xyz.choc-lock");
    {
        const choc::OutputLocks held(outputs);
        std::ifstream in(lock);
        std::string pid;
        std::getline(in, pid);
        CHECK(pid == std::to_string(::getpid()));
        // A flock belongs to the open file: another lock of this process is refused too,
        // naming the first output held and the holder's pid.
        const std::string error = message([&] { choc::OutputLocks again(outputs); });
        CHECK(error.find("output.summary") == 0);
        CHECK(error.find("pid " + std::to_string(::getpid())) != std::string::npos);
        // Only the trajectory held elsewhere: the summary's lock, taken first, is given back.
        const std::string partial = message([&] {
            choc::OutputLocks other({{"output.summary", s / "other.json"}, outputs[1]});
        });
        CHECK(partial.find("output.trajectory.path") == 0);
        CHECK(!fs::exists(choc::lock_name(s / "other.json")));
    }
    CHECK(entries(s.dir) == 0); // the lock files removed at the end
    // A lock file left by a process killed outright (no one holds it): taken over.
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    std::ofstream(lock) << child << "\n";
    {
        const choc::OutputLocks held(outputs);
        std::ifstream in(lock);
        std::string pid;
        std::getline(in, pid);
        CHECK(pid == std::to_string(::getpid()));
    }
    CHECK(entries(s.dir) == 0);
}

} // namespace test_output_paths
