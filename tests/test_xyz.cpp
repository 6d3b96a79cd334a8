// Extended XYZ frames: exact round trips in 2D and 3D, and clean errors on bad files.
#include <doctest/doctest.h>

#include <choc/errors.hpp>
#include <choc/io/xyz.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("choc_test_xyz_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

// Particles with awkward doubles (many digits, tiny, huge, negative) stored at time t.
template <int D>
choc::Particles<D> awkward(const choc::Box<D>& box, double t, std::uint64_t seed,
                           std::uint32_t n = 50) {
    choc::Particles<D> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}, {"big_one", 0.1 + 0.2, 1.0 / 3.0}});
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> g(0.0, 1.0);
    for (std::uint32_t i = 0; i < n; ++i) {
        choc::Vec<D> x, v;
        for (int a = 0; a < D; ++a) {
            x[a] = box.length[a] * u(rng);
            v[a] = g(rng) * (i % 7 == 0 ? 1e-300 : i % 5 == 0 ? 1e200 : 1.0);
        }
        if (i == 3) x[0] = 0.0, v[0] = -0.0;
        p.add(x, v, i % 3 == 0 ? 1 : 0);
        p.state.back().t = t;
    }
    return p;
}

template <int D>
void check_round_trip(std::uint32_t n) {
    choc::Box<D> box;
    for (int a = 0; a < D; ++a) {
        box.length[a] = 10.0 / 3.0 + a;
        box.periodic[a] = a != 1;
    }
    const double t = 2.0 / 7.0;
    const auto first = awkward(box, 0.0, 1, n);
    const auto second = awkward(box, t, 2, n);
    const std::string path = temp_path("round" + std::to_string(D) + ".xyz");
    {
        std::ofstream out(path);
        choc::write_xyz_frame(out, box, first, 0.0);
        choc::write_xyz_frame(out, box, second, t); // the last frame is the one read
    }
    const auto f = choc::read_last_xyz_frame(path);
    CHECK(f.dimension == D);
    CHECK(f.time == t);
    for (int a = 0; a < D; ++a) {
        CHECK(f.box[a] == box.length[a]);
        CHECK(f.periodic[a] == box.periodic[a]);
    }
    if (D == 2) {
        CHECK(f.box[2] == 1.0);
        CHECK(!f.periodic[2]);
    }
    REQUIRE(f.species.size() == second.size());
    bool exact = true;
    for (std::uint32_t i = 0; i < second.size(); ++i) {
        const auto& p = second.state[i];
        exact = exact && f.species[i] == second.table.species[p.species].name;
        for (int a = 0; a < D; ++a)
            exact = exact && f.position[i][a] == p.x[a] && f.velocity[i][a] == p.v[a] &&
                    std::signbit(f.velocity[i][a]) == std::signbit(p.v[a]);
        if (D == 2) exact = exact && f.position[i][2] == 0.0 && f.velocity[i][2] == 0.0;
    }
    CHECK(exact);
    std::filesystem::remove(path);
}

// The message of the InputError from reading `text` as a file ("" if none).
std::string read_error(const std::string& text, const std::string& name) {
    const std::string path = temp_path(name);
    write_file(path, text);
    std::string msg;
    try {
        choc::read_last_xyz_frame(path);
    } catch (const choc::InputError& e) {
        msg = e.what();
    }
    std::filesystem::remove(path);
    CHECK(msg.find(path) != std::string::npos);
    return msg;
}

const std::string header = "Lattice=\"4 0 0 0 4 0 0 0 4\" "
                           "Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 Time=0 "
                           "pbc=\"T T T\" dimension=3\n";

} // namespace

TEST_CASE("write then read gives bit-identical positions and velocities") {
    check_round_trip<3>(50);
    check_round_trip<2>(50);
    check_round_trip<3>(20000); // frames of several MB are written in pieces
}

TEST_CASE("positions are advanced to `now` and folded into the box") {
    choc::Box<2> box;
    box.length = choc::Vec<2>{{5.0, 5.0}};
    box.periodic = {true, true};
    choc::Particles<2> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}});
    p.add(choc::Vec<2>{{4.5, 1.0}}, choc::Vec<2>{{1.0, -0.5}}, 0);
    std::ostringstream out;
    choc::write_xyz_frame(out, box, p, 1.0);
    CHECK(p.state[0].x == choc::Vec<2>{{4.5, 1.0}}); // the state is not touched
    const std::string text = out.str();
    CHECK(text.find("\nA 0.5 0.5 0 1 -0.5 0 0.5 1\n") != std::string::npos);
    CHECK(text.find("Lattice=\"5 0 0 0 5 0 0 0 1\"") != std::string::npos);
    CHECK(text.find("pbc=\"T T F\"") != std::string::npos);
    CHECK(text.find("dimension=2") != std::string::npos);
}

TEST_CASE("malformed files are InputErrors naming the file") {
    const std::string good = "1\n" + header + "A 1 2 3 0.5 0.25 0 0.5 1\n";
    const std::string ok = temp_path("ok.xyz");
    write_file(ok, good + "\n" + good);
    CHECK(choc::read_last_xyz_frame(ok).position.size() == 1);
    std::filesystem::remove(ok);

    read_error("", "empty.xyz");
    CHECK(read_error(good + "3\n" + header + "A 1 2 3 0 0 0 0.5 1\n", "short.xyz")
              .find("incomplete") != std::string::npos);
    CHECK(read_error("1\n" + header + "A 1 2 x 0 0 0 0.5 1\n", "nan.xyz").find(":3:") !=
          std::string::npos);
    read_error("1\n" + header + "A 1 2 3 0 0 0 0.5\n", "columns.xyz");
    read_error("one\n" + header + "A 1 2 3 0 0 0 0.5 1\n", "count.xyz");
    read_error("1\nLattice=\"4 0 0 0 4 0 0 0 4\" Properties=species:S:1:pos:R:3\nA 1 2 3\n",
               "novelo.xyz");
    read_error("1\nProperties=type:S:1:pos:R:3:velo:R:3\nA 1 2 3 0 0 0\n", "nolattice.xyz");

    std::string msg;
    try {
        choc::read_last_xyz_frame(temp_path("does_not_exist.xyz"));
    } catch (const choc::InputError& e) {
        msg = e.what();
    }
    CHECK(msg.find("does_not_exist.xyz") != std::string::npos);
}

TEST_CASE("nan and inf are refused with the file, the line and the word") {
    // std::from_chars reads all of these; a particle at nan never collides and a velocity
    // of inf never lets a run end.
    const std::string word_line = "1\n" + header;
    for (const std::string bad : {"nan", "-nan", "inf", "-inf", "infinity", "NAN", "1e999"}) {
        CAPTURE(bad);
        const auto pos = read_error(word_line + "A 1 " + bad + " 3 0 0 0 0.5 1\n", "pos.xyz");
        CHECK(pos.find(":3: position component 1 \"" + bad + "\" is not a finite number") !=
              std::string::npos);
        const auto vel = read_error(word_line + "A 1 2 3 0 0 " + bad + " 0.5 1\n", "vel.xyz");
        CHECK(vel.find(":3: velocity component 2 \"" + bad + "\" is not a finite number") !=
              std::string::npos);
    }
    const auto cell = read_error(
        "1\nLattice=\"inf 0 0 0 4 0 0 0 4\" Properties=type:S:1:pos:R:3:velo:R:3 dimension=3\n"
        "A 1 2 3 0 0 0\n",
        "cell.xyz");
    CHECK(cell.find(":2: Lattice= entry \"inf\" is not a finite number") != std::string::npos);
    const auto off = read_error(
        "1\nLattice=\"4 nan 0 0 4 0 0 0 4\" Properties=type:S:1:pos:R:3:velo:R:3 dimension=3\n"
        "A 1 2 3 0 0 0\n",
        "offdiag.xyz");
    CHECK(off.find(":2: Lattice= entry \"nan\" is not a finite number") != std::string::npos);
    const auto time = read_error(
        "1\nLattice=\"4 0 0 0 4 0 0 0 4\" Properties=type:S:1:pos:R:3:velo:R:3 Time=nan\n"
        "A 1 2 3 0 0 0\n",
        "time.xyz");
    CHECK(time.find(":2: Time= \"nan\" is not a finite number") != std::string::npos);
    // finite extremes are still numbers here (the snapshot loader judges them)
    const std::string path = temp_path("extreme.xyz");
    write_file(path, word_line + "A 1e300 -1e-320 3 1.7976931348623157e308 0 0 0.5 1\n");
    const auto f = choc::read_last_xyz_frame(path);
    std::filesystem::remove(path);
    CHECK(f.position[0][0] == 1e300);
    CHECK(f.position[0][1] == -1e-320);
    CHECK(f.velocity[0][0] == 1.7976931348623157e308);
    write_file(path, word_line + "A 1 2 3 1e-400 -1e-400 0 0.5 1\n");
    const auto g = choc::read_last_xyz_frame(path);
    std::filesystem::remove(path);
    CHECK(g.velocity[0][0] == 0.0);
    CHECK(g.velocity[0][1] == 0.0);
    CHECK(std::signbit(g.velocity[0][1]));
}
