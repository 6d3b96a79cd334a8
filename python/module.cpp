// The Python module `choc` (docs/REFERENCE.md, "Python module"): exceptions, version,
// logging, choc.collide; choc.Simulation is in simulation_binding.cpp.
#include "arrays.hpp"
#include "config_input.hpp"

#include "choc/collide/collide_file.hpp"
#include "choc/collide/collision_output.hpp"
#include "choc/collide/group_file.hpp"
#include "choc/errors.hpp"
#include "choc_version.hpp"

#include <pybind11/pybind11.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace py = pybind11;

namespace choc::python {
void bind_simulation(py::module_& m);
void bind_sweep(py::module_& m);
} // namespace choc::python

namespace {

// One group of simultaneous collisions, as `choc collide GROUP --json` gives it.
py::object collide(const py::handle& group) {
    const auto in = choc::python::toml_input(group);
    const choc::GroupFile file =
        in.path ? choc::load_group_file(*in.path) : choc::parse_group_file(in.text, in.source);
    const choc::CollisionReport report = choc::collide_group_file(file);
    // (what `choc collide` logs as warnings: dependent contacts, the sequential fallback)
    const py::object warn = py::module_::import("warnings").attr("warn");
    for (const auto& note : report.notes)
        warn(note, py::module_::import("builtins").attr("RuntimeWarning"));
    return py::module_::import("json").attr("loads")(choc::collision_json(report));
}

} // namespace

PYBIND11_MODULE(choc, m) {
    m.doc() = "choc: event-driven molecular dynamics of hard discs and spheres "
              "(docs/REFERENCE.md, \"Python module\")";
    m.attr("__version__") = choc::version;

    // The library's log lines as `choc run` prints them, on stderr; warnings only (the
    // info lines of a run, "equilibrating until ...", are for the command line).
    auto logger =
        std::make_shared<spdlog::logger>("choc", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    logger->set_pattern("[choc] %v");
    logger->set_level(spdlog::level::warn);
    spdlog::set_default_logger(logger);

    // The CLI's error classes, with its messages (what() is the text after "choc: error: ").
    py::register_exception<choc::InputError>(m, "InputError", PyExc_ValueError);
    py::register_exception<choc::InelasticCollapse>(m, "InelasticCollapse", PyExc_RuntimeError);
    py::register_exception<choc::InvariantViolation>(m, "InvariantViolation", PyExc_RuntimeError);

    choc::python::bind_simulation(m);
    choc::python::bind_sweep(m);

    m.def("collide", &collide, py::arg("group"), R"(collide(group) -> dict

Resolves one group of simultaneous collisions, as `choc collide GROUP --json` does.
`group` is a group file (a path), its TOML text, or a dict nested like it
(dimension, restitution, tolerance, bodies = [{position, velocity, radius, mass}, ...],
walls = [{normal, point, restitution}, ...]). Returns the JSON of `choc collide --json`
as a dict: "bodies" (velocity_before, velocity_after per body, in input order),
"contacts" (a, b or wall, impulse on a), "kinetic_energy" (before, after).
Dependent contacts and the sequential fallback give a RuntimeWarning.
Raises choc.InputError with the CLI's message for a bad group.)");
}
