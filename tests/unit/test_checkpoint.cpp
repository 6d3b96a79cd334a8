// Checkpoint files (run/checkpoint.hpp): what is written reads back, a file cut at any
// length or with any byte changed is refused with InputError (never misread, never a
// crash), and config_difference names the first key a continuation may not change.
#include <choc/errors.hpp>

#include "choc/run/checkpoint.hpp"

#include <doctest/doctest.h>

#include <string>

namespace test_checkpoint {

namespace {

choc::Checkpoint sample() {
    choc::Checkpoint c;
    c.config = "dimension = 2\n[run]\ntime = 1.0\n";
    c.dimension = 2;
    c.field = true;
    for (int k = 0; k < 300; ++k) c.state.push_back(static_cast<char>(k * 37));
    return c;
}

} // namespace

TEST_CASE("checkpoint: bytes read back as written") {
    const auto c = sample();
    const auto back = choc::parse_checkpoint(choc::checkpoint_bytes(c), "test");
    CHECK(back.config == c.config);
    CHECK(back.dimension == 2);
    CHECK(back.field);
    CHECK(back.state == c.state);
}

TEST_CASE("checkpoint: every truncation and every changed byte is refused") {
    const std::string bytes = choc::checkpoint_bytes(sample());
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        CAPTURE(n);
        CHECK_THROWS_AS((void)choc::parse_checkpoint(bytes.substr(0, n), "test"), choc::InputError);
    }
    // CRC-32 detects every single-bit error; one bit per byte, cycling through the bits
    for (std::size_t k = 0; k < bytes.size(); ++k) {
        CAPTURE(k);
        std::string bad = bytes;
        bad[k] = static_cast<char>(bad[k] ^ (1 << (k % 8)));
        CHECK_THROWS_AS((void)choc::parse_checkpoint(bad, "test"), choc::InputError);
    }
    CHECK_THROWS_WITH_AS((void)choc::parse_checkpoint(bytes + "x", "test"),
                         doctest::Contains("checksum"), choc::InputError);
    CHECK_THROWS_WITH_AS((void)choc::parse_checkpoint("dimension = 3\n", "test"),
                         doctest::Contains("not a choc checkpoint"), choc::InputError);
}

TEST_CASE("checkpoint: the config may change only in limits, checkpoints and paths") {
    const std::string base = R"(dimension = 3
[run]
time = 10.0
equilibrate = 1.0
[[species]]
name = "A"
count = 100
[output]
summary = "a.json"
trajectory = { path = "a.xyz", every = 1.0 }
checkpoint = { path = "a.chk", every = 2.0 }
)";
    auto changed = [&](const std::string& from, const std::string& to) {
        std::string text = base;
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        return choc::config_difference(base, text.replace(at, from.size(), to));
    };
    CHECK(choc::config_difference(base, base) == std::nullopt);
    CHECK(changed("time = 10.0", "time = 20.0") == std::nullopt);
    CHECK(changed("time = 10.0", "collisions = 5") == std::nullopt);
    CHECK(changed("\"a.json\"", "\"b.json\"") == std::nullopt);
    CHECK(changed("path = \"a.xyz\"", "path = \"b.xyz\"") == std::nullopt);
    CHECK(changed("checkpoint = { path = \"a.chk\", every = 2.0 }", "") == std::nullopt);
    // the trajectory's size limit, added or changed (a run stopped by it goes on with more)
    CHECK(changed("every = 1.0 }", "every = 1.0, max_bytes = 1e6 }") == std::nullopt);
    CHECK(changed("equilibrate = 1.0", "equilibrate = 2.0") == "run.equilibrate");
    CHECK(changed("count = 100", "count = 101") == "species[0].count");
    CHECK(changed("every = 1.0 }", "every = 0.5 }") == "output.trajectory.every");
    CHECK(changed("trajectory = { path = \"a.xyz\", every = 1.0 }", "") ==
          "output.trajectory.every");
    CHECK(changed("[output]", "[field]\ndrag = 0.1\n[output]") == "field.drag");
}

} // namespace test_checkpoint
