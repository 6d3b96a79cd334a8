// choc.Simulation: a run kept alive in Python (choc/run/simulation.hpp), advanced step by
// step with the GIL released and Ctrl-C honoured, its state and measurements as NumPy
// arrays.
#include "arrays.hpp"
#include "config_input.hpp"
#include "interrupts.hpp"

#include "choc/run/config.hpp"
#include "choc/run/simulation.hpp"
#include "choc/run/summary.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace choc::python {

namespace {

// A checkpoint's path (continue_from): a str or an os.PathLike.
std::optional<std::string> checkpoint_path(const py::handle& path) {
    if (path.is_none()) return std::nullopt;
    if (py::isinstance<py::str>(path) || py::hasattr(path, "__fspath__"))
        return py::module_::import("os").attr("fspath")(path).cast<std::string>();
    throw InputError("continue_from: a checkpoint's path (str or os.PathLike), not " +
                     py::repr(py::type::of(path)).cast<std::string>());
}

// The config given, or with none, the one the checkpoint to continue was written with.
Config read_config(const py::handle& config, const py::handle& overrides,
                   const std::optional<std::string>& continue_from) {
    const auto sets = override_list(overrides);
    if (config.is_none()) {
        if (!continue_from)
            throw InputError("Simulation: give a config (a path, TOML text or a dict), or "
                             "continue_from, a checkpoint, to go on with its own config");
        return checkpoint_config(*continue_from, "continue_from", sets);
    }
    const auto in = toml_input(config);
    return in.path ? load_config(*in.path, sets) : parse_config(in.text, in.source, sets);
}

// A number a steering call takes: finite and >= 0 (> 0 if `positive`).
double steering_number(const py::handle& value, const std::string& where, bool positive) {
    double x = 0.0;
    try {
        x = value.cast<double>();
    } catch (const py::cast_error&) {
        throw InputError(where + ": must be a number, got " + py::repr(value).cast<std::string>());
    }
    if (!(std::isfinite(x) && (positive ? x > 0.0 : x >= 0.0)))
        throw InputError(where + ": must be a finite number " + (positive ? "> 0" : ">= 0") +
                         ", got " + py::repr(value).cast<std::string>());
    return x;
}

// Raises KeyboardInterrupt in Python (the run's state is consistent: it may go on).
[[noreturn]] void raise_interrupt() {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
}

class PySimulation {
  public:
    PySimulation(const py::handle& config, const py::handle& overrides,
                 const py::handle& continue_from)
        : PySimulation(config, overrides, checkpoint_path(continue_from)) {}

    void run(std::optional<double> time, std::optional<py::int_> collisions) {
        idle("run()");
        Advance by;
        by.time = time;
        if (collisions) {
            // (a cast of 2**64 or more would raise pybind11's RuntimeError)
            if (*collisions < py::int_(0) ||
                *collisions > py::int_(std::numeric_limits<std::uint64_t>::max()))
                throw InputError("run: collisions must be an integer within [0, 2^64 - 1], "
                                 "got " +
                                 py::str(*collisions).cast<std::string>());
            by.collisions = collisions->cast<std::uint64_t>();
        }
        StepEnd end;
        // Set and cleared with the GIL held (the release has ended before either line
        // after the block runs), so the GIL is the lock.
        running_ = true;
        try {
            PythonInterrupts interrupts;
            py::gil_scoped_release release;
            end = sim_->advance(by);
        } catch (...) {
            running_ = false;
            throw;
        }
        running_ = false;
        if (end == StepEnd::violated) throw *sim_->violation();
        if (end == StepEnd::collapsed) throw *sim_->collapse();
        if (end == StepEnd::interrupted) raise_interrupt();
    }

    py::object summary() const {
        idle("summary()");
        return py::module_::import("json").attr("loads")(summary_json(sim_->summary()));
    }

    ParticleArrays particles() const {
        idle("an array of the particles");
        return sim_->particles();
    }
    double time() const {
        idle("time");
        return sim_->time();
    }
    Measurements measurements() const {
        idle("a measurement");
        return sim_->measurements();
    }
    const Config& config() const { return sim_->config(); } // (changed only by steering)
    std::string config_toml() const {
        idle("config_toml");
        return sim_->config().resolved;
    }

    void save(const py::handle& path) {
        idle("save()");
        if (!py::isinstance<py::str>(path) && !py::hasattr(path, "__fspath__"))
            throw InputError("save: a path (str or os.PathLike), not " +
                             py::repr(py::type::of(path)).cast<std::string>());
        sim_->save(py::module_::import("os").attr("fspath")(path).cast<std::string>(), "save");
    }

    double rescale_temperature(const py::handle& kT) {
        Steer change;
        change.key = "rescale_temperature";
        change.temperature = steering_number(kT, "rescale_temperature: kT", true);
        const SteerResult r = steer(change);
        return r.kinetic_after - r.kinetic_before;
    }

    void set_restitution(const py::handle& restitution, const py::handle& pairs) {
        Steer change;
        change.key = "set_restitution";
        py::dict sets;
        if (!restitution.is_none())
            sets["collisions.restitution"] =
                steering_number(restitution, "set_restitution: restitution", false);
        if (!pairs.is_none()) {
            if (!py::isinstance<py::dict>(pairs))
                throw InputError("set_restitution: pairs: a dict {(\"A\", \"B\"): e, ...}, not " +
                                 py::repr(py::type::of(pairs)).cast<std::string>());
            sets["collisions.pair"] = pair_table(pairs.cast<py::dict>());
        }
        if (sets.empty()) throw InputError("set_restitution: give restitution, pairs or both");
        change.sets = override_list(sets);
        steer(change);
    }

    void set_field(const py::handle& gravity, const py::handle& drag) {
        Steer change;
        change.key = "set_field";
        py::dict sets;
        if (!gravity.is_none()) sets["field.gravity"] = gravity;
        if (!drag.is_none()) sets["field.drag"] = drag;
        if (sets.empty()) throw InputError("set_field: give gravity, drag or both");
        change.sets = override_list(sets);
        steer(change);
    }

  private:
    PySimulation(const py::handle& config, const py::handle& overrides,
                 const std::optional<std::string>& continue_from)
        : sim_(build(read_config(config, overrides, continue_from), continue_from)) {}

    // The per-pair table with `pairs` ({("A", "B"): e}) put in: the config's entries for
    // other pairs kept, as a list of {a, b, restitution} tables (collisions.pair).
    py::list pair_table(const py::dict& pairs) const {
        const Config& c = sim_->config();
        std::vector<std::tuple<std::string, std::string, py::object>> table;
        for (const auto& p : c.pair_restitution)
            table.emplace_back(c.species[p.a].name, c.species[p.b].name, py::float_(p.restitution));
        for (const auto& [key, value] : pairs) {
            const std::string where =
                "set_restitution: pairs[" + py::repr(key).cast<std::string>() + "]";
            if (!py::isinstance<py::tuple>(key) || py::len(key) != 2 ||
                !py::isinstance<py::str>(key.cast<py::tuple>()[0]) ||
                !py::isinstance<py::str>(key.cast<py::tuple>()[1]))
                throw InputError("set_restitution: pairs: each key is a pair of species names "
                                 "(\"A\", \"B\"), got " +
                                 py::repr(key).cast<std::string>());
            const auto a = key.cast<py::tuple>()[0].cast<std::string>();
            const auto b = key.cast<py::tuple>()[1].cast<std::string>();
            const py::object e = py::float_(steering_number(value, where, false));
            bool found = false;
            for (auto& [x, y, r] : table)
                if ((x == a && y == b) || (x == b && y == a)) r = e, found = true;
            if (!found) table.emplace_back(a, b, e);
        }
        py::list out;
        for (const auto& [a, b, e] : table) {
            py::dict entry;
            entry["a"] = a;
            entry["b"] = b;
            entry["restitution"] = e;
            out.append(entry);
        }
        return out;
    }

    // A new stage (Simulation::steer), with choc's handlers recording SIGINT and SIGTERM
    // (so that a Ctrl-C before it does not cut its set-up short); one during it raises
    // KeyboardInterrupt once it is over.
    SteerResult steer(const Steer& change) {
        idle(change.key.c_str());
        std::optional<SteerResult> r;
        bool interrupted = false;
        {
            PythonInterrupts interrupts;
            try {
                r = sim_->steer(change);
            } catch (const Interrupted&) {
                // (a large mesh's lists cut short: the run is as it was)
            }
            interrupted = PythonInterrupts::requested();
        }
        if (interrupted || !r) raise_interrupt();
        return *r;
    }

    // run() advances the engine with the GIL released, so another Python thread could
    // call into the same Simulation meanwhile: two advances at once corrupted the heap
    // (a segfault, "double free or corruption", a bogus InvariantViolation; issue 41),
    // and a read would see a half-moved state. Such a call is refused instead; it runs
    // with the GIL held, as run() sets and clears `running_`, so the flag needs no lock.
    void idle(const char* what) const {
        if (running_)
            throw InputError(std::string("Simulation: ") + what +
                             " while run() is running in another thread: one Simulation "
                             "runs in one thread at a time (wait for run() to return; "
                             "independent Simulations may run in threads at once)");
    }

    // The start built and equilibrated (or the checkpoint restored) with the GIL released;
    // Ctrl-C there raises KeyboardInterrupt and no Simulation is made.
    static std::optional<Simulation> build(const Config& config,
                                           const std::optional<std::string>& continue_from) {
        RunOptions options;
        options.quiet = true;
        options.files = false;
        options.checkpoints = true;        // output.checkpoint, the one file it writes
        options.report_interrupts = false; // KeyboardInterrupt says it
        options.continue_from = continue_from;
        options.continue_key = "continue_from";
        std::optional<Simulation> sim;
        bool interrupted = false;
        try {
            PythonInterrupts interrupts;
            py::gil_scoped_release release;
            try {
                sim.emplace(config, options);
            } catch (const Interrupted&) {
                // (a long stage of the start, a large mesh's lists, cut short)
            }
            interrupted = PythonInterrupts::requested();
        } catch (const std::bad_alloc&) {
            // (pybind11 would raise a bare MemoryError) Too many particles for this
            // machine is bad input, as for `choc run`: the message names the count.
            throw InputError(too_large(config));
        }
        if (interrupted) raise_interrupt();
        return sim;
    }

    // "CONFIG: species[k].count: not enough memory for ..." naming the largest species.
    static std::string too_large(const Config& config) {
        std::uint64_t n = 0;
        std::size_t largest = 0;
        for (std::size_t k = 0; k < config.species.size(); ++k) {
            n += config.species[k].count;
            if (config.species[k].count > config.species[largest].count) largest = k;
        }
        return config.source + ": species[" + std::to_string(largest) +
               "].count: not enough memory for this system (N = " + std::to_string(n) +
               " particles, " + std::to_string(config.species[largest].count) +
               " of them in species[" + std::to_string(largest) + "]); use fewer particles";
    }

    std::optional<Simulation> sim_;
    bool running_ = false;
};

py::array_t<double> matrix(std::vector<double>&& values, const ParticleArrays& p) {
    return owned_array(std::move(values), {static_cast<py::ssize_t>(p.count), p.dimension});
}
py::array_t<double> vector(std::vector<double>&& values) {
    const auto n = static_cast<py::ssize_t>(values.size());
    return owned_array(std::move(values), {n});
}

// A dict of columns, or a pandas DataFrame of them when asked (pandas is optional).
py::object columns(const std::string& csv, bool frame) {
    py::dict c = csv_columns(csv);
    if (!frame) return c;
    return py::module_::import("pandas").attr("DataFrame")(c);
}

// A histogram series' CSV as (snapshots, bins): the "# " comment table and the bin rows.
py::object series(const std::optional<std::string>& csv, bool frame) {
    if (!csv) return py::none();
    std::string table;
    std::istringstream in(*csv);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("# ")) table += line.substr(2) + "\n";
    return py::make_tuple(columns(table, frame), columns(*csv, frame));
}

} // namespace

void bind_simulation(py::module_& m) {
    py::class_<PySimulation>(m, "Simulation",
                             R"(Simulation(config=None, overrides=None, continue_from=None)

A choc run kept alive between calls (docs/REFERENCE.md, "Python module"): the start is
built and equilibrated here, then run() advances the measured phase. The physics and
the summary are those of `choc run` with the same config and seed, to the bit.
`config`: a TOML file path (str or os.PathLike), TOML text (a str with a newline or an
"="), or a dict nested like the TOML. `overrides`: a dict {"dotted.key": value} or a
list of "dotted.key=value" strings, applied like `choc run --set`.
Writes no file but output.checkpoint (periodic, at an interrupt and at the config's limits,
as choc run writes it) and what save() writes: the other [output] paths are not written,
but what the config asks for is measured (time series rows, g(r)) at the same times as
choc run would. `continue_from`: a checkpoint (output.checkpoint's, or save()'s) to go on
from, as `choc run --continue`; `config` then must agree with the checkpoint's in all but
run.time, run.collisions, output.checkpoint and the outputs' paths, and None takes the
checkpoint's own (with `overrides` applied).
Every array it returns is a fresh copy made at the call (the engine keeps each particle at
its own time stamp and renumbers them, so nothing can be a view on it), owned by the
array without a second copy; changing it changes nothing in the run.
Ctrl-C while the start is built or equilibrated (or the checkpoint restored) raises
KeyboardInterrupt (no Simulation), and nothing is printed.
Raises choc.InputError for bad input, with the CLI's message.)")
        .def(py::init<const py::handle&, const py::handle&, const py::handle&>(),
             py::arg("config") = py::none(), py::arg("overrides") = py::none(),
             py::arg("continue_from") = py::none())
        .def("run", &PySimulation::run, py::arg("time") = py::none(),
             py::arg("collisions") = py::none(), R"(run(time=None, collisions=None)

Advances the measured phase by `time` of simulated time and/or `collisions` pair
collisions, whichever comes first; with neither, to the config's run.time /
run.collisions (as choc run; nothing more once there). Steps of a and b end where one of
a + b does, to the bit. Releases the GIL. Ctrl-C (SIGINT) or SIGTERM stops the run at its
next chunk of events and raises KeyboardInterrupt; the state is consistent and another
run() goes on as if there had been no stop. Raises choc.InelasticCollapse or
choc.InvariantViolation, after which the run is over (summary() still works; after a
collapse a steering call starts a new stage).)")
        .def("save", &PySimulation::save, py::arg("path"), R"(save(path)

Writes a checkpoint of the run now to `path`, in the format of output.checkpoint:
`choc run CONFIG --continue path` (CONFIG as config_toml) and
Simulation(config, continue_from=path) go on from it as if the run had never stopped, to
the bit. Atomic: a file already at `path` stays whole until the new one replaces it.)")
        .def("rescale_temperature", &PySimulation::rescale_temperature, py::arg("kT"),
             R"(rescale_temperature(kT) -> float

Scales every velocity by one factor so that the kinetic temperature 2 K / (d N) (the
summary's temperature) is kT, and starts a new stage (below). Returns the kinetic energy
this added (negative when it cooled).)")
        .def("set_restitution", &PySimulation::set_restitution, py::arg("restitution") = py::none(),
             py::arg("pairs") = py::none(),
             R"(set_restitution(restitution=None, pairs=None)

Sets collisions.restitution and/or per-pair values (`pairs`, a dict {("A", "B"): e}: these
pairs' entries of collisions.pair set or added, the others kept), and starts a new stage.)")
        .def("set_field", &PySimulation::set_field, py::arg("gravity") = py::none(),
             py::arg("drag") = py::none(), R"(set_field(gravity=None, drag=None)

Sets field.gravity (dimension numbers) and/or field.drag, and starts a new stage.

Each steering call (rescale_temperature, set_restitution, set_field) ends the stage under
way and starts a new one from the state now, as a run from a snapshot starts: a new engine
from the particles as they stand, no equilibration, a new measured phase (summary,
measurements, time series, periodic checkpoints and the energy checks from zero), with the
config's changed keys in config_toml; `time` goes on. A bad value raises choc.InputError
naming the key, and the run is left as it was.)")
        .def("summary", &PySimulation::summary, R"(summary() -> dict

The run summary so far with exactly the keys of the summary JSON of choc run
(docs/REFERENCE.md, "Run summary"); provenance.command_line is empty.)")
        .def_property_readonly(
            "positions",
            [](const PySimulation& s) {
                auto p = s.particles();
                return matrix(std::move(p.positions), p);
            },
            "float64 array (N, D): positions now (a copy), in the start's order")
        .def_property_readonly(
            "velocities",
            [](const PySimulation& s) {
                auto p = s.particles();
                return matrix(std::move(p.velocities), p);
            },
            "float64 array (N, D): velocities now (a copy), in the start's order")
        .def_property_readonly(
            "species",
            [](const PySimulation& s) {
                auto p = s.particles();
                const auto n = static_cast<py::ssize_t>(p.count);
                return owned_array(std::move(p.species), {n});
            },
            "int64 array (N,): index of each particle's [[species]] (a copy)")
        .def_property_readonly(
            "radii", [](const PySimulation& s) { return vector(s.particles().radii); },
            "float64 array (N,): radii (a copy)")
        .def_property_readonly(
            "masses", [](const PySimulation& s) { return vector(s.particles().masses); },
            "float64 array (N,): masses (a copy)")
        .def_property_readonly("time", &PySimulation::time,
                               "time since the measured phase began (init.from's clock on), "
                               "as the trajectory and the time series label it")
        .def_property_readonly(
            "dimension", [](const PySimulation& s) { return s.config().dimension; }, "2 or 3")
        .def_property_readonly("config_toml", &PySimulation::config_toml,
                               "the config as the run has it now (TOML text, the steered keys "
                               "included): what `choc run --continue` needs beside a checkpoint")
        .def(
            "speed_histogram",
            [](const PySimulation& s, bool frame) {
                return columns(s.measurements().speed_histogram, frame);
            },
            py::arg("frame") = false,
            "the speed histogram of the state now beside Maxwell-Boltzmann: the columns of "
            "output.histogram (dict of float64 arrays; a pandas DataFrame with frame=True)")
        .def(
            "velocity_histogram",
            [](const PySimulation& s, bool frame) {
                return columns(s.measurements().velocity_histogram, frame);
            },
            py::arg("frame") = false,
            "the x-velocity histogram: the columns of output.velocity_histogram")
        .def(
            "speed_histogram_series",
            [](const PySimulation& s, bool frame) {
                return series(s.measurements().speed_histogram_series, frame);
            },
            py::arg("frame") = false,
            "the histogram series of output.histogram = { path, every } with the state now as "
            "its last snapshot: (snapshots, bins), the file's comment table and its columns; "
            "None unless the config sets output.histogram with every")
        .def(
            "velocity_histogram_series",
            [](const PySimulation& s, bool frame) {
                return series(s.measurements().velocity_histogram_series, frame);
            },
            py::arg("frame") = false, "the same for output.velocity_histogram = { path, every }")
        .def(
            "rdf",
            [](const PySimulation& s, bool frame) -> py::object {
                auto m = s.measurements();
                if (!m.rdf) return py::none();
                return columns(*m.rdf, frame);
            },
            py::arg("frame") = false,
            "g(r) averaged over the measured phase so far (columns r, g), or None unless the "
            "config sets output.rdf")
        .def(
            "vacf",
            [](const PySimulation& s, bool frame) -> py::object {
                auto m = s.measurements();
                if (!m.vacf) return py::none();
                return columns(*m.vacf, frame);
            },
            py::arg("frame") = false,
            "the velocity autocorrelation so far (columns lag, vacf, vacf_err, normalized, "
            "origins), or None unless the config sets output.vacf")
        .def(
            "profile",
            [](const PySimulation& s, bool frame) -> py::object {
                auto m = s.measurements();
                if (!m.profile) return py::none();
                return columns(*m.profile, frame);
            },
            py::arg("frame") = false,
            "the slab profiles so far (columns x, density, density_err, packing_fraction, "
            "temperature, temperature_err, u_x, u_x_err, ...; NaN where undefined), or None "
            "unless the config sets output.profile")
        .def(
            "timeseries",
            [](const PySimulation& s, bool frame) -> py::object {
                auto m = s.measurements();
                if (!m.timeseries) return py::none();
                return columns(*m.timeseries, frame);
            },
            py::arg("frame") = false,
            "the time series rows so far: the columns of output.timeseries, or None unless "
            "the config sets output.timeseries")
        .def(
            "msd",
            [](const PySimulation& s, bool frame) -> py::object {
                auto m = s.measurements();
                py::dict d;
                d["time"] = vector(std::move(m.msd_times));
                d["msd"] = vector(std::move(m.msd));
                if (!frame) return d;
                return py::module_::import("pandas").attr("DataFrame")(d);
            },
            py::arg("frame") = false,
            "the displacement samples: time since the measured phase began and the mean "
            "squared displacement over all particles (float64 arrays, one entry per sample)");
}

} // namespace choc::python
