// NumPy arrays from the library's C++ results. A std::vector is moved into a capsule that
// the array owns: the numbers are handed over, not copied a second time.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

namespace choc::python {

namespace py = pybind11;

// A 1-D array (shape {n}) or an n x d array (shape {n, d}, row-major) owning `values`.
template <class T>
py::array_t<T> owned_array(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
    auto* held = new std::vector<T>(std::move(values));
    py::capsule owner(held, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(shape, held->data(), owner);
}

// A CSV text as the library writes it (a header line of column names, then rows of
// numbers in shortest round-trip form, `nan` where undefined): {column: 1-D float64 array}
// in column order. Every number reads back to the bit.
py::dict csv_columns(const std::string& text);

} // namespace choc::python
