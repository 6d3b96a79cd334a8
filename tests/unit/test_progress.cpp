// The progress line's rate and ETA (run/progress.hpp): this process's work only.
#include "choc/run/progress.hpp"

#include <doctest/doctest.h>

#include <string>

namespace test_progress {

using namespace choc;

TEST_CASE("a continuation's progress counts this process's collisions and seconds only") {
    // A run to t = 100 continued from t = 50 with 5e6 collisions behind it: at its first
    // update it stands at t = 51, 5.1e6 collisions, 1 s in; at t = 61, 6.1e6 collisions,
    // 11 s in. This process did 1e6 collisions in 10 s (0.1 M/s) and 10 time units of the
    // 39 left in 10 s: 39 s to go. Counting from the run's start would say 6.1e6 / 11 s =
    // 0.555 M/s and 11 * 0.39 / 0.61 = 7 s.
    Progress p(false, false, 100.0, std::nullopt);
    p.line(51.0, 5'100'000, 1.0);
    const std::string s = p.line(61.0, 6'100'000, 11.0);
    CHECK(s == "t = 61  collisions = 6100000  0.1 M/s  61%  ETA 39s");
}

TEST_CASE("a collision-limited run's ETA follows its collisions; the label leads the line") {
    Progress p(false, false, std::nullopt, 1'000'000, "equilibrating");
    p.line(0.0, 0, 0.0);
    CHECK(p.line(2.0, 250'000, 5.0) ==
          "equilibrating  t = 2  collisions = 250000  0.05 M/s  25%  ETA 15s");
    // nothing done since the first update: no rate, no ETA
    Progress q(false, false, 10.0, std::nullopt);
    q.line(3.0, 100, 2.0);
    CHECK(q.line(3.0, 100, 4.0) == "t = 3  collisions = 100  0 M/s  30%  ETA ?");
}

} // namespace test_progress
