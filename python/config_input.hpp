// What Python may give as a config or a group file: a path (str or os.PathLike), TOML
// text, or a dict nested like the TOML.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

namespace choc::python {

namespace py = pybind11;

// A TOML document given one way or another: `path` for a file, else `text` with the
// name that messages give it ("<string>", "<dict>").
struct TomlInput {
    std::optional<std::string> path;
    std::string text, source;
};

// A str holding a newline or an "=" is TOML text; any other str, or an os.PathLike, is a
// path; a dict is turned into TOML text (tables, arrays, arrays of tables; values bool,
// int, float, str). Throws InputError for anything else.
TomlInput toml_input(const py::handle& value);

// `overrides`: None, a dict {"dotted.key": value} (a value that is not a str is written as
// TOML: 0.4, true, [1, 2]) or a sequence of "dotted.key=value" strings, as `choc run --set`.
std::vector<std::string> override_list(const py::handle& overrides);

} // namespace choc::python
