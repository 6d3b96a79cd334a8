// The sweep file and the table (sweep/sweep.hpp): ranges give the values a physicist
// writes (0.15, not 0.15000000000000002), grid and zip order the points, replicas take
// consecutive seeds, every run's outputs land in its own directory, collect keys are
// checked against the summary, and the table's mean and standard error are those of the
// replicas that completed validly and define the value.
#include <choc/errors.hpp>

#include "choc/sweep/summary_keys.hpp"
#include "choc/sweep/sweep.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace test_sweep {

namespace {

namespace fs = std::filesystem;

// A directory with a small base config, removed at the end.
struct Base {
    fs::path dir;
    Base() {
        std::string name = (fs::temp_directory_path() / "choc-sweep-XXXXXX").string();
        dir = ::mkdtemp(name.data());
        std::ofstream(dir / "base.toml") << "dimension = 3\n[box]\npacking_fraction = 0.2\n"
                                            "[[species]]\nname = \"A\"\ncount = 32\n"
                                            "[init]\nseed = 5\n[run]\ntime = 1.0\n"
                                            "[output]\nrdf = \"g/r.csv\"\n";
    }
    ~Base() { fs::remove_all(dir); }
    choc::SweepPlan plan(const std::string& text, const choc::SweepFileOptions& o = {}) const {
        return choc::parse_sweep("config = \"base.toml\"\noutput = \"out\"\n" + text, "sweep.toml",
                                 dir.string(), o);
    }
};

std::vector<std::string> values(const choc::SweepPlan& plan, std::size_t axis) {
    return plan.axes.at(axis).values;
}

choc::RunOutcome complete(std::vector<std::optional<double>> v, bool valid = true) {
    choc::RunOutcome o;
    o.status = choc::RunOutcome::Status::complete;
    o.valid = valid;
    o.values = std::move(v);
    return o;
}

} // namespace

TEST_CASE("sweep: ranges and values") {
    const Base base;
    auto axis = [&](const std::string& spec) {
        return values(base.plan("[[axes]]\nkey = \"box.packing_fraction\"\n" + spec), 0);
    };
    CHECK(axis("range = { from = 0.05, to = 0.45, step = 0.05 }") ==
          std::vector<std::string>{"0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.35", "0.4",
                                   "0.45"});
    CHECK(axis("range = { from = 0.1, to = 0.3, count = 3 }") ==
          std::vector<std::string>{"0.1", "0.2", "0.3"});
    CHECK(axis("range = { from = 0.1, to = 0.1, count = 1 }") == std::vector<std::string>{"0.1"});
    CHECK(axis("values = [0.1, 0.25]") == std::vector<std::string>{"0.1", "0.25"});
    // Integers stay integers (a count), floats stay floats even when whole.
    CHECK(values(base.plan("[[axes]]\nkey = \"species[0].count\"\n"
                           "range = { from = 100, to = 400, step = 150 }"),
                 0) == std::vector<std::string>{"100", "250", "400"});
    CHECK(values(base.plan("[[axes]]\nkey = \"run.time\"\nrange = { from = 1.0, to = 3.0, "
                           "count = 3 }"),
                 0) == std::vector<std::string>{"1.0", "2.0", "3.0"});
    CHECK(values(base.plan("[[axes]]\nkey = \"init.lattice\"\nvalues = [\"sc\", \"fcc\"]"), 0) ==
          std::vector<std::string>{"'sc'", "'fcc'"}); // (toml++'s literal strings)
    CHECK_THROWS_AS(axis("range = { from = 0.3, to = 0.1, count = 3 }"), choc::InputError);
    CHECK_THROWS_AS(axis("range = { from = 0.1, to = 0.3, count = 2, step = 0.1 }"),
                    choc::InputError);
    CHECK_THROWS_AS(axis("range = { from = 0.1, to = 0.3, step = 0 }"), choc::InputError);
    CHECK_THROWS_AS(axis("range = { from = 0.1, to = 0.3, count = 1 }"), choc::InputError);
    CHECK_THROWS_AS(axis("values = []"), choc::InputError);
    CHECK_THROWS_AS(axis("values = [0.1]\nrange = { from = 0.1, to = 0.3, count = 3 }"),
                    choc::InputError);
}

TEST_CASE("sweep: points, replicas, seeds and directories") {
    const Base base;
    const auto grid = base.plan("replicas = 2\n[[axes]]\nkey = \"box.packing_fraction\"\n"
                                "values = [0.1, 0.2]\n[[axes]]\nkey = \"species[0].count\"\n"
                                "values = [100, 200, 300]\n");
    REQUIRE(grid.points == 6);
    REQUIRE(grid.runs.size() == 12);
    // The first axis varies slowest.
    CHECK(grid.point_values[0] == std::vector<std::string>{"0.1", "100"});
    CHECK(grid.point_values[2] == std::vector<std::string>{"0.1", "300"});
    CHECK(grid.point_values[3] == std::vector<std::string>{"0.2", "100"});
    const choc::SweepRun& run = grid.runs[7]; // point 3, replica 1
    CHECK(run.point == 3);
    CHECK(run.replica == 1);
    CHECK(run.seed == 6);
    CHECK(run.config.seed == 6);
    CHECK(run.config.species[0].count == 100);
    CHECK(*run.config.packing_fraction == 0.2);
    // a point named by its values (issue 43): the same directory wherever it falls in the grid
    const fs::path directory =
        fs::path("out") / "p_box.packing_fraction=0.2,species.0.count=100" / "r1";
    CHECK(fs::path(run.directory) == directory);
    CHECK(fs::path(run.config.summary) == directory / "summary.json");
    CHECK(fs::path(*run.config.rdf) == directory / "g" / "r.csv");
    CHECK(fs::path(run.config.checkpoint->path) == directory / "checkpoint.chk");

    const auto zip = base.plan("combine = \"zip\"\n[[axes]]\nkey = \"box.packing_fraction\"\n"
                               "values = [0.1, 0.2]\n[[axes]]\nkey = \"init.seed\"\n"
                               "values = [100, 200]\n");
    REQUIRE(zip.points == 2);
    CHECK(zip.runs[1].seed == 200);
    CHECK(zip.runs[1].config.seed == 200);
    // No axes: one point, the base config.
    CHECK(base.plan("replicas = 3\n").runs.size() == 3);
    // --set on the base, --output for the directory, checkpoint_every for every run.
    choc::SweepFileOptions options;
    options.sets = {"species[0].count=40"};
    options.output = "elsewhere";
    const auto set = base.plan("checkpoint_every = 0.5\n", options);
    CHECK(set.runs[0].config.species[0].count == 40);
    CHECK(fs::path(set.runs[0].directory) == fs::path("elsewhere") / "p_all" / "r0");
    CHECK(*set.runs[0].config.checkpoint->every == 0.5);
}

TEST_CASE("sweep: histogram series move into each run's directory; ks_pvalue is collected") {
    const Base base;
    choc::SweepFileOptions options;
    options.sets = {"output.histogram={path=\"h.csv\", every=0.25}",
                    "output.velocity_histogram=\"v.csv\""};
    const auto plan =
        base.plan("replicas = 2\ncollect = [\"velocity_distribution.ks_pvalue\"]\n", options);
    REQUIRE(plan.runs.size() == 2);
    CHECK(plan.collect == std::vector<std::string>{"velocity_distribution.ks_pvalue"});
    const auto& config = plan.runs[1].config;
    const fs::path directory = fs::path("out") / "p_all" / "r1";
    REQUIRE(config.histogram);
    CHECK(fs::path(config.histogram->path) == directory / "h.csv");
    CHECK(config.histogram->every == 0.25);
    REQUIRE(config.velocity_histogram);
    CHECK(fs::path(config.velocity_histogram->path) == directory / "v.csv");
    CHECK(!config.velocity_histogram->every);
}

TEST_CASE("sweep: refusals name the key") {
    const Base base;
    auto message = [&](const std::string& text) -> std::string {
        try {
            base.plan(text);
        } catch (const choc::InputError& e) {
            return e.what();
        }
        return "";
    };
    auto contains = [](const std::string& text, const std::string& part) {
        return text.find(part) != std::string::npos;
    };
    CHECK(contains(message("[[axes]]\nkey = \"box.size\"\nvalues = [[3.0]]\n"),
                   "axes[0] (box.size = [3.0])"));
    CHECK(contains(message("[[axes]]\nkey = \"box.packing_fraction\"\nvalues = [0.1]\n"
                           "[[axes]]\nkey = \"box.packing_fraction\"\nvalues = [0.2]\n"),
                   "axes[1].key"));
    CHECK(contains(message("collect = [\"pressure.Z\", \"pressure.Z\"]\n"), "collect[1]"));
    CHECK(contains(message("collect = [\"species[1].temperature\"]\n"), "collect[0]"));
    CHECK(message("collect = [\"provenance.seed\"]\n").empty()); // a number: allowed
    // D beside its references, per species and from windows; collision rates per species:
    // numbers of a run that has them
    CHECK(message("collect = [\"diffusion.ratio\", \"diffusion.D_enskog\"]\n").empty());
    CHECK(message("collect = [\"diffusion.species[0].D\", \"diffusion.windows.D\", "
                  "\"diffusion.lags[0].D\"]\n")
              .empty());
    CHECK(message("collect = [\"species[0].collision_rate\"]\n").empty());
    // the event-driven engine's costs are numbers of an event-driven run
    CHECK(message("collect = [\"engine.pair_predictions\"]\n").empty());
    {
        choc::SweepFileOptions stepped; // ... and null for a time-stepped one
        stepped.sets = {"run.integrator=\"timestep\"", "run.dt=0.01"};
        std::string refused;
        try {
            base.plan("collect = [\"engine.pair_predictions\"]\n", stepped);
        } catch (const choc::InputError& e) {
            refused = e.what();
        }
        CHECK(contains(refused, "collect[0]"));
    }
    CHECK(contains(message("combine = \"cross\"\n"), "combine"));
    CHECK(contains(message("[[axes]]\nkey = \"output.rdf\"\nvalues = [\"x\"]\n"), "axes[0].key"));
    CHECK(contains(message("[[axes]]\nkey = \"box.packing_fraction\"\nvalues = [0.8]\n"),
                   "point 0 (box.packing_fraction = 0.8)"));
    CHECK(message("[[axes]]\nkey = \"init.seed\"\nvalues = [1]\n").empty());
    // An output that would leave the run's directory.
    choc::SweepFileOptions options;
    options.sets = {"output.rdf=\"../gr.csv\""};
    std::string leaving;
    try {
        base.plan("", options);
    } catch (const choc::InputError& e) {
        leaving = e.what();
    }
    CHECK(contains(leaving, "output.rdf"));
}

TEST_CASE("sweep: summary keys") {
    const nlohmann::json summary = nlohmann::json::parse(
        R"({"pressure": {"Z": 2.5, "Z_err": null}, "species": [{"temperature": 1.5}],
            "momentum": {"final": [0.0, 1.0, 2.0]}, "N": 32})");
    CHECK(choc::summary_value(summary, "pressure.Z") == 2.5);
    CHECK(!choc::summary_value(summary, "pressure.Z_err"));
    CHECK(choc::summary_value(summary, "species[0].temperature") == 1.5);
    CHECK(choc::summary_value(summary, "momentum.final[2]") == 2.0);
    CHECK(choc::summary_value(summary, "N") == 32.0);
    for (const char* bad : {"", ".", "pressure.", ".Z", "pressure..Z", "species[", "species[]",
                            "species[x]", "species[0]x", "species[-1].temperature", "a/b",
                            "pressure.Z.more", "species[5].temperature"})
        CHECK_MESSAGE(!choc::summary_value(summary, bad), bad);
}

TEST_CASE("sweep: the table's statistics") {
    const Base base;
    const auto plan = base.plan("replicas = 3\ncollect = [\"pressure.Z\", \"collision_rate\"]\n"
                                "[[axes]]\nkey = \"box.packing_fraction\"\nvalues = [0.1, 0.2]\n");
    std::vector<choc::RunOutcome> outcomes{
        complete({1.0, 4.0}),  complete({2.0, std::nullopt}), complete({4.0, 5.0}),
        complete({10.0, 1.0}), complete({99.0, 99.0}, false), complete({12.0, 3.0})};
    outcomes[4].collapsed = true;
    const auto rows = choc::aggregate(plan, outcomes);
    REQUIRE(rows.size() == 2);
    // Point 0: Z from 1, 2, 4: mean 7/3, s^2 = (16 + 1 + 25) / 9 / 2 = 7/3, sem = sqrt(7/9).
    CHECK(rows[0].replicas == 3);
    CHECK(rows[0].estimates[0].n == 3);
    CHECK(*rows[0].estimates[0].mean == doctest::Approx(7.0 / 3.0).epsilon(1e-15));
    CHECK(*rows[0].estimates[0].sem == doctest::Approx(std::sqrt(7.0 / 9.0)).epsilon(1e-15));
    // A null value is left out: collision rate from 4 and 5.
    CHECK(rows[0].estimates[1].n == 2);
    CHECK(*rows[0].estimates[1].mean == 4.5);
    CHECK(*rows[0].estimates[1].sem == doctest::Approx(0.5).epsilon(1e-15));
    // Point 1: the invalid run is counted (and its collapse) but not averaged.
    CHECK(rows[1].replicas == 3);
    CHECK(rows[1].invalid == 1);
    CHECK(rows[1].collapsed == 1);
    CHECK(rows[1].estimates[0].n == 2);
    CHECK(*rows[1].estimates[0].mean == 11.0);
    // One value: a mean without a standard error.
    std::vector<choc::RunOutcome> single(6, complete({std::nullopt, std::nullopt}));
    single[0] = complete({3.0, std::nullopt});
    const auto one = choc::aggregate(plan, single);
    CHECK(one[0].estimates[0].n == 1);
    CHECK(*one[0].estimates[0].mean == 3.0);
    CHECK(!one[0].estimates[0].sem);
    CHECK(!one[0].estimates[1].mean);
    const std::string csv = choc::sweep_table_csv(plan, one);
    CHECK(csv.substr(0, csv.find('\n')) ==
          "point,directory,box.packing_fraction,replicas,collapsed,invalid,pressure.Z,"
          "pressure.Z_sem,pressure.Z_n,collision_rate,collision_rate_sem,collision_rate_n");
    CHECK(csv.find("\n0,p_box.packing_fraction=0.1,0.1,3,0,0,3,,1,,,0\n") != std::string::npos);
}

} // namespace test_sweep
