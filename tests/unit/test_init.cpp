// Initial states: lattice and random placement, velocities, seeds, walls, snapshots.
#include <doctest/doctest.h>

#include <choc/errors.hpp>
#include <choc/init/initial_state.hpp>
#include <choc/io/xyz.hpp>
#include <choc/kernel/ball_volume.hpp>
#include <choc/kernel/overlap.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace test_init {

namespace {

using choc::Config;
using choc::SpeciesConfig;

SpeciesConfig species(const std::string& name, std::uint64_t count, double radius = 0.5,
                      double mass = 1.0) {
    SpeciesConfig s;
    s.name = name;
    s.count = count;
    s.radius = radius;
    s.mass = mass;
    return s;
}

Config config(int dimension, const std::string& lattice, double phi,
              std::vector<SpeciesConfig> s = {}) {
    Config c;
    c.dimension = dimension;
    c.lattice = lattice;
    c.packing_fraction = phi;
    c.periodic.assign(static_cast<std::size_t>(dimension), true);
    c.species = s.empty() ? std::vector<SpeciesConfig>{species("A", 100)} : std::move(s);
    return c;
}

// The message of the InputError thrown by make_initial_state ("" if none).
template <int D>
std::string error_of(const Config& c) {
    try {
        choc::make_initial_state<D>(c);
    } catch (const choc::InputError& e) {
        return e.what();
    }
    return "";
}

template <int D>
double packing_fraction(const choc::InitialState<D>& st) {
    double v = 0.0;
    for (std::uint32_t i = 0; i < st.particles.size(); ++i)
        v += choc::ball_volume<D>(st.particles.radius(i));
    return v / st.box.volume();
}

template <int D>
void check_lattice(const std::string& lattice, std::vector<std::uint64_t> counts,
                   std::vector<double> phis) {
    for (const auto n : counts)
        for (const double phi : phis) {
            CAPTURE(lattice);
            CAPTURE(n);
            CAPTURE(phi);
            auto c = config(D, lattice, phi, {species("A", n)});
            const auto st = choc::make_initial_state<D>(c);
            CHECK(st.particles.size() == n);
            CHECK(choc::max_overlap(st.box, st.particles, 0.0) == 0.0);
            CHECK(std::abs(packing_fraction(st) / phi - 1.0) < 1e-12);
            for (const auto& p : st.particles.state)
                for (int a = 0; a < D; ++a) {
                    CHECK(p.x[a] >= 0.0);
                    CHECK(p.x[a] < st.box.length[a]);
                }
        }
}

template <int D>
std::vector<double> species_temperature(const choc::Particles<D>& p) {
    std::vector<double> ke(p.table.size()), n(p.table.size());
    for (std::uint32_t i = 0; i < p.size(); ++i) {
        ke[p.state[i].species] += 0.5 * p.mass(i) * choc::norm2(p.state[i].v);
        n[p.state[i].species] += 1;
    }
    for (std::size_t s = 0; s < ke.size(); ++s) ke[s] = 2 * ke[s] / (D * n[s]);
    return ke;
}

template <int D>
void check_momentum(const choc::Particles<D>& p) {
    choc::Vec<D> total;
    double scale = 0.0;
    for (std::uint32_t i = 0; i < p.size(); ++i) {
        total += p.mass(i) * p.state[i].v;
        scale += p.mass(i) * choc::norm(p.state[i].v);
    }
    CHECK(scale > 0.0);
    CHECK(choc::norm(total) <= 1e-12 * scale);
}

// A three-species mixture: odd and even counts, own masses and temperatures.
Config mixture(int dimension, const std::string& velocities) {
    auto a = species("A", 101, 0.5, 1.0);
    auto b = species("B", 60, 0.3, 2.5);
    b.temperature = 2.5;
    auto c = species("C", 3, 0.4, 0.7);
    c.temperature = 0.5;
    auto cfg = config(dimension, dimension == 3 ? "fcc" : "hex", 0.2, {a, b, c});
    cfg.velocities = velocities;
    cfg.temperature = 1.5;
    return cfg;
}

template <int D>
void check_velocities(const std::string& kind) {
    CAPTURE(kind);
    const auto c = mixture(D, kind);
    const auto st = choc::make_initial_state<D>(c);
    check_momentum(st.particles);
    const auto t = species_temperature(st.particles);
    const std::vector<double> want = {1.5, 2.5, 0.5};
    for (std::size_t s = 0; s < 3; ++s) CHECK(std::abs(t[s] / want[s] - 1.0) < 1e-12);
    if (kind == "fixed_speed")
        for (std::uint32_t i = 0; i < st.particles.size(); ++i) {
            const auto s = st.particles.state[i].species;
            const double u = std::sqrt(D * want[s] / st.particles.mass(i));
            CHECK(std::abs(choc::norm(st.particles.state[i].v) / u - 1.0) < 1e-12);
        }
}

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("choc_test_init_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

} // namespace

TEST_CASE("every lattice holds exactly N particles at the requested packing fraction") {
    check_lattice<3>("fcc", {32, 100, 500}, {0.05, 0.3, 0.5});
    check_lattice<3>("sc", {27, 100, 216}, {0.05, 0.3, 0.4});
    check_lattice<2>("hex", {50, 100, 400, 1000}, {0.05, 0.4, 0.7});
    check_lattice<2>("square", {50, 100, 400}, {0.05, 0.4, 0.6});
}

TEST_CASE("lattices near their close packing") {
    // fcc filled exactly (4 * 5^3 sites) fits up to pi / sqrt(18) = 0.7405
    check_lattice<3>("fcc", {500}, {0.74});
    check_lattice<3>("sc", {216}, {0.52});
    check_lattice<2>("hex", {30 * 34}, {0.85});
    check_lattice<2>("square", {400}, {0.78});
}

TEST_CASE("a too dense lattice is an InputError naming box.packing_fraction") {
    for (const auto& [lattice, phi] :
         std::vector<std::pair<std::string, double>>{{"fcc", 0.75}, {"sc", 0.55}}) {
        const auto msg = error_of<3>(config(3, lattice, phi, {species("A", 500)}));
        CHECK(msg.find("box.packing_fraction") != std::string::npos);
        CHECK(msg.find("at most") != std::string::npos);
    }
    for (const auto& [lattice, phi] :
         std::vector<std::pair<std::string, double>>{{"hex", 0.92}, {"square", 0.8}}) {
        const auto msg = error_of<2>(config(2, lattice, phi, {species("A", 400)}));
        CHECK(msg.find("box.packing_fraction") != std::string::npos);
    }
    // 500 spheres fill every fcc site: the quoted limit is the ideal pi / sqrt(18)
    const auto msg = error_of<3>(config(3, "fcc", 0.8, {species("A", 500)}));
    CHECK(msg.find("0.7405") != std::string::npos);
}

TEST_CASE("an explicit box: walls keep clear, too small boxes are named") {
    auto c = config(3, "fcc", 0.3, {species("A", 200), species("B", 100, 0.25)});
    c.packing_fraction.reset();
    c.box_size = std::vector<double>{8.0, 9.0, 10.0};
    c.periodic = {false, true, false};
    const auto st = choc::make_initial_state<3>(c);
    CHECK(st.particles.size() == 300);
    CHECK(st.box.walls.size() == 4);
    CHECK(choc::max_overlap(st.box, st.particles, 0.0) == 0.0);
    for (const auto& p : st.particles.state) {
        CHECK(p.x[0] >= 0.5);
        CHECK(p.x[2] <= 9.5);
    }

    auto small = c;
    small.box_size = std::vector<double>{4.0, 4.0, 4.0};
    CHECK(error_of<3>(small).find("box.size") != std::string::npos);
    auto huge = c;
    huge.species[0].radius = 5.0;
    CHECK(error_of<3>(huge).find("box.size") != std::string::npos);

    auto flat = config(2, "hex", 0.5, {species("A", 200)});
    flat.periodic = {true, false};
    const auto st2 = choc::make_initial_state<2>(flat);
    CHECK(st2.particles.size() == 200);
    CHECK(choc::max_overlap(st2.box, st2.particles, 0.0) == 0.0);
}

TEST_CASE("random placement works when dilute and fails fast when impossible") {
    auto c3 = config(3, "random", 0.25, {species("A", 300), species("B", 200, 0.3)});
    const auto st3 = choc::make_initial_state<3>(c3);
    CHECK(st3.particles.size() == 500);
    CHECK(choc::max_overlap(st3.box, st3.particles, 0.0) == 0.0);
    CHECK(std::abs(packing_fraction(st3) / 0.25 - 1.0) < 1e-12);

    auto c2 = config(2, "random", 0.4, {species("A", 500)});
    c2.periodic = {false, false};
    const auto st2 = choc::make_initial_state<2>(c2);
    CHECK(st2.particles.size() == 500);
    CHECK(choc::max_overlap(st2.box, st2.particles, 0.0) == 0.0);

    const auto start = std::chrono::steady_clock::now();
    const auto msg = error_of<3>(config(3, "random", 0.6, {species("A", 300)}));
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    CHECK(msg.find("init.lattice") != std::string::npos);
    CHECK(msg.find("use a lattice") != std::string::npos);
    // above the jamming limit nothing is tried: the message says the limit, not "0 of 300
    // placed after 0 attempts"
    CHECK(msg.find("0.3841") != std::string::npos);
    CHECK(msg.find("not tried") != std::string::npos);
    CHECK(msg.find("attempts") == std::string::npos);
    CHECK(took.count() < 10.0);
    // a mixture has no jamming shortcut: the attempt budget stops it
    const auto mix =
        error_of<2>(config(2, "random", 0.8, {species("A", 400), species("B", 400, 0.3)}));
    CHECK(mix.find("init.lattice") != std::string::npos);
    const std::chrono::duration<double> took2 = std::chrono::steady_clock::now() - start;
    CHECK(took2.count() < 10.0);
    MESSAGE("impossible random placements gave up after " << took2.count() << " s");
}

TEST_CASE("velocities: zero momentum, exact species temperatures, equal fixed speeds") {
    check_velocities<3>("maxwell");
    check_velocities<3>("fixed_speed");
    check_velocities<2>("maxwell");
    check_velocities<2>("fixed_speed");

    auto spaced = mixture(3, "maxwell");
    spaced.species[1].name = "big B";
    CHECK(error_of<3>(spaced).find("species[1].name") != std::string::npos);

    auto bad = mixture(3, "boltzmann");
    CHECK(error_of<3>(bad).find("init.velocities") != std::string::npos);
}

TEST_CASE("a species with one particle starts at rest") {
    for (const std::string kind : {"maxwell", "fixed_speed"}) {
        auto c = config(3, "fcc", 0.2, {species("A", 99), species("B", 1, 0.5, 3.0)});
        c.velocities = kind;
        const auto st = choc::make_initial_state<3>(c);
        check_momentum(st.particles);
        for (const auto& p : st.particles.state)
            if (p.species == 1) CHECK(choc::norm(p.v) == 0.0);
        CHECK(std::abs(species_temperature(st.particles)[0] - 1.0) < 1e-12);
    }
}

TEST_CASE("the same seed gives the same state, another seed another one") {
    auto c = mixture(3, "maxwell");
    const auto a = choc::make_initial_state<3>(c);
    const auto b = choc::make_initial_state<3>(c);
    c.seed = 2;
    const auto d = choc::make_initial_state<3>(c);
    bool same = true, differ = false;
    for (std::uint32_t i = 0; i < a.particles.size(); ++i) {
        const auto &p = a.particles.state[i], &q = b.particles.state[i], &r = d.particles.state[i];
        same = same && p.x == q.x && p.v == q.v && p.species == q.species && p.t == 0.0 &&
               p.count == 0;
        differ = differ || p.v != r.v || p.species != r.species;
    }
    CHECK(same);
    CHECK(differ);
}

TEST_CASE("a mixture gets its requested counts, mixed over the lattice") {
    const auto c = mixture(2, "maxwell");
    const auto st = choc::make_initial_state<2>(c);
    std::vector<std::uint64_t> n(3);
    for (const auto& p : st.particles.state) ++n[p.species];
    CHECK(n == std::vector<std::uint64_t>{101, 60, 3});
    CHECK(st.particles.table.species[1].name == "B");
    CHECK(st.particles.table.species[1].radius == 0.3);
    CHECK(st.particles.table.species[1].mass == 2.5);
    // the first half of the (lattice-ordered) particles holds B as well as A
    std::uint64_t b_low = 0;
    for (std::size_t i = 0; i < st.particles.size() / 2; ++i)
        b_low += st.particles.state[i].species == 1;
    CHECK(b_low > 10);
    CHECK(b_low < 50);
}

TEST_CASE("[[walls]] become unit-normal planes; particles must start on their side") {
    auto c = config(3, "fcc", 0.2, {species("A", 100)});
    choc::WallConfig w;
    w.normal = {0.0, 0.0, 2.0};
    w.point = {0.0, 0.0, -1.0};
    w.restitution = 0.8;
    c.walls = {w};
    const auto st = choc::make_initial_state<3>(c);
    REQUIRE(st.box.walls.size() == 1);
    CHECK(st.box.walls[0].normal == choc::Vec<3>{{0.0, 0.0, 1.0}});
    CHECK(st.box.walls[0].offset == -1.0);
    CHECK(st.box.walls[0].restitution == 0.8);

    c.walls[0].point = {0.0, 0.0, 2.0}; // cuts through the lattice
    CHECK(error_of<3>(c).find("walls") != std::string::npos);

    auto boxed = config(2, "square", 0.3, {species("A", 100)});
    boxed.periodic = {false, false};
    const auto st2 = choc::make_initial_state<2>(boxed);
    CHECK(st2.box.walls.size() == 4);
}

TEST_CASE("init.from restarts from the last frame of a snapshot") {
    const auto c = mixture(3, "maxwell");
    const auto st = choc::make_initial_state<3>(c);
    const std::string path = temp_path("from.xyz");
    {
        std::ofstream out(path);
        choc::write_xyz_frame(out, st.box, st.particles, 0.0);
    }
    auto r = c;
    r.packing_fraction.reset();
    r.from = path;
    const auto back = choc::make_initial_state<3>(r);
    REQUIRE(back.particles.size() == st.particles.size());
    bool same = true;
    for (std::uint32_t i = 0; i < st.particles.size(); ++i)
        same = same && back.particles.state[i].x == st.particles.state[i].x &&
               back.particles.state[i].v == st.particles.state[i].v &&
               back.particles.state[i].species == st.particles.state[i].species;
    CHECK(same);
    CHECK(back.box.length == st.box.length);

    // the box comes from the snapshot: a packing fraction may stay only if it is the
    // snapshot's (the one the config it was written with asked for)
    auto with_phi = r;
    with_phi.packing_fraction = c.packing_fraction;
    CHECK(error_of<3>(with_phi).empty());
    with_phi.packing_fraction = *c.packing_fraction * (1.0 + 1e-6);
    CHECK(error_of<3>(with_phi).find("box.packing_fraction: is") != std::string::npos);
    auto size_ok = r;
    size_ok.box_size = std::vector<double>(st.box.length.c.begin(), st.box.length.c.end());
    CHECK(error_of<3>(size_ok).empty());
    auto size_bad = r;
    size_bad.box_size = std::vector<double>{10.0, 10.0, 10.0};
    CHECK(error_of<3>(size_bad).find("box.size") != std::string::npos);
    auto count_bad = r;
    count_bad.species[1].count = 61;
    CHECK(error_of<3>(count_bad).find("species[1].count") != std::string::npos);
    auto name_bad = r;
    name_bad.species[2].name = "D";
    const auto msg = error_of<3>(name_bad);
    CHECK(msg.find("init.from") != std::string::npos);
    CHECK(msg.find("\"C\"") != std::string::npos);
    auto dim_bad = r;
    dim_bad.dimension = 2;
    CHECK(error_of<2>(dim_bad).find("init.from") != std::string::npos);

    // two particles on top of each other
    auto squeezed = st;
    squeezed.particles.state[1].x = squeezed.particles.state[0].x;
    {
        std::ofstream out(path);
        choc::write_xyz_frame(out, squeezed.box, squeezed.particles, 0.0);
    }
    CHECK(error_of<3>(r).find("init.from") != std::string::npos);
    std::filesystem::remove(path);
}

namespace {

// A hand-written 3D frame in a 10 x 10 x 10 box; each entry is "x y z vx vy vz".
std::string frame(const std::vector<std::string>& particles) {
    std::string text = std::to_string(particles.size()) +
                       "\nLattice=\"10 0 0 0 10 0 0 0 10\" "
                       "Properties=type:S:1:pos:R:3:velo:R:3 pbc=\"T T T\" dimension=3\n";
    for (const auto& p : particles) text += "A " + p + "\n";
    return text;
}

// A restart from `path` holding `n` particles of species A (radius 0.5, mass `mass`).
Config restart(const std::string& path, std::uint64_t n, std::vector<bool> periodic,
               double mass = 1.0) {
    Config c;
    c.dimension = 3;
    c.lattice = "fcc";
    c.periodic = std::move(periodic);
    c.species = {species("A", n, 0.5, mass)};
    c.from = path;
    return c;
}

std::string error_from(const std::string& text, const Config& c) {
    std::ofstream(*c.from) << text;
    const auto msg = error_of<3>(c);
    std::filesystem::remove(*c.from);
    return msg;
}

} // namespace

TEST_CASE("init.from: positions outside a periodic box are folded into [0, L)") {
    const std::string path = temp_path("outside.xyz");
    std::ofstream(path) << frame({"12.5 1 1 0 0 0", "-2.5 3 1 0 0 0", "1e50 5 1 0 0 0",
                                  "-1e-50 7 1 0 0 0", "20 9 1 0 0 0", "3.3 1 -17 0 0 0",
                                  "3.3 3 5 0 0 0", "0.1 5 5.5 0 0 0"});
    const auto st = choc::make_initial_state<3>(restart(path, 8, {true, true, true}));
    std::filesystem::remove(path);
    REQUIRE(st.particles.size() == 8);
    for (const auto& p : st.particles.state)
        for (int a = 0; a < 3; ++a) {
            CHECK(p.x[a] >= 0.0);
            CHECK(p.x[a] < 10.0);
        }
    const auto& s = st.particles.state;
    CHECK(s[0].x[0] == 2.5);
    CHECK(s[1].x[0] == 7.5);
    CHECK(s[2].x[0] == std::fmod(1e50, 10.0)); // no endless loop of subtractions
    CHECK(s[3].x[0] == 0.0);                   // -1e-50 + 10 rounds to 10, which is folded onto 0
    CHECK(s[4].x[0] == 0.0);
    CHECK(s[5].x[2] == 3.0);
    CHECK(s[6].x == choc::Vec<3>{{3.3, 3.0, 5.0}}); // inside: unchanged, bit for bit
    CHECK(s[7].x == choc::Vec<3>{{0.1, 5.0, 5.5}});

    // Folded, two particles can meet: 10.2 is 0.2 from 0, so these overlap.
    const auto msg =
        error_from(frame({"10.2 5 5 0 0 0", "0 5 5 0 0 0"}), restart(path, 2, {true, true, true}));
    CHECK(msg.find("init.from: the starting configuration overlaps") != std::string::npos);
}

TEST_CASE("init.from: positions outside a walled axis are refused, naming the particle") {
    const std::string path = temp_path("walled.xyz");
    const auto walled = restart(path, 2, {true, true, false});
    for (const auto& [z, shown] : std::vector<std::pair<std::string, std::string>>{
             {"-0.1", "-0.1"}, {"10.5", "10.5"}, {"1e300", "1e+300"}, {"-1e-300", "-1e-300"}}) {
        CAPTURE(z);
        const auto msg = error_from(frame({"5 5 5 0 0 0", "1 1 " + z + " 0 0 0"}), walled);
        CHECK(msg.find("init.from: " + path +
                       ": particle 1 (counting from 0 in the last frame) "
                       "is at " +
                       shown + " on axis 2, outside the walled box [0, 10]") != std::string::npos);
    }
    // inside [0, L] but closer to the wall than the radius: the overlap check names it
    const auto msg = error_from(frame({"5 5 5 0 0 0", "1 1 10 0 0 0"}), walled);
    CHECK(msg.find("init.from: the starting configuration overlaps") != std::string::npos);
    // the walled axis is not folded: a particle just inside stays where it is
    std::ofstream(path) << frame({"5 5 5 0 0 0", "12 1 9.5 0 0 0"});
    const auto st = choc::make_initial_state<3>(walled);
    std::filesystem::remove(path);
    CHECK(st.particles.state[1].x == choc::Vec<3>{{2.0, 1.0, 9.5}});
}

TEST_CASE("init.from: positions and velocities are 0 or of magnitude within [1e-50, 1e50]") {
    // With every component and every mass within 1e+-50, m v^2 stays finite however many
    // particles there are: the bound replaces a check of the kinetic energy.
    const std::string path = temp_path("fast.xyz");
    const auto two = restart(path, 2, {true, true, true});
    const std::string rule = "must be of magnitude within [1e-50, 1e+50] (or 0 where 0 is "
                             "allowed) so that products of input values stay within double "
                             "precision, got ";
    auto msg = error_from(frame({"5 5 5 0 0 0", "1 1 1 1e300 0 0"}), two);
    CHECK(msg == "init.from: " + path +
                     ":4: particle 1 (counting from 0 in the last frame): velocity component 0 " +
                     rule + "1e+300");
    msg = error_from(frame({"5 5 5 0 0 1e-60", "1 1 1 0 0 0"}), two);
    CHECK(msg == "init.from: " + path +
                     ":3: particle 0 (counting from 0 in the last frame): velocity component 2 " +
                     rule + "1e-60");
    // a position on a periodic axis is folded into the box, but only from within the bound
    msg = error_from(frame({"5 5 5 0 0 0", "1 -1e51 1 0 0 0"}), two);
    CHECK(msg == "init.from: " + path +
                     ":4: particle 1 (counting from 0 in the last frame): position component 1 " +
                     rule + "-1e+51");
    // fast but within the bound is a valid (if expensive) start, and 0 is allowed
    std::ofstream(path) << frame({"5 5 5 1e50 0 0", "1 1 1 -1e50 1e-50 0"});
    const auto st = choc::make_initial_state<3>(two);
    std::filesystem::remove(path);
    CHECK(st.particles.state[0].v[0] == 1e50);
    CHECK(st.particles.state[1].v[1] == 1e-50);
}

TEST_CASE("init.from: nan, inf and garbage are errors naming init.from and the line") {
    const std::string path = temp_path("nan.xyz");
    const auto two = restart(path, 2, {true, true, true});
    auto msg = error_from(frame({"5 5 5 0 0 0", "1 nan 1 0 0 0"}), two);
    CHECK(msg == "init.from: " + path + ":4: position component 1 \"nan\" is not a finite number");
    msg = error_from(frame({"5 5 5 0 0 0", "1 1 1 0 0 -inf"}), two);
    CHECK(msg == "init.from: " + path + ":4: velocity component 2 \"-inf\" is not a finite number");
    msg = error_from("this is not\nan XYZ file\n", two);
    CHECK(msg.find("init.from: " + path + ":1:") == 0);
}

TEST_CASE("[[walls]] normals of any scale become unit normals") {
    auto c = config(3, "fcc", 0.2, {species("A", 100)});
    c.periodic = {true, true, false};
    choc::WallConfig w;
    w.normal = {0.0, 0.0, 1e300};
    w.point = {0.0, 0.0, -1.0};
    c.walls = {w};
    auto st = choc::make_initial_state<3>(c);
    CHECK(st.box.walls.back().normal == choc::Vec<3>{{0.0, 0.0, 1.0}});
    c.walls[0].normal = {0.0, 0.0, 1e-320};
    st = choc::make_initial_state<3>(c);
    CHECK(st.box.walls.back().normal == choc::Vec<3>{{0.0, 0.0, 1.0}});
    c.walls[0].normal = {0.0, 0.0, 0.0};
    CHECK(error_of<3>(c).find("walls[0].normal") != std::string::npos);
}

} // namespace test_init
