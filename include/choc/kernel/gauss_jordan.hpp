// A small dense linear solver: Gauss–Jordan elimination with full (row and column)
// pivoting, for the collision-group systems (a few dozen unknowns). It reports the
// numerical rank and, for a rank-deficient system, whether it is consistent; the caller
// decides what a singular system means.
#pragma once

#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <vector>

namespace choc {

// Relative rank tolerance for an n x n system: a pivot below tolerance * max|a_ij| is
// taken as zero. Why n eps times a small factor: elimination with full pivoting is
// backward stable, the computed reduction is exact for A + E with
//     max|E| <= c n eps g max|A|,   g = growth factor,
// and with full pivoting g stays of order 1 in practice (Wilkinson's bound is far larger
// but never met; multipliers are <= 1 by construction). A remaining pivot below that size
// is indistinguishable from an exact zero of a matrix within rounding of A, so the rank
// cannot be decided more finely. 16 (dense_rank_factor) covers c g with margin; a nonsingular
// system with condition number below ~1 / (16 n eps) ~ 1e13 (n ~ 30) is never called
// singular.
inline double default_rank_tolerance(std::size_t n) {
    return dense_rank_factor * static_cast<double>(std::max<std::size_t>(n, 1)) *
           std::numeric_limits<double>::epsilon();
}

struct GaussJordanResult {
    std::size_t rank = 0;
    bool consistent = true; // false: rank-deficient and no x satisfies the dependent rows
};

// A x = b for square A, row-major. Owns its workspace: reset(n) reuses the storage once
// it has been sized for the largest n, so repeated solves do not allocate.
class GaussJordan {
  public:
    // Zeroes an n x n matrix and its right-hand side.
    void reset(std::size_t n) {
        n_ = n;
        a_.assign(n * n, 0.0);
        b_.assign(n, 0.0);
        x_.assign(n, 0.0);
        column_.resize(n);
    }

    std::size_t size() const { return n_; }
    double& a(std::size_t row, std::size_t col) { return a_[row * n_ + col]; }
    double& b(std::size_t row) { return b_[row]; }

    // The solution of the last solve(), indexed by the original unknown.
    const std::vector<double>& x() const { return x_; }
    double x(std::size_t unknown) const { return x_[unknown]; }

    // Eliminates in place (A and b are overwritten). Full rank: x is the solution.
    // Rank r < n: x is the basic solution that sets the n - r unknowns without a pivot
    // to zero; `consistent` says whether it satisfies the n - r dependent equations to
    // within the tolerance (relative to max|b|), i.e. whether it solves the system at all.
    GaussJordanResult solve(double relative_tolerance) {
        const std::size_t n = n_;
        // column_[p] = the unknown whose column now sits at position p (column swaps
        // permute the unknowns; the rows of b follow the row swaps automatically).
        std::iota(column_.begin(), column_.end(), std::size_t{0});
        double a_max = 0.0, b_max = 0.0;
        for (double v : a_) a_max = std::max(a_max, std::abs(v));
        for (double v : b_) b_max = std::max(b_max, std::abs(v));
        const double pivot_floor = relative_tolerance * a_max;

        std::size_t k = 0;
        for (; k < n; ++k) {
            // Full pivoting: the largest entry of the remaining block A[k:, k:].
            std::size_t pr = k, pc = k;
            double best = -1.0;
            for (std::size_t i = k; i < n; ++i)
                for (std::size_t j = k; j < n; ++j)
                    if (std::abs(a(i, j)) > best) best = std::abs(a(i, j)), pr = i, pc = j;
            if (!(best > pivot_floor)) break; // the rest is rounding noise: rank k
            swap_rows(k, pr);
            swap_columns(k, pc);

            // Scale the pivot row to 1 at the pivot ...
            const double inv = 1.0 / a(k, k);
            for (std::size_t j = k + 1; j < n; ++j) a(k, j) *= inv;
            b(k) *= inv;
            a(k, k) = 1.0;
            // ... and clear column k in every other row, above and below (Jordan):
            //     row_i -= a_ik row_k.
            // Columns < k of row k are already zero, so only j > k changes.
            for (std::size_t i = 0; i < n; ++i) {
                if (i == k) continue;
                const double f = a(i, k);
                if (f == 0.0) continue;
                for (std::size_t j = k + 1; j < n; ++j) a(i, j) -= f * a(k, j);
                b(i) -= f * b(k);
                a(i, k) = 0.0;
            }
        }

        GaussJordanResult result;
        result.rank = k;
        double x_max = 0.0;
        for (std::size_t p = 0; p < n; ++p) {
            x_[column_[p]] = p < k ? b(p) : 0.0;
            if (p < k) x_max = std::max(x_max, std::abs(b(p)));
        }
        // Rows k.. of A are (numerically) zero: they read 0 = b_i, up to the rounding the
        // elimination left in b_i, of relative size tolerance on the terms it summed,
        // |b| and |A| |x| (multipliers are <= 1, as for A itself).
        const double b_floor = relative_tolerance * (b_max + a_max * x_max);
        for (std::size_t i = k; i < n; ++i)
            if (!(std::abs(b(i)) <= b_floor)) result.consistent = false;
        return result;
    }

  private:
    void swap_rows(std::size_t r, std::size_t s) {
        if (r == s) return;
        for (std::size_t j = 0; j < n_; ++j) std::swap(a(r, j), a(s, j));
        std::swap(b_[r], b_[s]);
    }
    void swap_columns(std::size_t c, std::size_t d) {
        if (c == d) return;
        for (std::size_t i = 0; i < n_; ++i) std::swap(a(i, c), a(i, d));
        std::swap(column_[c], column_[d]);
    }

    std::size_t n_ = 0;
    std::vector<double> a_, b_, x_;
    std::vector<std::size_t> column_;
};

} // namespace choc
