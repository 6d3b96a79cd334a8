// Meshes for the tests of triangle walls (test_triangles, test_flat_patches): a planar
// quadrilateral as a grid of triangles, and a gas placed inside the cube [1, 11]³.
#pragma once

#include <choc/init/random_packing.hpp>
#include <choc/kernel/box.hpp>
#include <choc/kernel/particles.hpp>
#include <choc/kernel/triangle.hpp>

#include <random>
#include <vector>

// The quadrilateral a, b, c, d (in order round it, planar) as n x n small ones, two
// triangles each, of restitution e: a mesh whose shared edges and vertices a sphere meets
// all the time. Corners come from bilinear weights, so they carry round-off (~1e-16).
inline void add_quad(choc::Box<3>& box, const choc::Vec<3>& a, const choc::Vec<3>& b,
                     const choc::Vec<3>& c, const choc::Vec<3>& d, double e, int n = 1) {
    auto at = [&](int i, int j) {
        const double u = double(i) / n, w = double(j) / n;
        return a * ((1 - u) * (1 - w)) + b * (u * (1 - w)) + c * (u * w) + d * ((1 - u) * w);
    };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            box.triangles.push_back(
                choc::Triangle<3>::through(at(i, j), at(i + 1, j), at(i + 1, j + 1), e));
            box.triangles.push_back(
                choc::Triangle<3>::through(at(i, j), at(i + 1, j + 1), at(i, j + 1), e));
        }
}

// N spheres of radius 0.5 inside the cube [1, 11]³, clear of every wall and triangle,
// Gaussian velocities.
inline choc::Particles<3> gas_in_mesh(const choc::Box<3>& box, std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    const choc::Region<3> inside{choc::Vec<3>{{1.0, 1.0, 1.0}}, choc::Vec<3>{{11.0, 11.0, 11.0}}};
    const auto x = choc::random_packing(box, std::vector<double>(n, 0.5), rng, &inside);
    std::normal_distribution<double> gauss;
    choc::Particles<3> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}});
    for (const auto& xi : x) p.add(xi, choc::Vec<3>{{gauss(rng), gauss(rng), gauss(rng)}}, 0);
    return p;
}
