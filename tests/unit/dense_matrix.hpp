// Dense row-major matrices for the linear-solver tests (test_gauss_jordan.cpp,
// test_sparse_ldlt.cpp): the reference products and norms their bounds are stated in.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace test_matrix {

using Matrix = std::vector<std::vector<double>>;

inline std::vector<double> multiply(const Matrix& a, const std::vector<double>& x) {
    std::vector<double> y(a.size(), 0.0);
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < a.size(); ++j) y[i] += a[i][j] * x[j];
    return y;
}

inline double max_abs(const std::vector<double>& v) {
    double m = 0.0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

} // namespace test_matrix
