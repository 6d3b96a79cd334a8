// A cubic box periodic on every axis, for the observer tests.
#pragma once

#include <choc/kernel/box.hpp>

inline choc::Box<3> periodic_cube(double edge) {
    choc::Box<3> box;
    box.length = choc::Vec<3>{{edge, edge, edge}};
    box.periodic = {true, true, true};
    return box;
}
