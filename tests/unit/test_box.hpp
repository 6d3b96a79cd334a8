// A box of the given edges and periodic axes (no walls): the cell tests' grids.
#pragma once

#include <choc/kernel/box.hpp>

#include <array>

template <int D>
choc::Box<D> make_box(const std::array<double, D>& length, const std::array<bool, D>& periodic) {
    choc::Box<D> b;
    for (int a = 0; a < D; ++a) b.length[a] = length[a];
    b.periodic = periodic;
    return b;
}
