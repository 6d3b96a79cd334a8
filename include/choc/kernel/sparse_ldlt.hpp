// A sparse symmetric positive definite solver for the large collision groups: reverse
// Cuthill–McKee ordering (Boost.Graph) and an envelope (variable-band, "skyline") LDL^T
// factorisation. Used by the group rule (group_rule.hpp) on the Delassus matrix
// A = J M^-1 J^T of a group's active contacts, whose entry (k, l) is non-zero only when
// contacts k and l share a finite-mass body.
//
// Why an envelope factorisation. Cholesky (or LDL^T) without pivoting creates fill only
// inside the envelope: entry (i, j), j < i, of L can be non-zero only if some A_ik != 0
// with k <= j (George & Liu, "Computer Solution of Large Sparse Positive Definite
// Systems", 1981, thm 4.1.1). So storing each row from its first non-zero to the
// diagonal holds the whole factor with no symbolic phase. The cost is sum_i b_i^2 for row
// widths b_i. Reverse Cuthill–McKee, a breadth-first numbering from a peripheral vertex,
// keeps the widths small on the contact graphs of discs and spheres: a chain or a tree
// of contacts has widths of order 1 (O(K) work), a 2D pile of K contacts widths of order
// sqrt(K) (O(K^2) work), a 3D pile K^(2/3); against O(K^3) for the dense elimination.
//
// Why no pivoting. For a symmetric positive definite A, LDL^T without pivoting is
// backward stable (the pivots are Schur complements, 0 < d_i <= A_ii, and |L_ij| d_j^1/2
// <= A_ii^1/2: no growth; Higham, "Accuracy and Stability of Numerical Algorithms",
// 2nd ed., §10.1).
//
// Semidefinite matrices. A is only semidefinite when the active contacts' normals are
// linearly dependent (a pile: a hexagonal layer has three contacts per disc and two
// degrees of freedom; closed loops of walls). Then some Schur complement vanishes in
// exact arithmetic, and is rounding noise in practice. For a semidefinite matrix a zero
// pivot d_j comes with a zero column below it in the Schur complement (a 2 x 2 principal
// minor d_j s_l - g^2 >= 0 forces g = 0 when d_j = 0), so row j of A is a combination of
// the rows before it. The factorisation then keeps going with d_j dropped: row j keeps
// its multipliers L_jk (they express that combination), and the later rows take
// L_lj = 0 instead of dividing by the noise. That is A = L D L^T with D_jj = 0, the
// factorisation of the independent rows. A pivot counts as zero at d_j <= tolerance A_jj
// (d_j = A_jj sin^2 of the angle between row j and the span of the rows before it in the
// A-metric): a relative tolerance far above the rounding (~n eps) and far below any
// geometry a user means as independent.
// Solving A x = b then gives the basic solution: x_j = 0 for every dropped j, as the
// dense elimination's basic solution sets its unknowns without a pivot to zero. It
// solves A x = b only if b lies in the range of A (the dependent rows agree with the
// others); solve() checks the residual, the same test the dense elimination makes
// (gauss_jordan.hpp): |A x - b| <= tolerance (max|b| + max|A| max|x|).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace choc {

// The reverse Cuthill–McKee order of the graph on n vertices with the given edges (pairs
// i != j; others ignored): order[p] is the vertex at position p. Boost.Graph's
// cuthill_mckee_ordering, compiled in lib/choc/kernel/sparse_ldlt.cpp (its headers take
// seconds to compile, so they stay out of every header).
std::vector<std::size_t>
reverse_cuthill_mckee(std::size_t n, const std::vector<std::pair<std::size_t, std::size_t>>& edges);

class SparseLdlt {
  public:
    // Starts an n x n symmetric matrix with the given off-diagonal pattern: each pair
    // (i, j), i != j, listed once or more, in either order. Orders the unknowns and sizes
    // the envelope; entries are then added with add(), all zero until then.
    void reset(std::size_t n, const std::vector<std::pair<std::size_t, std::size_t>>& pattern) {
        n_ = n;
        order_ = reverse_cuthill_mckee(n, pattern);
        position_.assign(n, 0);
        for (std::size_t p = 0; p < n; ++p) position_[order_[p]] = p;

        // first_[p]: the first column stored in row p (its first non-zero, or p).
        first_.assign(n, 0);
        for (std::size_t p = 0; p < n; ++p) first_[p] = p;
        for (const auto& [i, j] : pattern) {
            const std::size_t p = position_[i], q = position_[j];
            const std::size_t row = std::max(p, q), col = std::min(p, q);
            first_[row] = std::min(first_[row], col);
        }
        start_.assign(n + 1, 0);
        for (std::size_t p = 0; p < n; ++p) start_[p + 1] = start_[p] + (p - first_[p] + 1);
        envelope_.assign(start_[n], 0.0);
        diagonal_.assign(n, 0.0);
    }

    std::size_t size() const { return n_; }
    // Entries stored (the envelope, diagonal included): the memory, and a cost measure.
    std::size_t envelope_size() const { return start_.empty() ? 0 : start_[n_]; }

    // A_ij += value, in the caller's numbering; (i, j) must be in the pattern or i == j.
    // Give each off-diagonal entry once, as (i, j) or (j, i): only the lower half is kept.
    void add(std::size_t i, std::size_t j, double value) {
        const std::size_t p = position_[i], q = position_[j];
        const std::size_t row = std::max(p, q), col = std::min(p, q);
        at(row, col) += value;
    }

    // Factorises A = L D L^T in place and returns the rank: n minus the pivots that fell
    // to tolerance * A_jj or below, which are dropped (see the top).
    std::size_t factorize(double relative_tolerance) {
        matrix_ = envelope_; // kept for the residual check of solve()
        dropped_.assign(n_, false);
        rank_ = n_;
        for (std::size_t i = 0; i < n_; ++i) {
            diagonal_[i] = at(i, i);
            const std::size_t fi = first_[i];
            // Row i, left to right: g_ij = L_ij d_j = A_ij - sum_{k<j} g_ik L_jk, where
            // g_ik is kept in row i until the row is done and L_jk is row j's final value
            // (0 in every column k that was dropped).
            for (std::size_t j = fi; j < i; ++j) {
                const std::size_t from = std::max(fi, first_[j]);
                double g = at(i, j);
                const double* ri = &at(i, from);
                const double* rj = &at(j, from);
                for (std::size_t k = 0; k < j - from; ++k) g -= ri[k] * rj[k];
                at(i, j) = g;
            }
            // d_i = A_ii - sum_j g_ij^2 / d_j, and L_ij = g_ij / d_j; L_ij = 0 below a
            // dropped pivot d_j.
            double d = at(i, i);
            for (std::size_t j = fi; j < i; ++j) {
                if (dropped_[j]) {
                    at(i, j) = 0.0;
                    continue;
                }
                const double l = at(i, j) / at(j, j);
                d -= at(i, j) * l;
                at(i, j) = l;
            }
            if (!(d > relative_tolerance * diagonal_[i])) {
                dropped_[i] = true;
                --rank_;
                d = 0.0;
            }
            at(i, i) = d;
        }
        return rank_;
    }

    // Solves A x = b after factorize(), b and x in the caller's numbering: the solution
    // when A has full rank, else the basic solution (top). False if it does not solve
    // the system to the relative `tolerance` (b outside the range of a singular A).
    bool solve(const std::vector<double>& b, std::vector<double>& x, double tolerance) {
        work_.resize(n_);
        for (std::size_t p = 0; p < n_; ++p) work_[p] = b[order_[p]];
        // L y = b, forward: y_i = b_i - sum_j L_ij y_j.
        for (std::size_t i = 0; i < n_; ++i) {
            double y = work_[i];
            for (std::size_t j = first_[i]; j < i; ++j) y -= at(i, j) * work_[j];
            work_[i] = y;
        }
        // D z = y (z_j = 0 where d_j was dropped), then L^T x = z backward: x_i is final
        // once rows > i are done; its column of L^T is row i of L.
        for (std::size_t i = 0; i < n_; ++i) work_[i] = dropped_[i] ? 0.0 : work_[i] / at(i, i);
        for (std::size_t i = n_; i-- > 0;) {
            const double xi = work_[i];
            for (std::size_t j = first_[i]; j < i; ++j) work_[j] -= at(i, j) * xi;
        }
        x.resize(n_);
        for (std::size_t p = 0; p < n_; ++p) x[order_[p]] = work_[p];
        return rank_ == n_ || solves(b, tolerance);
    }

  private:
    double& at(std::size_t row, std::size_t col) {
        return envelope_[start_[row] + (col - first_[row])];
    }

    // |A x - b| <= tolerance (max|b| + max|A| max|x|) on every row, with x in work_ (the
    // factorisation's order) and A from matrix_, whose stored lower half stands for both.
    bool solves(const std::vector<double>& b, double tolerance) {
        residual_.resize(n_);
        double b_max = 0.0, a_max = 0.0, x_max = 0.0;
        for (std::size_t p = 0; p < n_; ++p) {
            residual_[p] = -b[order_[p]];
            b_max = std::max(b_max, std::abs(b[order_[p]]));
            x_max = std::max(x_max, std::abs(work_[p]));
        }
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t j = first_[i]; j <= i; ++j) {
                const double a = matrix_[start_[i] + (j - first_[i])];
                a_max = std::max(a_max, std::abs(a));
                residual_[i] += a * work_[j];
                if (j != i) residual_[j] += a * work_[i];
            }
        const double floor = tolerance * (b_max + a_max * x_max);
        return std::all_of(residual_.begin(), residual_.end(),
                           [&](double r) { return std::abs(r) <= floor; });
    }

    std::size_t n_ = 0, rank_ = 0;
    std::vector<std::size_t> order_, position_; // order_[p] = unknown at position p
    std::vector<std::size_t> first_, start_;
    std::vector<double> envelope_, matrix_, diagonal_, work_, residual_;
    std::vector<bool> dropped_;
};

} // namespace choc
