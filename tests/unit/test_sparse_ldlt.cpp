// SparseLdlt: the envelope LDL^T of the large collision groups, on definite and
// semidefinite matrices whose rank and range are known by construction.
//
// Tolerances. LDL^T without pivoting of a positive (semi)definite matrix is backward
// stable (sparse_ldlt.hpp, top): the computed x solves (A + E) x = b with
// |E| <= c n eps |A|, so the residual |A x - b| is at most c n eps |A| |x|. The tests use
// c = 16, as the dense elimination's tests do; a wrong fill position, a lost permutation
// or a pivot divided by its rounding noise shows up at O(1) or as an overflow.
// A dropped pivot is rounding noise, ~n eps A_jj, against the factorisation's relative
// threshold 1e-12; the kept ones of these random matrices are sin^2 of angles between
// random directions, far above it. So the reported rank is exact.
#include <doctest/doctest.h>

#include "dense_matrix.hpp"
#include "random_vectors.hpp"

#include <choc/kernel/sparse_ldlt.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace test_sparse_ldlt {

using choc::SparseLdlt;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();
constexpr double pivot_tolerance = 1e-12; // the group rule's GroupTolerances::sparse_pivot

using test_matrix::Matrix;
using test_matrix::max_abs;
using test_matrix::multiply;
using Pattern = std::vector<std::pair<std::size_t, std::size_t>>;

Pattern pattern_of(const Matrix& a) {
    Pattern p;
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (a[i][j] != 0.0) p.emplace_back(i, j);
    return p;
}

void load(SparseLdlt& ldlt, const Matrix& a) {
    ldlt.reset(a.size(), pattern_of(a));
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j <= i; ++j)
            if (a[i][j] != 0.0) ldlt.add(i, j, a[i][j]);
}

double max_abs(const Matrix& a) {
    double m = 0.0;
    for (const auto& row : a) m = std::max(m, max_abs(row));
    return m;
}

// |A x - b| against the backward-stability bound c n eps |A| |x| (+ the same of |b|).
void check_residual(const Matrix& a, const std::vector<double>& x, const std::vector<double>& b) {
    const std::vector<double> ax = multiply(a, x);
    const double bound = 16.0 * a.size() * eps * (max_abs(a) * max_abs(x) + max_abs(b));
    for (std::size_t i = 0; i < a.size(); ++i) {
        CAPTURE(i);
        CHECK(std::abs(ax[i] - b[i]) <= bound);
    }
}

// The Laplacian of a connected random sparse graph on n vertices (a random spanning
// tree plus `chords` random edges, random positive weights): semidefinite, rank n - 1,
// null space the constant vector, so b is in the range exactly when its sum is 0. The
// Delassus matrix of a closed loop of contacts is singular in the same way.
Matrix laplacian(RandomVectors& rnd, std::size_t n, std::size_t chords) {
    Matrix a(n, std::vector<double>(n, 0.0));
    auto connect = [&](std::size_t i, std::size_t j) {
        if (i == j) return;
        const double w = rnd.uniform(0.5, 2.0);
        a[i][j] -= w, a[j][i] -= w, a[i][i] += w, a[j][j] += w;
    };
    for (std::size_t i = 1; i < n; ++i)
        connect(i, static_cast<std::size_t>(rnd.uniform(0.0, static_cast<double>(i))));
    for (std::size_t c = 0; c < chords; ++c)
        connect(static_cast<std::size_t>(rnd.uniform(0.0, static_cast<double>(n))),
                static_cast<std::size_t>(rnd.uniform(0.0, static_cast<double>(n))));
    return a;
}

// A = B B^T with B n x r random and every column of B orthogonal to the unit vector w:
// rank r (r < n), and A w = 0, so A y + w is outside the range for any y.
Matrix low_rank(RandomVectors& rnd, std::size_t n, std::size_t r, std::vector<double>& w) {
    w.assign(n, 0.0);
    double w2 = 0.0;
    for (double& x : w) x = rnd.uniform(-1.0, 1.0), w2 += x * x;
    for (double& x : w) x /= std::sqrt(w2);
    Matrix b(n, std::vector<double>(r));
    for (std::size_t k = 0; k < r; ++k) {
        double along = 0.0;
        for (std::size_t i = 0; i < n; ++i) along += w[i] * (b[i][k] = rnd.uniform(-1.0, 1.0));
        for (std::size_t i = 0; i < n; ++i) b[i][k] -= along * w[i];
    }
    Matrix a(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t k = 0; k < r; ++k) a[i][j] += b[i][k] * b[j][k];
    return a;
}

} // namespace

TEST_CASE("sparse LDL^T: definite sparse matrices are solved to the backward-stability bound") {
    RandomVectors rnd(7);
    for (const std::size_t n : {1u, 2u, 30u, 200u}) {
        CAPTURE(n);
        // A graph Laplacian made definite by a positive diagonal shift.
        Matrix a = laplacian(rnd, n, n / 2);
        for (std::size_t i = 0; i < n; ++i) a[i][i] += rnd.uniform(0.1, 1.0);
        SparseLdlt ldlt;
        load(ldlt, a);
        CHECK(ldlt.factorize(pivot_tolerance) == n);
        std::vector<double> b(n), x;
        for (double& v : b) v = rnd.uniform(-1.0, 1.0);
        CHECK(ldlt.solve(b, x, 1e-9));
        check_residual(a, x, b);
        // Rows of the envelope: the ordering keeps a sparse graph's far below dense.
        if (n == 200) CHECK(ldlt.envelope_size() < n * n / 4);
    }
}

TEST_CASE("sparse LDL^T: a singular Laplacian has rank n - 1; b in its range is solved") {
    RandomVectors rnd(11);
    for (const std::size_t n : {2u, 3u, 40u, 300u}) {
        CAPTURE(n);
        const Matrix a = laplacian(rnd, n, n / 3);
        SparseLdlt ldlt;
        load(ldlt, a);
        CHECK(ldlt.factorize(pivot_tolerance) == n - 1);
        // Consistent: b = A y. The basic solution has exactly one unknown at 0.
        std::vector<double> y(n), x;
        for (double& v : y) v = rnd.uniform(-1.0, 1.0);
        const std::vector<double> b = multiply(a, y);
        CHECK(ldlt.solve(b, x, 1e-9));
        check_residual(a, x, b);
        CHECK(std::count(x.begin(), x.end(), 0.0) >= 1);
        // x - y is in the null space: a constant vector.
        for (std::size_t i = 1; i < n; ++i)
            CHECK(std::abs((x[i] - y[i]) - (x[0] - y[0])) <= 1e-9 * (max_abs(x) + max_abs(y)));
        // Inconsistent: a unit push on one vertex has a non-zero sum.
        std::vector<double> push(n, 0.0);
        push[n / 2] = 1.0;
        CHECK_FALSE(ldlt.solve(push, x, 1e-9));
    }
}

TEST_CASE("sparse LDL^T: dense low-rank matrices report their rank and their range") {
    RandomVectors rnd(13);
    for (const auto& [n, r] : {std::pair<std::size_t, std::size_t>{5, 1}, {12, 7}, {40, 39}}) {
        CAPTURE(n);
        CAPTURE(r);
        std::vector<double> w;
        const Matrix a = low_rank(rnd, n, r, w);
        SparseLdlt ldlt;
        load(ldlt, a);
        CHECK(ldlt.factorize(pivot_tolerance) == r);
        std::vector<double> y(n), x;
        for (double& v : y) v = rnd.uniform(-1.0, 1.0);
        std::vector<double> b = multiply(a, y);
        CHECK(ldlt.solve(b, x, 1e-9));
        check_residual(a, x, b);
        CHECK(static_cast<std::size_t>(std::count(x.begin(), x.end(), 0.0)) >= n - r);
        // Off the range by a unit step along the null vector w: refused.
        for (std::size_t i = 0; i < n; ++i) b[i] += w[i];
        CHECK_FALSE(ldlt.solve(b, x, 1e-9));
    }
}

} // namespace test_sparse_ldlt
