// parse_config / load_config: values and defaults, one test per kind of bad input (each
// message must name the key), and --set overrides.
#include "choc/io/toml_file.hpp"

#include <choc/errors.hpp>
#include <choc/run/config.hpp>
#include <choc/run/kernel_errors.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace test_config {

using choc::Config;
using choc::InputError;
using choc::parse_config;

namespace {

// A cube of edge 4 given by box.size, for the overrides of array entries.
const std::string sized_cube = R"(
[box]
size = [4, 4, 4]
[[species]]
name = "A"
count = 1
[run]
time = 1
)";

const std::string minimal = R"(
[box]
packing_fraction = 0.3
[[species]]
name = "A"
count = 100
[run]
time = 10
)";

// The InputError message for `text` (with `overrides`), or "" if it parses.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
    try {
        parse_config(text, "test.toml", overrides);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

// True when `text` is rejected with a message that contains `needle`.
void check_rejected(const std::string& text, const std::string& needle,
                    const std::vector<std::string>& overrides = {}) {
    std::string message = error_of(text, overrides);
    INFO("message: " << message);
    CHECK(!message.empty());
    CHECK(message.find(needle) != std::string::npos);
}

} // namespace

TEST_CASE("a minimal config gets the documented defaults") {
    Config c = parse_config(minimal, "test.toml");
    CHECK(c.dimension == 3);
    CHECK(c.packing_fraction == doctest::Approx(0.3));
    CHECK(!c.box_size);
    CHECK(c.periodic == std::vector<bool>{true, true, true});
    REQUIRE(c.species.size() == 1);
    CHECK(c.species[0].name == "A");
    CHECK(c.species[0].count == 100);
    CHECK(c.species[0].radius == 0.5);
    CHECK(c.species[0].mass == 1.0);
    CHECK(!c.species[0].temperature);
    CHECK(c.restitution == 1.0);
    CHECK(c.walls.empty());
    CHECK(c.gravity == std::vector<double>{0, 0, 0});
    CHECK(c.lattice == "fcc");
    CHECK(c.velocities == "maxwell");
    CHECK(c.temperature == 1.0);
    CHECK(c.seed == 1);
    CHECK(!c.from);
    CHECK(c.run_time == 10.0);
    CHECK(!c.run_collisions);
    CHECK(c.equilibrate == 0.0);
    CHECK(c.summary == "summary.json");
    CHECK(!c.trajectory);
    CHECK(c.source == "test.toml");
}

TEST_CASE("a full 2D config is read as written") {
    Config c = parse_config(R"(
dimension = 2
[box]
size = [10, 12.5]
boundary = ["periodic", "wall"]
[[species]]
name = "big"
count = 10
radius = 1
mass = 4
temperature = 2
[[species]]
name = "small"
count = 20
[collisions]
restitution = 0.9
epsilon = 0
tc = 0.0
[[walls]]
normal = [0, 2]
point = [0, 1]
restitution = 0.5
[field]
gravity = [0, 0]
drag = 0
[init]
lattice = "square"
velocities = "fixed_speed"
temperature = 3
seed = 7
[run]
collisions = 1000
equilibrate = 5
[output]
summary = "out.json"
trajectory = { path = "t.xyz", every = 0.5 }
)",
                            "test.toml");
    CHECK(c.dimension == 2);
    CHECK(c.box_size == std::vector<double>{10, 12.5});
    CHECK(c.periodic == std::vector<bool>{true, false});
    REQUIRE(c.species.size() == 2);
    CHECK(c.species[0].radius == 1.0);
    CHECK(c.species[0].mass == 4.0);
    CHECK(c.species[0].temperature == 2.0);
    CHECK(c.species[1].radius == 0.5);
    CHECK(c.restitution == 0.9);
    REQUIRE(c.walls.size() == 1);
    CHECK(c.walls[0].normal == std::vector<double>{0, 1}); // normalised
    CHECK(c.walls[0].point == std::vector<double>{0, 1});
    CHECK(c.walls[0].restitution == 0.5);
    CHECK(c.lattice == "square");
    CHECK(c.velocities == "fixed_speed");
    CHECK(c.temperature == 3.0);
    CHECK(c.seed == 7);
    CHECK(!c.run_time);
    CHECK(c.run_collisions == 1000u);
    CHECK(c.equilibrate == 5.0);
    CHECK(c.summary == "out.json");
    REQUIRE(c.trajectory);
    CHECK(c.trajectory->path == "t.xyz");
    CHECK(c.trajectory->every == 0.5);
    CHECK(parse_config("dimension = 2\n" + minimal, "t").lattice == "hex");
}

TEST_CASE("a single boundary string applies to every axis") {
    Config c = parse_config(minimal, "t", {"box.boundary=\"wall\""});
    CHECK(c.periodic == std::vector<bool>{false, false, false});
}

TEST_CASE("syntax errors give file, line and column") {
    std::string message = error_of("dimension = 3\n[box\n");
    CHECK(message.rfind("test.toml:2:", 0) == 0);
}

TEST_CASE("unknown keys are named in full") {
    check_rejected("colour = 1\n" + minimal, "test.toml: colour: unknown key");
    check_rejected(R"(
[box]
packing_fracton = 0.3
)",
                   "box.packing_fracton: unknown key");
    check_rejected(minimal + "[[species]]\nname = \"B\"\ncount = 1\ncolour = \"red\"\n",
                   "species[1].colour: unknown key");
    check_rejected(minimal + "[output]\ntrajectory = { path = \"t\", every = 1, often = 2 }\n",
                   "output.trajectory.often: unknown key");
}

TEST_CASE("wrong types name the key and the expected type") {
    check_rejected(minimal, "box.packing_fraction: expected a number",
                   {"box.packing_fraction=\"dense\""});
    check_rejected(minimal, "species[0].count: expected an integer", {"species.0.count=1.5"});
    check_rejected(minimal, "init.lattice: expected a string", {"init.lattice=3"});
    check_rejected(minimal, "box.size: expected 3 numbers", {"box.size=[1,2]"});
    check_rejected(minimal, "species: expected an array of tables", {"species=1"});
    check_rejected(minimal, "box: expected a table", {"box=1"});
}

TEST_CASE("integers are accepted where a float is expected") {
    CHECK(parse_config(minimal, "t", {"run.time=5"}).run_time == 5.0);
}

TEST_CASE("out-of-range values are rejected") {
    check_rejected(minimal, "box.packing_fraction: must be between 0 and 1 (exclusive), got 1.5",
                   {"box.packing_fraction=1.5"});
    check_rejected(minimal, "collisions.restitution", {"collisions.restitution=2"});
    check_rejected(minimal, "dimension", {"dimension=4"});
    check_rejected(minimal, "species[0].count", {"species.0.count=0"});
    check_rejected(minimal, "species[0].radius", {"species.0.radius=-1"});
    check_rejected(minimal, "init.temperature", {"init.temperature=0"});
    check_rejected(minimal, "init.seed", {"init.seed=-1"});
    check_rejected(minimal, "run.time", {"run.time=0"});
    check_rejected(minimal, "box.size[1]", {"box.size=[1,0,1]"});
    check_rejected(minimal, "box.boundary[2]", {"box.boundary=[\"wall\",\"wall\",\"open\"]"});
    check_rejected(minimal, "init.velocities", {"init.velocities=slow"});
    check_rejected(minimal, "run.time: must be a finite number", {"run.time=inf"});
}

TEST_CASE("missing and inconsistent keys are rejected") {
    check_rejected("[run]\ntime = 1\n[box]\npacking_fraction = 0.3\n", "species");
    check_rejected(minimal + "[[species]]\nname = \"A\"\ncount = 1\n", "species[1].name");
    check_rejected(minimal + "[[species]]\nname = \"B\"\n", "species[1].count");
    check_rejected("[box]\npacking_fraction = 0.3\n[[species]]\nname = \"A\"\ncount = 1\n",
                   "test.toml: run:");
    check_rejected(minimal, "box:", {"box.size=[10,10,10]"});
    check_rejected(minimal + "[[walls]]\nnormal = [0, 0, 0]\npoint = [0, 0, 0]\n",
                   "walls[0].normal");
}

TEST_CASE("a lattice must match the dimension") {
    check_rejected(minimal, "init.lattice: \"fcc\" is a 3D lattice",
                   {"dimension=2", "init.lattice=fcc"});
    check_rejected(minimal, "init.lattice", {"init.lattice=hex"});
    CHECK(parse_config(minimal, "t", {"init.lattice=random"}).lattice == "random");
}

TEST_CASE("init.from must name a readable file, and relaxes the box rule") {
    check_rejected(minimal, "init.from: cannot read file \"no/such/file.xyz\"",
                   {"init.from=no/such/file.xyz"});
    // Any readable file passes here: its content is checked when the state is built.
    auto snapshot = std::filesystem::temp_directory_path() / "choc_test_config_from.xyz";
    std::ofstream(snapshot) << "1\n\nA 0 0 0\n";
    Config c = parse_config("[[species]]\nname = \"A\"\ncount = 1\n[run]\ntime = 1\n", "t",
                            {"init.from=" + snapshot.string()});
    std::filesystem::remove(snapshot);
    CHECK(c.from == snapshot.string());
    CHECK(!c.packing_fraction);
    CHECK(!c.box_size);
}

TEST_CASE("collisions.epsilon and collisions.contact_gap") {
    const Config d = parse_config(minimal, "t");
    CHECK(d.epsilon == 0.0);
    CHECK(d.contact_gap == 1e-9);
    const Config c =
        parse_config(minimal, "t", {"collisions.epsilon=1e-8", "collisions.contact_gap=1e-6"});
    CHECK(c.epsilon == 1e-8);
    CHECK(c.contact_gap == 1e-6);
    check_rejected(minimal, "collisions.epsilon: must be", {"collisions.epsilon=-1"});
    check_rejected(minimal, "collisions.contact_gap: must be at most 0.01",
                   {"collisions.contact_gap=0.5"});
}

TEST_CASE("collisions.pair: restitution per pair of species") {
    const std::string two = minimal + "[[species]]\nname = \"B\"\ncount = 1\n";
    const std::string pair = "[[collisions.pair]]\na = \"B\"\nb = \"A\"\nrestitution = 0.5\n";
    const Config c = parse_config(two + pair, "t");
    REQUIRE(c.pair_restitution.size() == 1);
    CHECK(c.pair_restitution[0].a == 1);
    CHECK(c.pair_restitution[0].b == 0);
    CHECK(c.pair_restitution[0].restitution == 0.5);
    check_rejected(two + pair + pair, "collisions.pair[1].b: this pair of species already");
    check_rejected(two + "[[collisions.pair]]\na = \"A\"\nb = \"B\"\nrestitution = 1.5\n",
                   "collisions.pair[0].restitution: must be");
    check_rejected(two + "[[collisions.pair]]\na = \"A\"\nb = \"B\"\n",
                   "collisions.pair[0].restitution: required key is missing");
}

TEST_CASE("field.gravity and field.drag") {
    const Config c = parse_config(minimal, "t", {"field.gravity=[0,0,-9.81]", "field.drag=0.5"});
    CHECK(c.gravity == std::vector<double>{0.0, 0.0, -9.81});
    CHECK(c.drag == 0.5);
    check_rejected(minimal, "field.gravity: expected 3 numbers", {"field.gravity=[0,-1]"});
}

TEST_CASE("box.wall_restitution") {
    CHECK(parse_config(minimal, "t").wall_restitution == 1.0);
    CHECK(parse_config(minimal, "t", {"box.wall_restitution=0.5"}).wall_restitution == 0.5);
    check_rejected(minimal, "box.wall_restitution: must be", {"box.wall_restitution=1.5"});
}

TEST_CASE("collisions.tc and collisions.on_collapse") {
    const Config d = parse_config(minimal, "t");
    CHECK(d.tc == 0.0);
    CHECK(!d.tc_on_collapse);
    const Config c =
        parse_config(minimal, "t", {"collisions.tc=1e-4", "collisions.on_collapse=tc"});
    CHECK(c.tc == 1e-4);
    CHECK(c.tc_on_collapse);
    CHECK(!parse_config(minimal, "t", {"collisions.on_collapse=stop"}).tc_on_collapse);
    check_rejected(minimal, "collisions.on_collapse: \"tc\" switches the TC model on",
                   {"collisions.on_collapse=tc"});
    check_rejected(minimal, "collisions.on_collapse: expected \"stop\" or \"tc\"",
                   {"collisions.on_collapse=wait"});
    check_rejected(minimal, "collisions.tc: must be", {"collisions.tc=-1"});
}

TEST_CASE("bad values in the dissipation keys name their key") {
    check_rejected(minimal + "[[collisions.pair]]\na = \"A\"\nb = \"Z\"\nrestitution = 0.5\n",
                   "collisions.pair[0].b: no species");
    check_rejected(minimal, "field.gravity: expected an array", {"field.gravity=1"});
    check_rejected(minimal, "field.drag: must be", {"field.drag=-0.5"});
    check_rejected(minimal, "field.drag: expected a number", {"field.drag=\"lots\""});
}

TEST_CASE("measurement outputs: time series, histogram, g(r); each its own path") {
    Config c =
        parse_config(minimal, "t",
                     {"output.timeseries={path=\"s.csv\", every=0.5}", "output.histogram=h.csv",
                      "output.rdf=g.csv", "output.velocity_histogram=v.csv"});
    REQUIRE(c.timeseries);
    CHECK(c.timeseries->path == "s.csv");
    CHECK(c.timeseries->every == 0.5);
    REQUIRE(c.histogram);
    CHECK(c.histogram->path == "h.csv");
    CHECK(!c.histogram->every);
    CHECK(c.histogram->key == "output.histogram");
    CHECK(c.rdf == "g.csv");
    REQUIRE(c.velocity_histogram);
    CHECK(c.velocity_histogram->path == "v.csv");
    check_rejected(minimal,
                   "output.velocity_histogram: \"h.csv\" is the same file as output.histogram",
                   {"output.histogram=h.csv", "output.velocity_histogram=h.csv"});
    check_rejected(minimal, "output.timeseries.every", {"output.timeseries={path=\"s.csv\"}"});
    check_rejected(minimal, "output.timeseries.every: must be > 0",
                   {"output.timeseries={path=\"s.csv\", every=0}"});
    check_rejected(minimal, "output.histogram: expected a path or a table", {"output.histogram=1"});
    check_rejected(minimal, "output.histogram: must not be empty", {"output.histogram=\"\""});
    check_rejected(minimal, "output.rdf: \"./h.csv\" is the same file as output.histogram",
                   {"output.histogram=h.csv", "output.rdf=./h.csv"});
    check_rejected(minimal,
                   "output.timeseries.path: \"summary.json\" is the same file as output.summary",
                   {"output.timeseries={path=\"summary.json\", every=1}"});
    check_rejected(minimal, "species[0].name: \"A,B\" is not a valid species name",
                   {"species[0].name=\"A,B\"", "output.histogram=h.csv"});
    check_rejected(minimal, "output.rdf: needs a periodic box",
                   {"output.rdf=g.csv", "box.boundary=wall"});
}

TEST_CASE("histogram series: output.histogram = { path, every }, refused as other tables are") {
    Config c = parse_config(minimal, "t",
                            {"output.histogram={path=\"h.csv\", every=0.25}",
                             "output.velocity_histogram={path=\"v.csv\", every=2}"});
    REQUIRE(c.histogram);
    CHECK(c.histogram->path == "h.csv");
    CHECK(c.histogram->every == 0.25);
    CHECK(c.histogram->key == "output.histogram.path");
    REQUIRE(c.velocity_histogram);
    CHECK(c.velocity_histogram->every == 2.0);
    const auto paths = choc::output_paths(c);
    CHECK(std::find(paths.begin(), paths.end(),
                    std::pair<std::string, std::string>{"output.histogram.path", "h.csv"}) !=
          paths.end());
    check_rejected(minimal, "output.histogram.every: must be > 0",
                   {"output.histogram={path=\"h.csv\", every=0}"});
    check_rejected(minimal, "output.histogram.every: must be > 0",
                   {"output.histogram={path=\"h.csv\", every=-1}"});
    check_rejected(minimal, "output.histogram.every: expected a number",
                   {"output.histogram={path=\"h.csv\", every=\"often\"}"});
    check_rejected(minimal, "output.histogram.every: required key is missing",
                   {"output.histogram={path=\"h.csv\"}"});
    check_rejected(minimal, "output.velocity_histogram.bins",
                   {"output.velocity_histogram={path=\"h.csv\", every=1, bins=10}"});
    check_rejected(minimal, "output.histogram.path: must not be empty",
                   {"output.histogram={path=\"\", every=1}"});
    check_rejected(minimal, "output.histogram.path: required key is missing",
                   {"output.histogram={every=1}"});
    check_rejected(minimal,
                   "output.histogram.path: \"s.csv\" is the same file as output.timeseries.path",
                   {"output.timeseries={path=\"s.csv\", every=1}",
                    "output.histogram={path=\"s.csv\", every=1}"});
    // at most max_histogram_snapshots: run.time / every + 2 (t = 0 and the final state)
    check_rejected(minimal, "output.histogram.every: run.time = 10 / every = 0.001 gives 10002",
                   {"run.time=10", "output.histogram={path=\"h.csv\", every=0.001}"});
    CHECK_NOTHROW(parse_config(minimal, "t",
                               {"run.time=10", "output.histogram={path=\"h.csv\", every=0.01}"}));
}

TEST_CASE("overrides: numbers, string fallback, array index, nested creation") {
    Config c = parse_config(minimal, "t",
                            {"box.packing_fraction=0.4", "init.lattice=sc", "species.0.count=10",
                             "init.seed = 7", "output.trajectory.path=t.xyz",
                             "output.trajectory.every=2"});
    CHECK(c.packing_fraction == doctest::Approx(0.4));
    CHECK(c.lattice == "sc");
    CHECK(c.species[0].count == 10);
    CHECK(c.seed == 7);
    REQUIRE(c.trajectory);
    CHECK(c.trajectory->path == "t.xyz");
    CHECK(c.trajectory->every == 2.0);
    // A later override wins.
    CHECK(parse_config(minimal, "t", {"run.time=1", "run.time=2"}).run_time == 2.0);
    // Replacing one entry of an array.
    CHECK(parse_config(minimal, "t", {"box.packing_fraction=0.3"}).packing_fraction);
    Config sized = parse_config(sized_cube, "t", {"box.size.1=8"});
    CHECK(sized.box_size == std::vector<double>{4, 8, 4});
}

TEST_CASE("bad overrides name the key") {
    check_rejected(minimal, "--set box.packing_fraction: expected KEY=VALUE",
                   {"box.packing_fraction"});
    check_rejected(minimal, "--set =3: expected KEY=VALUE", {"=3"});
    check_rejected(minimal, "--set: box.packing_fractoin: unknown key",
                   {"box.packing_fractoin=0.3"});
    check_rejected(minimal, "--set: nosuch: unknown key", {"nosuch.key=1"});
    check_rejected(minimal, "species.3.count: index 3 is out of range", {"species.3.count=1"});
    check_rejected(minimal, "species.x.count", {"species.x.count=1"});
    check_rejected(minimal, "run.time.x", {"run.time.x=1"});
    // A value set with --set is reported as coming from --set, not from the file.
    check_rejected(minimal, "--set: box.packing_fraction: must be", {"box.packing_fraction=1.5"});
}

TEST_CASE("load_config reports an unreadable file") {
    try {
        choc::load_config("no/such/config.toml");
        FAIL("expected an InputError");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).rfind("no/such/config.toml: cannot read file:", 0) == 0);
    }
}

TEST_CASE("overrides accept name[k] as well as name.k, the spelling of every message") {
    Config c = parse_config(minimal, "t", {"species[0].radius=0.3", "species [0] .count = 7"});
    CHECK(c.species[0].radius == 0.3);
    CHECK(c.species[0].count == 7);
    Config sized = parse_config(sized_cube, "t", {"box.size[1]=8", "box.size.2=6"});
    CHECK(sized.box_size == std::vector<double>{4, 8, 6});
    // A message about a key set as species[0] says --set, spelt as it was written.
    check_rejected(minimal, "--set: species[0].radius: must be > 0", {"species[0].radius=-1"});
    check_rejected(minimal, "species[3].count: index 3 is out of range", {"species[3].count=1"});
    // --set cannot add an entry, and says how to (issue 43): a table to an array of tables,
    // the whole array otherwise
    check_rejected(minimal,
                   "species has 1 entry (index 0); --set changes an entry, it cannot add one: "
                   "add a [[species]] table to the config file",
                   {"species.1.count=10"});
    check_rejected(sized_cube,
                   "box.size has 3 entries (indices 0 to 2); --set changes an entry, it cannot "
                   "add one: give the whole array (--set box.size=[...])",
                   {"box.size[3]=1"});
    check_rejected(minimal, "--set species[0.radius=1: expected KEY=VALUE", {"species[0.radius=1"});
    check_rejected(minimal, "--set species[0]x=1: expected KEY=VALUE", {"species[0]x=1"});
    check_rejected(minimal, "--set species[]=1: expected KEY=VALUE", {"species[]=1"});
    check_rejected(minimal, "--set [0]=1: expected KEY=VALUE", {"[0]=1"});
    check_rejected(minimal, "--set: box[0]: box is a table, not an array, so it has no index [0]",
                   {"box[0]=1"});
    check_rejected(minimal,
                   "--set: species[x].count: species is an array: expected an index, got \"x\"",
                   {"species[x].count=1"});
}

TEST_CASE("a wall normal must be perpendicular to every periodic axis") {
    // minimal is periodic on every axis
    check_rejected(minimal + "[[walls]]\nnormal = [0, 0, 1]\npoint = [0, 0, 0]\n",
                   "test.toml: walls[0].normal: must be perpendicular to every periodic axis "
                   "(axis 2 is periodic)");
    check_rejected(minimal + "[[walls]]\nnormal = [1e-300, 1, 0]\npoint = [0, 0, 0]\n",
                   "walls[0].normal: must be perpendicular to every periodic axis (axis 0 is "
                   "periodic)",
                   {"box.boundary=[\"periodic\", \"wall\", \"periodic\"]"});
    // exactly zero components on the periodic axes are fine
    Config c = parse_config(minimal + "[[walls]]\nnormal = [0, -0.0, 3]\npoint = [0, 0, 1]\n", "t",
                            {"box.boundary=[\"periodic\", \"periodic\", \"wall\"]"});
    REQUIRE(c.walls.size() == 1);
    CHECK(c.walls[0].normal == std::vector<double>{0, 0, 1});
    // a wall on a walled axis of an init.from restart is checked the same way
    check_rejected(minimal + "[[walls]]\nnormal = [1, 1, 0]\npoint = [0, 0, 0]\n",
                   "walls[0].normal: must be perpendicular to every periodic axis (axis 1 is "
                   "periodic)",
                   {"box.boundary=[\"wall\", \"periodic\", \"wall\"]"});
}

TEST_CASE("wall normals are normalised without overflow or underflow") {
    const std::string walled = R"(
[box]
packing_fraction = 0.3
boundary = "wall"
[[species]]
name = "A"
count = 100
[run]
time = 10
)";
    auto normal_of = [&](const std::string& normal) {
        Config c =
            parse_config(walled + "[[walls]]\nnormal = " + normal + "\npoint = [0, 0, 0]\n", "t");
        REQUIRE(c.walls.size() == 1);
        return c.walls[0].normal;
    };
    const double half = std::sqrt(0.5);
    auto big = normal_of("[1e300, 1e300, 0]");
    CHECK(big[0] == doctest::Approx(half).epsilon(1e-15));
    CHECK(big[1] == doctest::Approx(half).epsilon(1e-15));
    CHECK(big[2] == 0.0);
    CHECK(normal_of("[1e-320, 0, 0]") == std::vector<double>{1, 0, 0});
    CHECK(normal_of("[0, -1.7976931348623157e308, 0]") == std::vector<double>{0, -1, 0});
    auto tiny = normal_of("[0, 4.9e-324, 4.9e-324]");
    CHECK(tiny[1] == doctest::Approx(half).epsilon(1e-15));
    CHECK(tiny[2] == tiny[1]);
    CHECK(normal_of("[0, 0, 2]") == std::vector<double>{0, 0, 1});
    check_rejected(walled + "[[walls]]\nnormal = [0, -0.0, 0]\npoint = [0, 0, 0]\n",
                   "walls[0].normal: must not be the zero vector");
    check_rejected(walled + "[[walls]]\nnormal = [inf, 0, 0]\npoint = [0, 0, 0]\n",
                   "walls[0].normal[0]: must be a finite number");
    check_rejected(walled + "[[walls]]\nnormal = [0, nan, 1]\npoint = [0, 0, 0]\n",
                   "walls[0].normal[1]: must be a finite number");
}

TEST_CASE("the total particle count is at most 2^31") {
    const std::string two = minimal + "[[species]]\nname = \"B\"\ncount = 1\n";
    // parse only: nothing is allocated for the particles here
    Config c = parse_config(two, "t", {"species[0].count=2147483647"});
    CHECK(c.species[0].count + c.species[1].count == 2147483648u);
    check_rejected(two,
                   "--set: species[1].count: the total particle count over all species would be "
                   "2147483649, more than the limit 2147483648 (2^31)",
                   {"species[0].count=2147483648", "species[1].count=1"});
    check_rejected(minimal,
                   "--set: species[0].count: the total particle count over all species would be "
                   "9223372036854775807",
                   {"species[0].count=9223372036854775807"});
    check_rejected(minimal + "[[species]]\nname = \"B\"\ncount = 9223372036854775807\n",
                   "test.toml: species[1].count: the total particle count over all species would "
                   "be 9223372036854775907");
    check_rejected(minimal, "--set: species[0].count: the total particle count",
                   {"species[0].count=2147483649"});
}

TEST_CASE("output.trajectory.format: xyz by default, h5md, nothing else; trajectory only") {
    const std::string t = "output.trajectory={path=\"t\", every=1";
    CHECK(parse_config(minimal, "t", {t + "}"}).trajectory->format == choc::TrajectoryFormat::xyz);
    CHECK(parse_config(minimal, "t", {t + ", format=\"xyz\"}"}).trajectory->format ==
          choc::TrajectoryFormat::xyz);
    CHECK(parse_config(minimal, "t", {t + ", format=\"h5md\"}"}).trajectory->format ==
          choc::TrajectoryFormat::h5md);
    check_rejected(minimal, "output.trajectory.format: must be \"xyz\" or \"h5md\", got \"HDF5\"",
                   {t + ", format=\"HDF5\"}"});
    check_rejected(minimal, "output.trajectory.format: expected a string", {t + ", format=5}"});
    check_rejected(minimal, "output.timeseries.format: unknown key",
                   {"output.timeseries={path=\"s\", every=1, format=\"h5md\"}"});
}

TEST_CASE("output.trajectory.every: finite, and at most a million frames over run.time") {
    // run.time = 10 in minimal: frames at t = 0 and at every k * every <= 10, so every = 1e-5
    // would write 1000001 (the run used to accept it and fail at its last frame)
    Config ok =
        parse_config(minimal, "t", {"output.trajectory={path=\"t.xyz\", every=1.00001e-5}"});
    CHECK(ok.trajectory->every == 1.00001e-5);
    check_rejected(minimal,
                   "--set: output.trajectory.every: run.time = 10 / every = 1e-05 gives "
                   "1000001 frames, more than the limit of 1000000",
                   {"output.trajectory.path=t.xyz", "output.trajectory.every=1e-5"});
    check_rejected(minimal,
                   "--set: output.trajectory.every: run.time = 10 / every = 1e-06 gives "
                   "10000001 frames, more than the limit of 1000000",
                   {"output.trajectory.path=t.xyz", "output.trajectory.every=1e-6"});
    check_rejected(minimal, "output.trajectory.every: run.time = 10 / every = 1e-40 gives ",
                   {"output.trajectory={path=\"t.xyz\", every=1e-40}"});
    check_rejected(minimal, "output.trajectory.every: must be of magnitude within [1e-50, 1e+50]",
                   {"output.trajectory={path=\"t.xyz\", every=1e-300}"});
    check_rejected(minimal, "output.trajectory.every: must be a finite number",
                   {"output.trajectory={path=\"t.xyz\", every=inf}"});
    check_rejected(minimal, "output.trajectory.every: must be a finite number",
                   {"output.trajectory={path=\"t.xyz\", every=nan}"});
    check_rejected(minimal, "output.trajectory.every: must be > 0",
                   {"output.trajectory={path=\"t.xyz\", every=0}"});
    // without run.time the number of frames is not known in advance
    Config by_collisions =
        parse_config("[box]\npacking_fraction = 0.3\n[[species]]\nname = \"A\"\ncount = 1\n[run]\n"
                     "collisions = 10\n[output]\ntrajectory = { path = \"t.xyz\", every = 1e-9 }\n",
                     "t");
    CHECK(by_collisions.trajectory->every == 1e-9);
}

TEST_CASE("output.trajectory.path must differ from output.summary") {
    check_rejected(minimal + "[output]\ntrajectory = { path = \"summary.json\", every = 1 }\n",
                   "test.toml: output.trajectory.path: \"summary.json\" is the same file as "
                   "output.summary (\"summary.json\")");
    check_rejected(minimal + "[output]\nsummary = \"out/s.json\"\n"
                             "trajectory = { path = \"out/./x/../s.json\", every = 1 }\n",
                   "output.trajectory.path: \"out/./x/../s.json\" is the same file as "
                   "output.summary (\"out/s.json\")");
    check_rejected(
        minimal, "--set: output.trajectory.path: \"./s.json\" is the same file",
        {"output.summary=s.json", "output.trajectory.path=./s.json", "output.trajectory.every=1"});
    Config c = parse_config(minimal + "[output]\nsummary = \"out/s.json\"\n"
                                      "trajectory = { path = \"out/t.json\", every = 1 }\n",
                            "t");
    CHECK(c.trajectory->path == "out/t.json");
}

TEST_CASE("[[walls]] segments: from and to in 2D") {
    const std::string two_d = "dimension = 2\n" + minimal;
    Config c =
        parse_config(two_d + "[[walls]]\nfrom = [1, 2]\nto = [3, 4.5]\nrestitution = 0.9\n", "t");
    REQUIRE(c.walls.size() == 1);
    CHECK(c.walls[0].segment());
    CHECK(c.walls[0].from == std::vector<double>{1, 2});
    CHECK(c.walls[0].to == std::vector<double>{3, 4.5});
    CHECK(c.walls[0].restitution == 0.9);
    check_rejected(minimal + "[[walls]]\nfrom = [1, 2, 3]\nto = [3, 4, 5]\n",
                   "test.toml: walls[0].from: segments (from, to) are 2D walls");
    check_rejected(two_d + "[[walls]]\nfrom = [1, 2]\n", "walls[0].to: required key is missing");
    check_rejected(two_d + "[[walls]]\nto = [1, 2]\n", "walls[0].from: required key is missing");
    check_rejected(two_d + "[[walls]]\nfrom = [1, 2]\nto = [1, 2]\n",
                   "walls[0].to: must differ from `from`");
    check_rejected(two_d + "[[walls]]\nfrom = [1, 2]\nto = [3, 2]\nnormal = [0, 1]\n",
                   "walls[0].normal: give either normal and point (a plane) or from and to");
    check_rejected(two_d + "[[walls]]\nfrom = [1, 2]\nto = [3, inf]\n",
                   "walls[0].to[1]: must be a finite number");
    check_rejected(two_d + "[[walls]]\nfrom = [1, 2]\nto = [3, 2]\nrestitution = 1.5\n",
                   "walls[0].restitution");
    check_rejected(two_d + "[[walls]]\nfrom = [1, 2]\nto = [3, 2]\nside = 1\n",
                   "walls[0].side: unknown key");
}

TEST_CASE("init.region: random placement within a box") {
    const std::string random = minimal + "[init]\nlattice = \"random\"\n";
    Config c = parse_config(random + "region = { low = [0, 1, 2], high = [3, 4, 5] }\n", "t");
    CHECK(c.region_low == std::vector<double>{0, 1, 2});
    CHECK(c.region_high == std::vector<double>{3, 4, 5});
    check_rejected(minimal + "[init]\nregion = { low = [0, 1, 2], high = [3, 4, 5] }\n",
                   "test.toml: init.region: places particles only with lattice = \"random\"");
    check_rejected(random + "region = { low = [0, 1, 2], high = [3, 1, 5] }\n",
                   "init.region.high: must exceed low on every axis (axis 1)");
    check_rejected(random + "region = { low = [0, 1, 2] }\n",
                   "init.region.high: required key is missing");
    check_rejected(random + "region = { low = [0, 1, 2], high = [3, 4, 5], mid = 1 }\n",
                   "init.region.mid: unknown key");
}

TEST_CASE("numbers: 0 or of magnitude within [1e-50, 1e50]") {
    // The bounds themselves are accepted, just beyond them refused, on every kind of key.
    for (const char* set : {"species.0.mass=1e50", "species.0.mass=1e-50", "run.time=1e50",
                            "field.gravity=[0, 0, -1e-50]", "collisions.tc=0"})
        CHECK(error_of(minimal, {set}).empty());
    const std::string bound = "must be of magnitude within [1e-50, 1e+50]";
    check_rejected(minimal, "--set: species[0].mass: " + bound, {"species.0.mass=1.0000001e50"});
    check_rejected(minimal, "--set: species[0].mass: " + bound, {"species.0.mass=1e-162"});
    check_rejected(minimal, "species[0].radius: " + bound, {"species.0.radius=1e300"});
    check_rejected(minimal, "species[0].temperature: " + bound, {"species.0.temperature=1e51"});
    check_rejected(minimal, "field.gravity[1]: " + bound, {"field.gravity=[0, -1e-60, 0]"});
    check_rejected(minimal, "collisions.epsilon: " + bound, {"collisions.epsilon=1e-60"});
    check_rejected(minimal, "box.size[0]: " + bound, {"box.size=[1e60, 1, 1]"});
    // Wall normals are directions, normalised: exempt (see the normal tests above).
}

TEST_CASE("the box implied by box.packing_fraction is bounded before anything is sized") {
    // 100 spheres of radius 1e45 at packing fraction 1e-40: edge ~ (4e137 / 1e-40)^(1/3),
    // about 7e58, beyond 1e50.
    check_rejected(minimal, "box.packing_fraction: gives a box edge of",
                   {"species.0.radius=1e45", "box.packing_fraction=1e-40"});
    // (The lower bound cannot be reached: the edge is at least about 1.6 radii, and radii
    // are at least 1e-50.)
    CHECK(error_of(minimal, {"species.0.radius=1e40"}).empty());
}

TEST_CASE("species names: 1 to 64 of A-Z a-z 0-9 _ - . +") {
    for (const char* name : {"A", "Na+", "big_1", "x-2.5",
                             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"})
        CHECK(error_of(minimal, {std::string("species.0.name=\"") + name + "\""}).empty());
    check_rejected(minimal, "species[0].name: \"A\\x0aB\" is not a valid species name",
                   {"species.0.name=\"A\\nB\""});
    check_rejected(minimal, "species[0].name: \"\\xe2\\x80\\xae\" is not a valid",
                   {"species.0.name=\"\\u202e\""});
    check_rejected(minimal, "species[0].name: \"A B\" is not a valid", {"species.0.name=\"A B\""});
    check_rejected(minimal, "species[0].name: \"" + std::string(65, 'a') + "\" is not a valid",
                   {"species.0.name=\"" + std::string(65, 'a') + "\""});
}

TEST_CASE("at most 1024 species (the engine's pair tables are quadratic in their number)") {
    auto mixture = [](int n) {
        std::string text = "[box]\npacking_fraction = 0.1\n[run]\ntime = 1\n";
        for (int k = 0; k < n; ++k)
            text += "[[species]]\nname = \"S" + std::to_string(k) + "\"\ncount = 1\n";
        return text;
    };
    CHECK(error_of(mixture(1024)).empty());
    check_rejected(mixture(1025), "test.toml: species: 1025 species, more than the limit of 1024");
}

TEST_CASE("a key missing from a table that --set created is blamed on --set") {
    check_rejected(minimal, "--set: output.timeseries.path: required key is missing",
                   {"output.timeseries.every=1"});
    // The table is in the file: the file lacks the key.
    check_rejected(minimal + "[output.timeseries]\nevery = 1\n",
                   "test.toml: output.timeseries.path: required key is missing");
}

TEST_CASE("messages escape what the user wrote") {
    check_rejected(minimal + "[init]\nlattice = \"\\u001b[31m\"\n",
                   "init.lattice: unknown lattice \"\\x1b[31m\"");
    check_rejected(minimal, "--set \\x1b: expected KEY=VALUE", {"\x1b"});
}

TEST_CASE("the kernel's refusal of a box is worded by config key, as before") {
    // the kernel throws the facts (kernel/grid_error.hpp); the run makes its engine through
    // config_worded, whose InputError the app reports with exit status 2
    const choc::PeriodicEdgeTooShort e(0, 5.9, 2.0);
    CHECK(std::string(choc::config_error(e).what()) ==
          "box: periodic edge 5.9 is shorter than three largest diameters (6); use a larger box");
    CHECK_THROWS_WITH_AS(choc::config_worded([&]() -> int { throw e; }),
                         "box: periodic edge 5.9 is shorter than three largest diameters (6); "
                         "use a larger box",
                         InputError);
    CHECK(choc::config_worded([] { return 7; }) == 7);
}

TEST_CASE("the config as run shows each float in its shortest form, and reads back to the bit") {
    // toml++ as Debian builds it writes 0.1 as 0.10000000000000001 (issue 43)
    const toml::table doc = toml::parse(R"(
a = 0.1
b = 1e-9
c = [0.3, 100.0, 1e300, 5e-324, -2.5e-7]
d = { e = 0.7, s = "0.10000000000000001", t = 'x = 0.30000000000000004' }
n = 42
)");
    const std::string text = choc::document_text(doc);
    CHECK(text.find("a = 0.1\n") != std::string::npos);
    CHECK(text.find("b = 1e-09") != std::string::npos);
    CHECK(text.find("100.0") != std::string::npos);
    CHECK(text.find("n = 42") != std::string::npos);
    CHECK(text.find("0.69999999999999996") == std::string::npos);
    // strings are left as they are
    CHECK(text.find("0.10000000000000001'") != std::string::npos); // (toml++ quotes '...')
    CHECK(text.find("'x = 0.30000000000000004'") != std::string::npos);
    const toml::table back = toml::parse(text);
    CHECK(back == doc);
    CHECK(back["c"][3].value<double>() == 5e-324);
}

} // namespace test_config
