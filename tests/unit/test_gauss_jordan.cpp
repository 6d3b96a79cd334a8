// GaussJordan: exact small systems, column-permutation bookkeeping, random systems
// against backward-stability bounds, and rank detection on singular systems.
//
// Tolerances. Elimination with full pivoting is backward stable: the computed x solves
// (A + E) x = b with max|E| <= c n eps max|A| (c a small constant, growth ~1), so
//     residual  |A x - b|_inf <= c n eps |A|_inf |x|_inf         (any A)
//     error     |x - x*|_inf  <= kappa_inf(A) c n eps |x*|_inf    (to first order)
// The tests use c = 16, the factor default_rank_tolerance() is built on; a wrong pivot,
// a lost permutation or a missed row shows up at O(1), far above these bounds.
#include <doctest/doctest.h>

#include "dense_matrix.hpp"
#include "random_vectors.hpp"

#include <choc/kernel/gauss_jordan.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace test_gauss_jordan {

using choc::GaussJordan;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

using test_matrix::Matrix;
using test_matrix::max_abs;
using test_matrix::multiply;

void load(GaussJordan& gj, const Matrix& a, const std::vector<double>& b) {
    gj.reset(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t j = 0; j < a.size(); ++j) gj.a(i, j) = a[i][j];
        gj.b(i) = b[i];
    }
}

double norm_inf(const Matrix& a) {
    double m = 0.0;
    for (const auto& row : a) {
        double s = 0.0;
        for (double x : row) s += std::abs(x);
        m = std::max(m, s);
    }
    return m;
}

// Entries uniform in [-1, 1].
Matrix random_matrix(RandomVectors& rnd, std::size_t n) {
    Matrix a(n, std::vector<double>(n));
    for (auto& row : a)
        for (double& x : row) x = rnd.uniform(-1.0, 1.0);
    return a;
}

// The rank-r product of random n x r and r x n factors.
Matrix random_rank(RandomVectors& rnd, std::size_t n, std::size_t r) {
    Matrix u(n, std::vector<double>(r)), v(r, std::vector<double>(n));
    for (auto& row : u)
        for (double& x : row) x = rnd.uniform(-1.0, 1.0);
    for (auto& row : v)
        for (double& x : row) x = rnd.uniform(-1.0, 1.0);
    Matrix a(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t k = 0; k < r; ++k) a[i][j] += u[i][k] * v[k][j];
    return a;
}

} // namespace

TEST_CASE("gauss_jordan: a small system with an integer solution") {
    // 2x + y - z = 8, -3x - y + 2z = -11, -2x + y + 2z = -3  =>  (2, 3, -1).
    GaussJordan gj;
    load(gj, {{2, 1, -1}, {-3, -1, 2}, {-2, 1, 2}}, {8, -11, -3});
    const auto result = gj.solve(choc::default_rank_tolerance(3));
    CHECK(result.rank == 3);
    CHECK(result.consistent);
    // |x| ~ 3, |A| ~ 6: 16 n eps |A| |x| ~ 3e-13 covers it with a huge margin; the
    // solution is exact to a few ulp.
    CHECK(std::abs(gj.x(0) - 2.0) <= 8 * eps * 3);
    CHECK(std::abs(gj.x(1) - 3.0) <= 8 * eps * 3);
    CHECK(std::abs(gj.x(2) + 1.0) <= 8 * eps * 3);
}

TEST_CASE("gauss_jordan: column pivoting maps the unknowns back") {
    // The largest entries sit off the diagonal, so full pivoting swaps columns at every
    // step; distinct x* values catch any unknown put back in the wrong place.
    const Matrix a = {{1, 100, 0, 0}, {0, 1, 0, 1000}, {10, 0, 1, 0}, {0, 0, 50, 1}};
    const std::vector<double> x_true = {1.0, -2.0, 3.0, 0.5};
    GaussJordan gj;
    load(gj, a, multiply(a, x_true));
    const auto result = gj.solve(choc::default_rank_tolerance(4));
    CHECK(result.rank == 4);
    // kappa_inf(a) < 1e5: error <= 1e5 * 16 * 4 * eps * 3 ~ 4e-9; in fact it is ~1e-15.
    for (std::size_t i = 0; i < 4; ++i) CHECK(std::abs(gj.x(i) - x_true[i]) <= 1e-12);

    // A pure permutation: x_i = b_{p(i)} exactly (each step only swaps and scales by 1).
    const Matrix p = {{0, 0, 1, 0}, {1, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}};
    load(gj, p, {10, 20, 30, 40});
    CHECK(gj.solve(choc::default_rank_tolerance(4)).rank == 4);
    CHECK(gj.x(0) == 20);
    CHECK(gj.x(1) == 40);
    CHECK(gj.x(2) == 10);
    CHECK(gj.x(3) == 30);
}

TEST_CASE("gauss_jordan: random diagonally dominant systems to kappa n eps") {
    // A = R + n I with R uniform in [-1, 1]: every row has |a_ii| - sum_j!=i |a_ij| >= 1,
    // so |A^-1|_inf <= 1, |A|_inf <= 2n and kappa_inf <= 2n.
    RandomVectors rnd(11);
    GaussJordan gj;
    for (std::size_t n : {1u, 2u, 5u, 12u, 30u}) {
        for (int k = 0; k < 20; ++k) {
            CAPTURE(n);
            CAPTURE(k);
            Matrix a = random_matrix(rnd, n);
            for (std::size_t i = 0; i < n; ++i) a[i][i] += static_cast<double>(n);
            std::vector<double> x_true(n);
            for (double& x : x_true) x = rnd.uniform(-10.0, 10.0);
            load(gj, a, multiply(a, x_true));
            const auto result = gj.solve(choc::default_rank_tolerance(n));
            REQUIRE(result.rank == n);
            const double bound = 2.0 * n * 16.0 * n * eps * max_abs(x_true);
            for (std::size_t i = 0; i < n; ++i) CHECK(std::abs(gj.x(i) - x_true[i]) <= bound);
        }
    }
}

TEST_CASE("gauss_jordan: random general systems have a round-off residual") {
    // No bound on kappa here, so only the backward error is checked: the residual.
    RandomVectors rnd(12);
    GaussJordan gj;
    for (std::size_t n : {3u, 8u, 20u, 40u}) {
        for (int k = 0; k < 20; ++k) {
            CAPTURE(n);
            CAPTURE(k);
            const Matrix a = random_matrix(rnd, n);
            std::vector<double> b(n);
            for (double& x : b) x = rnd.uniform(-1.0, 1.0);
            load(gj, a, b);
            const auto result = gj.solve(choc::default_rank_tolerance(n));
            REQUIRE(result.rank == n); // random matrices are singular with probability 0
            const std::vector<double> ax = multiply(a, gj.x());
            const double bound = 16.0 * n * eps * norm_inf(a) * max_abs(gj.x());
            for (std::size_t i = 0; i < n; ++i) CHECK(std::abs(ax[i] - b[i]) <= bound);
        }
    }
}

TEST_CASE("gauss_jordan: rank of singular systems, and consistency") {
    RandomVectors rnd(13);
    GaussJordan gj;
    for (std::size_t n : {2u, 5u, 10u, 24u}) {
        for (std::size_t r = 0; r < n; ++r) {
            CAPTURE(n);
            CAPTURE(r);
            const Matrix a = random_rank(rnd, n, r);
            // b in the range of A (b = A y): consistent, and the basic solution solves it.
            std::vector<double> y(n);
            for (double& x : y) x = rnd.uniform(-1.0, 1.0);
            const std::vector<double> b = multiply(a, y);
            load(gj, a, b);
            const auto result = gj.solve(choc::default_rank_tolerance(n));
            CHECK(result.rank == r);
            CHECK(result.consistent);
            const std::vector<double> ax = multiply(a, gj.x());
            const double scale = norm_inf(a) * (max_abs(gj.x()) + max_abs(y));
            for (std::size_t i = 0; i < n; ++i)
                CHECK(std::abs(ax[i] - b[i]) <= 16.0 * n * eps * scale);
            // The n - r unknowns without a pivot are exactly zero in the basic solution.
            std::size_t zeros = 0;
            for (double x : gj.x()) zeros += x == 0.0;
            CHECK(zeros >= n - r);

            // b with a component outside the range: inconsistent (a random b is outside
            // the r-dimensional range with probability 1, by O(1) of |b|).
            std::vector<double> c(n);
            for (double& x : c) x = rnd.uniform(-1.0, 1.0);
            load(gj, a, c);
            const auto bad = gj.solve(choc::default_rank_tolerance(n));
            CHECK(bad.rank == r);
            CHECK_FALSE(bad.consistent);
        }
    }
    // Two equal rows: rank n - 1, consistent exactly when the right-hand sides agree.
    const Matrix twins = {{1, 2, 3}, {4, 5, 6}, {1, 2, 3}};
    load(gj, twins, {6, 15, 6});
    auto result = gj.solve(choc::default_rank_tolerance(3));
    CHECK(result.rank == 2);
    CHECK(result.consistent);
    load(gj, twins, {6, 15, 7});
    result = gj.solve(choc::default_rank_tolerance(3));
    CHECK(result.rank == 2);
    CHECK_FALSE(result.consistent);
}

TEST_CASE("gauss_jordan: the workspace is reused across sizes") {
    GaussJordan gj;
    RandomVectors rnd(14);
    Matrix big = random_matrix(rnd, 16);
    for (std::size_t i = 0; i < 16; ++i) big[i][i] += 16.0;
    load(gj, big, std::vector<double>(16, 1.0));
    CHECK(gj.solve(choc::default_rank_tolerance(16)).rank == 16);
    // A smaller system after a larger one: nothing of the old one may leak in.
    load(gj, {{2, 0}, {0, 4}}, {1, 1});
    CHECK(gj.solve(choc::default_rank_tolerance(2)).rank == 2);
    CHECK(gj.x(0) == 0.5);
    CHECK(gj.x(1) == 0.25);
    CHECK(gj.x().size() == 2);
    // The zero matrix has rank 0; with b = 0 it is consistent and x = 0.
    load(gj, {{0, 0}, {0, 0}}, {0, 0});
    const auto zero = gj.solve(choc::default_rank_tolerance(2));
    CHECK(zero.rank == 0);
    CHECK(zero.consistent);
    CHECK(gj.x(0) == 0.0);
}

} // namespace test_gauss_jordan
