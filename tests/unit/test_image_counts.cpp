// Periodic image counts of trajectory frames (observers/image_counts.hpp): folded positions
// plus counts times edges give the unwrapped path exactly, both ways across every edge;
// walled axes and the flow axis of a sheared box count nothing.
#include <doctest/doctest.h>

#include "periodic_cube.hpp"

#include <choc/io/xyz.hpp>
#include <choc/observers/image_counts.hpp>

#include <cmath>
#include <vector>

namespace test_image_counts {

// The folded positions of straight flights x0 + v t, as frames give them.
std::vector<choc::Vec<3>> folded(const choc::Box<3>& box, const std::vector<choc::Vec<3>>& x0,
                                 const std::vector<choc::Vec<3>>& v, double t) {
    std::vector<choc::Vec<3>> out;
    for (std::size_t i = 0; i < x0.size(); ++i)
        out.push_back(choc::folded_position(box, x0[i] + v[i] * t));
    return out;
}

TEST_CASE("folded positions plus counts times edges are the unwrapped flights") {
    const double edge = 10.0;
    const auto box = periodic_cube(edge);
    // Across the low and the high face, along each axis and diagonally; one at rest on the
    // edge itself.
    const std::vector<choc::Vec<3>> x0{
        {{9.5, 1.0, 1.0}}, {{0.5, 5.0, 5.0}}, {{3.0, 0.2, 9.9}}, {{0.0, 0.0, 0.0}}};
    const std::vector<choc::Vec<3>> v{
        {{3.0, 0.0, 0.0}}, {{0.0, -2.0, 4.0}}, {{-1.7, 2.9, -3.1}}, {{0.0, 0.0, 0.0}}};
    choc::ImageCounts<3> images(folded(box, x0, v, 0.0));
    // Steps of 0.25 time units move at most 1.0 along an axis, well below half an edge;
    // over t = 50 the paths cross their edges up to 20 times.
    for (int k = 1; k <= 200; ++k) {
        const double t = 0.25 * k;
        const auto now = folded(box, x0, v, t);
        images.advance(box, now);
        for (std::size_t i = 0; i < x0.size(); ++i)
            for (int a = 0; a < 3; ++a) {
                const double unwrapped =
                    now[i][a] +
                    static_cast<double>(images.counts()[i][static_cast<std::size_t>(a)]) * edge;
                // the fold rounds by an ulp of the edge at most: 1e-12 is far below one edge
                REQUIRE(std::abs(unwrapped - (x0[i][a] + v[i][a] * t)) < 1e-12);
            }
    }
    CHECK(images.counts()[0][0] == 15); // 9.5 + 150 = 159.5: fifteen edges up
    CHECK(images.counts()[1][1] == -10);
    CHECK(images.counts()[1][2] == 20);
    CHECK(images.counts()[3] == choc::ImageCounts<3>::Count{});
    CHECK(images.largest_step() == doctest::Approx(1.0 / edge));
}

TEST_CASE("a walled axis and a sheared box's flow axis have no counts") {
    auto box = periodic_cube(10.0);
    box.periodic[1] = false;
    const std::vector<choc::Vec<3>> x0{{{9.9, 5.0, 9.9}}};
    const std::vector<choc::Vec<3>> v{{{1.0, 0.0, 1.0}}};
    choc::ImageCounts<3> walled(folded(box, x0, v, 0.0));
    walled.advance(box, folded(box, x0, v, 0.5));
    CHECK(walled.counts()[0] == choc::ImageCounts<3>::Count{1, 0, 1});

    auto sheared = periodic_cube(10.0);
    sheared.shear_rate = 0.1;
    choc::ImageCounts<3> flow(folded(sheared, x0, v, 0.0));
    flow.advance(sheared, folded(sheared, x0, v, 0.5));
    CHECK(flow.counts()[0] == choc::ImageCounts<3>::Count{0, 0, 1});
}

} // namespace test_image_counts
