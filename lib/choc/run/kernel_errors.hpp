// The kernel's refusals of its input, worded for the user by config key. The kernel throws
// them with the facts alone (kernel/grid_error.hpp); a run built from a config makes its
// engine through config_worded, which turns them into the InputError the app reports as
// `choc: error:` with exit status 2 (and the Python module as choc.InputError).
#pragma once

#include "choc/errors.hpp"
#include "choc/kernel/grid_error.hpp"
#include "choc/message_text.hpp"

#include <utility>

namespace choc {

// The box a cell grid cannot cut. The config's own check (initial_state.cpp, naming
// box.packing_fraction, box.size or init.from) comes first, so this is its safety net.
inline InputError config_error(const PeriodicEdgeTooShort& e) {
    return InputError("box: periodic edge " + number_text(e.edge) +
                      " is shorter than three largest diameters (" + number_text(3 * e.min_width) +
                      "); use a larger box");
}

// What `make()` returns, with the kernel's refusals worded as config_error says.
template <class Make>
decltype(auto) config_worded(Make&& make) {
    try {
        return std::forward<Make>(make)();
    } catch (const PeriodicEdgeTooShort& e) {
        throw config_error(e);
    }
}

} // namespace choc
