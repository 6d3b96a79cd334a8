// g(r) of configurations whose answer is known: a simple cubic lattice (six neighbours at
// the lattice spacing) and an ideal gas (g = 1).
#include <doctest/doctest.h>

#include "periodic_cube.hpp"

#include <choc/kernel/ball_volume.hpp>
#include <choc/observers/pair_correlation.hpp>

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace test_pair_correlation {

namespace {

std::vector<std::pair<double, double>> read(const std::string& csv) {
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);
    REQUIRE(line == "r,g");
    std::vector<std::pair<double, double>> rows;
    while (std::getline(in, line)) {
        const auto comma = line.find(',');
        rows.emplace_back(std::stod(line.substr(0, comma)), std::stod(line.substr(comma + 1)));
    }
    return rows;
}

} // namespace

TEST_CASE("simple cubic lattice: n * integral of g over the first shell is 6") {
    const int k = 8;
    const double a = 1.25, edge = k * a, dr = 0.02;
    choc::Particles<3> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}});
    for (int x = 0; x < k; ++x)
        for (int y = 0; y < k; ++y)
            for (int z = 0; z < k; ++z)
                p.add(choc::Vec<3>{{(x + 0.5) * a, (y + 0.5) * a, (z + 0.5) * a}}, {}, 0);
    choc::PairCorrelation<3> g(periodic_cube(edge), 3.0, dr);
    g.sample(p);
    g.sample(p);
    const double n = p.size() / (edge * edge * edge);
    double neighbours = 0.0, beyond = 0.0;
    for (const auto& [r, value] : read(g.csv())) {
        const double shell =
            choc::ball_volume<3>(r + 0.5 * dr) - choc::ball_volume<3>(r - 0.5 * dr);
        (r < 1.5 ? neighbours : beyond) += n * value * shell;
        if (r < a - dr) CHECK(value == 0.0);
    }
    CHECK(neighbours == doctest::Approx(6.0));
    // Then sqrt(2) a, sqrt(3) a, 2 a and sqrt(5) a (12, 8, 6 and 24 neighbours) lie
    // within r_max = 3; sqrt(6) a = 3.06 does not.
    CHECK(beyond == doctest::Approx(50.0));
}

TEST_CASE("ideal gas: g(r) = 1 within its counting noise") {
    const double edge = 12.0;
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(0.0, edge);
    choc::PairCorrelation<3> g(periodic_cube(edge), 4.0, 0.1);
    for (int s = 0; s < 5; ++s) {
        choc::Particles<3> p;
        p.table = choc::SpeciesTable({{"A", 0.5, 1.0}});
        for (int i = 0; i < 2000; ++i) p.add(choc::Vec<3>{{u(rng), u(rng), u(rng)}}, {}, 0);
        g.sample(p);
    }
    // Shells between r = 2 and 4 hold about 2000/2 * n * 4 pi r^2 * 0.1 * 5 > 5000 pairs
    // each: Poisson noise below 1.5 %, so 5 % is a five-sigma band.
    for (const auto& [r, value] : read(g.csv()))
        if (r > 2.0) CHECK(value == doctest::Approx(1.0).epsilon(0.05));
}

} // namespace test_pair_correlation
