// choc.sweep: `choc sweep` from Python (docs/REFERENCE.md, "Python module"). The same
// library calls as the command line, on this process's threads; the table comes back as a
// pandas DataFrame when pandas is importable, else as a dict of columns.
#include "config_input.hpp"
#include "interrupts.hpp"

#include "choc/errors.hpp"
#include "choc/sweep/sweep.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <thread>

namespace choc::python {
namespace {

// The table's columns, named as in table.csv, from its JSON (so the values, axes' strings
// included, are those of the file).
py::dict table_columns(const SweepPlan& plan, const std::vector<SweepRow>& rows) {
    const py::object table =
        py::module_::import("json").attr("loads")(sweep_table_json(plan, rows));
    py::dict c;
    auto column = [&](const std::string& name) -> py::list {
        if (!c.contains(name)) c[py::str(name)] = py::list();
        return c[py::str(name)].cast<py::list>();
    };
    // (every column is made first, so that a sweep of no rows still has them all)
    for (const char* name : {"point", "directory"}) column(name);
    for (const auto& axis : plan.axes) column(axis.key);
    for (const char* name : {"replicas", "collapsed", "invalid"}) column(name);
    for (const auto& key : plan.collect)
        for (const auto& suffix : {"", "_sem", "_n"}) column(key + suffix);
    for (const auto& row : table["rows"]) {
        for (const char* name : {"point", "directory", "replicas", "collapsed", "invalid"})
            column(name).append(row[name]);
        for (const auto& axis : plan.axes) column(axis.key).append(row["axes"][py::str(axis.key)]);
        for (const auto& key : plan.collect) {
            const py::object result = row["results"][py::str(key)];
            column(key).append(result["mean"]);
            column(key + "_sem").append(result["sem"]);
            column(key + "_n").append(result["n"]);
        }
    }
    return c;
}

py::object sweep(const py::handle& file, const py::handle& overrides,
                 const std::optional<std::string>& output, std::optional<unsigned> jobs,
                 bool progress) {
    const TomlInput in = toml_input(file);
    const SweepFileOptions file_options{override_list(overrides), output};
    // A sweep given as text or a dict names its base config relative to the working
    // directory.
    // Checking every run of a large sweep takes a while: without the GIL, and Ctrl-C
    // stops it (nothing is written yet).
    SweepPlan plan;
    try {
        PythonInterrupts interrupts;
        py::gil_scoped_release release;
        plan = in.path ? load_sweep(*in.path, file_options)
                       : parse_sweep(in.text, in.source, "", file_options);
    } catch (const SweepInterrupted&) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        throw py::error_already_set();
    }
    if (jobs && *jobs == 0) throw InputError("jobs: give the number of runs at once, 1 or more");
    SweepRunOptions options;
    options.jobs = jobs.value_or(std::max(1u, std::thread::hardware_concurrency()));
    options.quiet = !progress;
    SweepTransport here; // one process
    SweepResult result;
    {
        PythonInterrupts interrupts;
        py::gil_scoped_release release;
        result = run_sweep(plan, options, here);
    }
    if (result.interrupted) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        throw py::error_already_set();
    }
    if (!result.failures.empty())
        throw InputError(std::to_string(result.failures.size()) + " of " +
                         std::to_string(result.runs) +
                         " runs failed; the first: " + result.failures.front());
    if (!result.invalid.empty())
        throw InvariantViolation(
            "sweep", std::to_string(result.invalid.size()) +
                         " runs broke a runtime invariant and cannot be trusted (the table's "
                         "`invalid` column counts them; they are left out of the means); the "
                         "first: " +
                         result.invalid.front());
    const py::dict c = table_columns(plan, *result.table);
    try {
        return py::module_::import("pandas").attr("DataFrame")(c);
    } catch (const py::error_already_set& e) {
        if (!e.matches(PyExc_ImportError)) throw;
        return c;
    }
}

} // namespace

void bind_sweep(py::module_& m) {
    m.def("sweep", &sweep, py::arg("sweep"), py::arg("overrides") = py::none(),
          py::arg("output") = py::none(), py::arg("jobs") = py::none(), py::arg("progress") = false,
          R"(sweep(sweep, overrides=None, output=None, jobs=None, progress=False)

Runs a sweep as `choc sweep` does and returns its aggregated table: a pandas DataFrame when
pandas is importable, else a dict of columns (lists). Columns as in table.csv: point,
directory, one per axis (named by its key), replicas, collapsed, invalid, and per collected
key KEY (the mean over replicas), KEY_sem (its standard error) and KEY_n (how many).
`sweep` is a sweep file (a path), its TOML text or a dict nested like it (a relative
`config` in text or a dict is relative to the working directory); `overrides` are applied
to the base config as --set (a dict or "key=value" strings); `output` replaces the sweep's
directory; `jobs` runs at once (default: every core); `progress` shows the progress line
on stderr. Every run writes into the sweep's directory, and a second call skips the runs
that are complete, as the command does. Ctrl-C stops every run (each writes its
checkpoint) and raises KeyboardInterrupt; the same call goes on. Raises choc.InputError
(bad sweep file, or a run that could not run) and choc.InvariantViolation (a run broke a
runtime invariant; the table on disk counts it) with the CLI's messages.)");
}

} // namespace choc::python
