// Config and group-file input from Python: paths, TOML text, or dicts written as TOML.
#include "config_input.hpp"

#include "choc/errors.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace choc::python {

namespace {

std::string toml_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += std::string("\\") + c;
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else
            out += c;
    }
    return out + "\"";
}

// A key as TOML writes it: bare when it can be, else quoted.
std::string toml_key(const std::string& key) {
    bool bare = !key.empty();
    for (char c : key)
        bare = bare && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
    return bare ? key : toml_string(key);
}

std::string toml_value(const py::handle& value, const std::string& where);

// {k = v, ...}: an inline table, which the config reads like a [table] (and a list of
// them like [[tables]]).
std::string toml_inline_table(const py::dict& table, const std::string& where) {
    std::string out = "{ ";
    bool first = true;
    for (const auto& [key, value] : table) {
        if (!py::isinstance<py::str>(key))
            throw InputError(where +
                             ": a key is not a string: " + py::repr(key).cast<std::string>());
        const std::string k = key.cast<std::string>();
        out += (first ? "" : ", ") + toml_key(k) + " = " +
               toml_value(value, where.empty() ? k : where + "." + k);
        first = false;
    }
    return out + (first ? "}" : " }");
}

std::string toml_value(const py::handle& value, const std::string& where) {
    // NumPy arrays and scalars as the Python values they hold
    if (py::hasattr(value, "tolist") && !py::isinstance<py::str>(value))
        return toml_value(value.attr("tolist")(), where);
    if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
    if (py::isinstance<py::int_>(value)) return py::str(value).cast<std::string>();
    if (py::isinstance<py::float_>(value)) {
        const double x = value.cast<double>();
        if (std::isnan(x)) return "nan";
        if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
        return py::repr(value).cast<std::string>(); // shortest round-trip, valid TOML
    }
    if (py::isinstance<py::str>(value)) return toml_string(value.cast<std::string>());
    if (py::isinstance<py::dict>(value)) return toml_inline_table(value.cast<py::dict>(), where);
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
        std::string out = "[";
        bool first = true;
        for (const auto& item : value) {
            out += (first ? "" : ", ") + toml_value(item, where);
            first = false;
        }
        return out + "]";
    }
    throw InputError(where + ": cannot be written as TOML: " + py::repr(value).cast<std::string>());
}

} // namespace

TomlInput toml_input(const py::handle& value) {
    TomlInput in;
    if (py::isinstance<py::dict>(value)) {
        for (const auto& [key, item] : value.cast<py::dict>()) {
            if (!py::isinstance<py::str>(key))
                throw InputError("a key is not a string: " + py::repr(key).cast<std::string>());
            const std::string k = key.cast<std::string>();
            in.text += toml_key(k) + " = " + toml_value(item, k) + "\n";
        }
        in.source = "<dict>";
        return in;
    }
    const py::object fspath = py::module_::import("os").attr("fspath");
    if (py::isinstance<py::str>(value)) {
        const std::string text = value.cast<std::string>();
        if (text.find('\n') != std::string::npos || text.find('=') != std::string::npos) {
            in.text = text;
            in.source = "<string>";
            return in;
        }
        in.path = text;
        return in;
    }
    if (py::hasattr(value, "__fspath__")) {
        in.path = fspath(value).cast<std::string>();
        return in;
    }
    throw InputError("the config must be a path, TOML text or a dict, not " +
                     py::repr(py::type::of(value)).cast<std::string>());
}

std::vector<std::string> override_list(const py::handle& overrides) {
    std::vector<std::string> out;
    if (overrides.is_none()) return out;
    if (py::isinstance<py::dict>(overrides)) {
        for (const auto& [key, value] : overrides.cast<py::dict>()) {
            const std::string k = py::str(key).cast<std::string>();
            out.push_back(k + "=" +
                          (py::isinstance<py::str>(value) ? value.cast<std::string>()
                                                          : toml_value(value, k)));
        }
        return out;
    }
    if (py::isinstance<py::str>(overrides))
        throw InputError("overrides: a dict or a list of \"dotted.key=value\" strings, not one "
                         "string");
    // (iterating over anything else, 5 say, would raise a bare TypeError)
    if (!py::isinstance<py::iterable>(overrides))
        throw InputError("overrides: a dict or a list of \"dotted.key=value\" strings, not " +
                         py::repr(py::type::of(overrides)).cast<std::string>());
    for (const auto& item : overrides) {
        if (!py::isinstance<py::str>(item))
            throw InputError("overrides: every entry must be a \"dotted.key=value\" string, got " +
                             py::repr(item).cast<std::string>());
        out.push_back(item.cast<std::string>());
    }
    return out;
}

} // namespace choc::python
