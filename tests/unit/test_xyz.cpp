// Extended XYZ frames: exact round trips in 2D and 3D (the current layout with momenta and
// masses for ASE, and files of the earlier layout), provenance keys on the comment line, and
// clean errors on bad files.
#include <doctest/doctest.h>

#include <choc/errors.hpp>
#include <choc/io/xyz.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

namespace test_xyz {

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
        exact = exact && f.radius[i] == second.radius(i) && f.mass[i] == second.mass(i);
    }
    CHECK(exact);
    std::filesystem::remove(path);
}

// Shortest round-trip text of a double (the writer's {fmt} "{}" may choose fixed notation
// where this chooses an exponent: both read back to the same double).
std::string shortest(double x) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, x).ptr;
    return std::string(text, end);
}

// The same particles in the layout choc wrote before momenta and masses (velo, radius, mass).
template <int D>
std::string old_layout(const choc::Box<D>& box, const choc::Particles<D>& p, double t) {
    std::string text =
        std::to_string(p.size()) + "\nLattice=\"" + shortest(box.length[0]) + " 0 0 0 " +
        shortest(box.length[1]) + " 0 0 0 " + shortest(D == 3 ? box.length[D - 1] : 1.0) +
        "\" Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:mass:R:1 Time=" + shortest(t) +
        " pbc=\"T T T\" dimension=" + std::to_string(D) + "\n";
    for (std::uint32_t i = 0; i < p.size(); ++i) {
        const auto& s = p.state[i];
        text += p.table.species[s.species].name;
        for (int a = 0; a < 3; ++a) text.append(" ").append(shortest(a < D ? s.x[a] : 0.0));
        for (int a = 0; a < 3; ++a) text.append(" ").append(shortest(a < D ? s.v[a] : 0.0));
        text.append(" ").append(shortest(p.radius(i))).append(" ").append(shortest(p.mass(i)));
        text += '\n';
    }
    return text;
}

// The words of line `k` (0 = the count line) of `text`.
std::vector<std::string> words_of_line(const std::string& text, std::size_t k) {
    std::istringstream in(text);
    std::string line;
    for (std::size_t i = 0; i <= k; ++i) std::getline(in, line);
    std::istringstream words(line);
    std::vector<std::string> out;
    for (std::string w; words >> w;) out.push_back(w);
    return out;
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

TEST_CASE("files of the earlier layout (velo, radius, mass) are read bit-identically") {
    choc::Box<3> box;
    box.length = choc::Vec<3>{{10.0 / 3.0, 4.1, 5.0 / 7.0}};
    const auto p = awkward(box, 0.75, 3);
    const std::string path = temp_path("old.xyz");
    write_file(path, old_layout(box, p, 0.75));
    const auto f = choc::read_last_xyz_frame(path);
    std::filesystem::remove(path);
    CHECK(f.time == 0.75);
    REQUIRE(f.species.size() == p.size());
    REQUIRE(f.mass.size() == p.size());
    bool exact = true;
    for (std::uint32_t i = 0; i < p.size(); ++i)
        for (int a = 0; a < 3; ++a)
            exact = exact && f.position[i][a] == p.state[i].x[a] &&
                    f.velocity[i][a] == p.state[i].v[a] &&
                    std::signbit(f.velocity[i][a]) == std::signbit(p.state[i].v[a]) &&
                    f.mass[i] == p.mass(i) && f.radius[i] == p.radius(i);
    CHECK(exact);
}

TEST_CASE("the momenta column is m v rounded once, and masses the species' mass") {
    // ASE's get_velocities() divides these two: the column must be fl(m * v), nothing else.
    choc::Box<3> box;
    box.length = choc::Vec<3>{{4.0, 4.0, 4.0}};
    const auto p = awkward(box, 0.0, 4, 30);
    std::ostringstream out;
    choc::write_xyz_frame(out, box, p, 0.0);
    const std::string text = out.str();
    CHECK(text.find(" Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:masses:R:1:momenta:R:3 ") !=
          std::string::npos);
    bool exact = true;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
        const auto w = words_of_line(text, i + 2);
        REQUIRE(w.size() == 12);
        exact = exact && std::stod(w[8]) == p.mass(i);
        for (int a = 0; a < 3; ++a)
            exact = exact && std::stod(w[9 + a]) == p.mass(i) * p.state[i].v[a];
    }
    CHECK(exact);
}

TEST_CASE("a file with momenta and masses but no velo gives v = p / m") {
    const std::string path = temp_path("momenta.xyz");
    write_file(path, "1\nLattice=\"4 0 0 0 4 0 0 0 4\" "
                     "Properties=type:S:1:pos:R:3:masses:R:1:momenta:R:3\n"
                     "A 1 2 3 4 2 -1 0.5\n");
    const auto f = choc::read_last_xyz_frame(path);
    CHECK(f.velocity[0] == std::array<double, 3>{0.5, -0.25, 0.125});
    CHECK(f.mass[0] == 4.0);
    write_file(path, "1\nLattice=\"4 0 0 0 4 0 0 0 4\" "
                     "Properties=type:S:1:pos:R:3:masses:R:1:momenta:R:3\n"
                     "A 1 2 3 0 2 -1 0.5\n");
    std::string msg;
    try {
        choc::read_last_xyz_frame(path);
    } catch (const choc::InputError& e) {
        msg = e.what();
    }
    std::filesystem::remove(path);
    CHECK(msg.find("a mass must be positive") != std::string::npos);
}

TEST_CASE("provenance keys: quoted, escaped, and skipped by the reader") {
    CHECK(choc::xyz_quoted("plain") == "\"plain\"");
    CHECK(choc::xyz_quoted("a \"b\" c\\d") == "\"a \\\"b\\\" c\\\\d\"");
    CHECK(choc::xyz_json("\"x\\ny\"") == "\"_JSON \\\"x\\\\ny\\\"\"");
    // A frame whose comment line ends with such keys (a config holding quotes, backslashes
    // and a line break as JSON "\n") reads as one without them.
    choc::Box<2> box;
    box.length = choc::Vec<2>{{5.0, 5.0}};
    const auto p = awkward(box, 0.5, 5, 10);
    const std::string keys = "host=" + choc::xyz_quoted("a \"quoted\" host\\") +
                             " config=" + choc::xyz_json("\"path = \\\"x=y.csv\\\"\\nseed = 1\"");
    std::ostringstream out;
    choc::write_xyz_frame(out, box, p, 0.5, keys);
    const std::string text = out.str();
    CHECK(text.find(" dimension=2 " + keys + "\n") != std::string::npos);
    CHECK(std::count(text.begin(), text.end(), '\n') == static_cast<long>(p.size()) + 2);
    const std::string path = temp_path("keys.xyz");
    write_file(path, text + text);
    const auto f = choc::read_last_xyz_frame(path);
    std::filesystem::remove(path);
    CHECK(f.time == 0.5);
    CHECK(f.dimension == 2);
    REQUIRE(f.velocity.size() == p.size());
    bool exact = true;
    for (std::uint32_t i = 0; i < p.size(); ++i)
        for (int a = 0; a < 2; ++a) exact = exact && f.velocity[i][a] == p.state[i].v[a];
    CHECK(exact);
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
    CHECK(text.find("\nA 0.5 0.5 0 1 -0.5 0 0.5 1 1 -0.5 0\n") != std::string::npos);
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

} // namespace test_xyz
