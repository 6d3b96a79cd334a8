// The sweep file (docs/REFERENCE.md, "choc sweep"): read strictly, and every run's config
// built and checked before anything runs, so that a bad axis value is refused naming the
// axis rather than failing half-way through a study.
#include "choc/sweep/sweep.hpp"

#include "choc/errors.hpp"
#include "choc/init/initial_state.hpp"
#include "choc/io/toml_file.hpp"
#include "choc/io/toml_reader.hpp"
#include "choc/message_text.hpp"
#include "choc/run/interrupt.hpp"
#include "choc/sweep/summary_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace choc {
namespace {

namespace fs = std::filesystem;

// A float as TOML text that stays a float ("3" would read back as an integer), in the
// shortest form that reads back as the same double ("0.1", not toml++'s 0.10000000000000001).
std::string float_text(double x) {
    std::string text = number_text(x);
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
}

// The TOML text of one value, which `--set` reads back as the same value.
std::string toml_text(const toml::node& node) {
    if (auto x = node.value_exact<double>()) return float_text(*x);
    if (const toml::array* array = node.as_array()) {
        std::string text = "[";
        for (std::size_t i = 0; i < array->size(); ++i)
            text += (i ? ", " : "") + toml_text(*array->get(i));
        return text + "]";
    }
    std::ostringstream text;
    node.visit([&](const auto& value) { text << value; });
    return text.str();
}

// range = { from, to, count } (count values evenly spaced, both ends included) or
// { from, to, step } (from, from + step, ... up to to). Integers stay integers; a float
// value is rounded to 12 significant digits, so that 0.1 + 2 x 0.1 is written 0.3.
std::vector<std::string> range_values(const Section& axis) {
    const Section range = axis.table("range");
    range.allow({"from", "to", "count", "step"});
    const toml::node* from = range.get("from");
    const toml::node* to = range.get("to");
    if (!from) range.fail("from", "required key is missing");
    if (!to) range.fail("to", "required key is missing");
    const bool has_count = range.has("count"), has_step = range.has("step");
    if (has_count == has_step) range.fail("count", "give exactly one of count and step");
    const double a = range.required_number("from"), b = range.required_number("to");
    if (b < a) range.fail("to", "must not be below from");
    std::vector<std::string> values;
    if (has_count) {
        const auto count = *range.integer("count", 1);
        if (count > 100000) range.fail("count", "at most 100000 values on one axis");
        if (count == 1 && a != b) range.fail("count", "1 value needs from = to");
        const bool integers = from->is_integer() && to->is_integer();
        for (std::int64_t k = 0; k < count; ++k) {
            const double x = count == 1       ? a
                             : k + 1 == count ? b
                                              : a + (b - a) * static_cast<double>(k) /
                                                        static_cast<double>(count - 1);
            if (integers) {
                if (x != std::round(x))
                    range.fail("count", fmt::format("{} values from {} to {} are not all "
                                                    "integers; write from or to as floats",
                                                    count, toml_text(*from), toml_text(*to)));
                values.push_back(std::to_string(static_cast<std::int64_t>(x)));
            } else {
                values.push_back(float_text(std::stod(fmt::format("{:.12g}", x))));
            }
        }
        return values;
    }
    const toml::node* step_node = range.get("step");
    const double step = range.required_number("step", Range::positive);
    const bool integers = from->is_integer() && to->is_integer() && step_node->is_integer();
    const double steps = std::floor((b - a) / step * (1.0 + 1e-12));
    if (steps >= 100000) range.fail("step", "at most 100000 values on one axis");
    for (std::int64_t k = 0; k <= static_cast<std::int64_t>(steps); ++k) {
        const double x = a + static_cast<double>(k) * step;
        values.push_back(integers ? std::to_string(static_cast<std::int64_t>(x))
                                  : float_text(std::stod(fmt::format("{:.12g}", x))));
    }
    return values;
}

SweepAxis read_axis(const Section& axis) {
    axis.allow({"key", "values", "range"});
    SweepAxis result;
    result.key = axis.required_string("key");
    if (result.key.empty()) axis.fail("key", "must not be empty");
    // The sweep puts every run's files in its own directory: those keys are its own.
    if (result.key == "output" || result.key.starts_with("output.") ||
        result.key.starts_with("output["))
        axis.fail("key", "\"" + escaped(result.key) +
                             "\": the output keys are set by the sweep (each run writes its "
                             "files in its own directory); sweep other keys");
    const bool has_values = axis.has("values"), has_range = axis.has("range");
    if (has_values == has_range) axis.fail("values", "give exactly one of values and range");
    if (has_range) {
        result.values = range_values(axis);
    } else {
        const toml::array* values = axis.get("values")->as_array();
        if (!values) axis.fail("values", "expected an array, got " + show(*axis.get("values")));
        if (values->empty()) axis.fail("values", "must not be empty (an axis needs a value)");
        for (const auto& value : *values) result.values.push_back(toml_text(value));
    }
    return result;
}

// SIGINT or SIGTERM while the runs are checked (a large sweep takes a while): stop, with
// nothing written yet.
void stop_if_interrupted() {
    if (InterruptGuard::requested()) throw SweepInterrupted();
}

std::string quoted(const std::string& path) {
    return toml_text(toml::value<std::string>(path));
}

// The run's outputs, each inside its directory; a path that would leave it is refused.
std::vector<std::string> output_overrides(const Config& config, const std::string& directory,
                                          const std::string& base,
                                          std::optional<double> checkpoint_every) {
    std::vector<std::pair<std::string, std::string>> paths{{"output.summary", config.summary}};
    for (const auto& [key, path] : output_paths(config))
        if (key != "output.checkpoint.path") paths.emplace_back(key, path);
    paths.emplace_back("output.checkpoint.path",
                       config.checkpoint ? config.checkpoint->path : "checkpoint.chk");
    std::vector<std::string> overrides;
    for (const auto& [key, path] : paths) {
        const fs::path p(path);
        if (p.is_absolute() || *p.begin() == "..")
            throw InputError(escaped(base) + ": " + key + ": \"" + escaped(path) +
                             "\" leaves the run's directory: in a sweep every run writes its "
                             "outputs inside its own directory; give a path relative to it");
        overrides.push_back(key + "=" + quoted((fs::path(directory) / p).string()));
    }
    if (checkpoint_every)
        overrides.push_back("output.checkpoint.every=" + float_text(*checkpoint_every));
    return overrides;
}

std::string digits(std::size_t count, std::size_t least) {
    return std::to_string(std::max(least, std::to_string(count > 0 ? count - 1 : 0).size()));
}

// A point's directory, named by its values so that inserting a value in an axis leaves
// every other point's directory, and its finished runs, where they were (issue 43: points
// numbered by position were renumbered, and the sweep refused to go on). Each axis gives
// KEY=VALUE, the key as --set's dotted path (species[0].count: species.0.count), a
// string's quotes dropped, and any character a portable file name lacks as '_'; "p_" and
// the parts joined by ',': p_box.packing_fraction=0.15,species.0.count=32. A name longer
// than 120 bytes keeps its first 100 and a hash of the whole. Two points with one name
// (values differing only in characters replaced) are refused (read_sweep).
std::string point_directory(const SweepPlan& plan, std::size_t point) {
    const auto portable = [](std::string text) {
        for (char& c : text)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '+' &&
                c != '_' && c != '=')
                c = '_';
        return text;
    };
    std::string name = "p_";
    for (std::size_t k = 0; k < plan.axes.size(); ++k) {
        std::string key = plan.axes[k].key;
        std::erase_if(key, [](char c) { return c == ' ' || c == '\t' || c == ']'; });
        std::replace(key.begin(), key.end(), '[', '.');
        std::string value = plan.point_values[point][k];
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
            value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        name += (k ? "," : "") + portable(key) + "=" + portable(value);
    }
    if (plan.axes.empty()) name = "p_all";
    if (name.size() > 120) {
        std::uint64_t hash = 14695981039346656037ull; // FNV-1a of the whole name
        for (const unsigned char c : name) hash = (hash ^ c) * 1099511628211ull;
        name = fmt::format("{}-{:016x}", name.substr(0, 100), hash);
    }
    return name;
}

// "box.packing_fraction = 0.3, species[0].count = 100"
std::string point_label(const SweepPlan& plan, std::size_t point) {
    std::string label;
    for (std::size_t k = 0; k < plan.axes.size(); ++k)
        label += (k ? ", " : "") + plan.axes[k].key + " = " + plan.point_values[point][k];
    return label.empty() ? "the base config" : label;
}

} // namespace

SweepPlan load_sweep(const std::string& path, const SweepFileOptions& options) {
    return parse_sweep(read_text_file(path), path, fs::path(path).parent_path().string(), options);
}

SweepPlan parse_sweep(const std::string& text, const std::string& path,
                      const std::string& base_directory, const SweepFileOptions& options) {
    const toml::table document = parse_toml(text, path);
    KeySource source(path, {}, "sweep values");
    Section root(source, &document, "");
    root.allow({"config", "output", "combine", "replicas", "collect", "checkpoint_every", "axes"});

    SweepPlan plan;
    plan.source = path;
    // The base config travels with the sweep file: relative to its directory.
    const fs::path directory = base_directory;
    const std::string config = root.required_string("config");
    if (config.empty()) root.fail("config", "must not be empty");
    plan.base = fs::path(config).is_relative() && !directory.empty()
                    ? (directory / config).lexically_normal().string()
                    : config;
    // The outputs are relative to the working directory, as those of `choc run`.
    plan.output = options.output.value_or(root.required_string("output"));
    if (plan.output.empty()) root.fail("output", "must not be empty");
    const std::string combine = root.string("combine").value_or("grid");
    if (combine != "grid" && combine != "zip")
        root.fail("combine", "must be \"grid\" or \"zip\", got \"" + escaped(combine) + "\"");
    plan.zip = combine == "zip";
    plan.replicas = static_cast<std::size_t>(root.integer("replicas", 1).value_or(1));
    if (plan.replicas > 10000) root.fail("replicas", "at most 10000 replicas");
    const auto checkpoint_every = root.number("checkpoint_every", Range::positive);

    for (const Section& axis : root.tables("axes")) {
        plan.axes.push_back(read_axis(axis));
        for (std::size_t k = 0; k + 1 < plan.axes.size(); ++k)
            if (plan.axes[k].key == plan.axes.back().key)
                axis.fail("key", "\"" + escaped(plan.axes.back().key) + "\" is also axes[" +
                                     std::to_string(k) + "]");
    }

    // Each axis value alone on the base config: a value the config refuses is reported
    // with its axis.
    auto with_sets = [&](std::vector<std::string> extra) {
        std::vector<std::string> all = options.sets;
        all.insert(all.end(), extra.begin(), extra.end());
        return all;
    };
    // The base config is read once: every point applies its overrides to the same text.
    const std::string base_text = read_text_file(plan.base);
    auto load = [&](const std::vector<std::string>& extra) {
        return load_config_text(base_text, plan.base, with_sets(extra));
    };
    const Config base = load({});
    for (std::size_t k = 0; k < plan.axes.size(); ++k)
        for (const auto& value : plan.axes[k].values) try {
                stop_if_interrupted();
                load({plan.axes[k].key + "=" + value});
            } catch (const InputError& e) {
                throw InputError(escaped(path) + ": axes[" + std::to_string(k) + "] (" +
                                 escaped(plan.axes[k].key) + " = " + escaped(value) +
                                 "): " + e.what());
            }

    // The points: every combination, the first axis slowest (grid), or the axes side by side.
    if (plan.zip) {
        for (std::size_t k = 1; k < plan.axes.size(); ++k)
            if (plan.axes[k].values.size() != plan.axes[0].values.size())
                root.fail("axes[" + std::to_string(k) + "]",
                          fmt::format("combine = \"zip\" needs axes of one length: axes[0] "
                                      "has {} values, axes[{}] has {}",
                                      plan.axes[0].values.size(), k, plan.axes[k].values.size()));
        plan.points = plan.axes.empty() ? 1 : plan.axes[0].values.size();
        for (std::size_t p = 0; p < plan.points; ++p) {
            plan.point_values.emplace_back();
            for (const auto& axis : plan.axes) plan.point_values.back().push_back(axis.values[p]);
        }
    } else {
        plan.points = 1;
        for (const auto& axis : plan.axes) {
            plan.points *= axis.values.size();
            if (plan.points > 1000000) root.fail("axes", "more than 1000000 points");
        }
        for (std::size_t p = 0; p < plan.points; ++p) {
            std::vector<std::string> values(plan.axes.size());
            std::size_t rest = p;
            for (std::size_t k = plan.axes.size(); k-- > 0;) {
                values[k] = plan.axes[k].values[rest % plan.axes[k].values.size()];
                rest /= plan.axes[k].values.size();
            }
            plan.point_values.push_back(std::move(values));
        }
    }
    if (plan.points * plan.replicas > 1000000) root.fail("replicas", "more than 1000000 runs");

    plan.collect = collected_keys(root, base);

    // Each run's config is read once (its point's values, its seed, its paths), and its
    // start is built for the first replica only: that is the whole cost of a point. Only
    // an axis in [init] (init.seed, or the whole table) can change a point's seed: then
    // the point is read once more for it. The output paths come from [output], which no
    // axis sets (read_axis), so the base config's hold for every point.
    // (--set trims the key's parts: " init .seed" is init.seed)
    const bool seed_varies = std::any_of(plan.axes.begin(), plan.axes.end(), [](const auto& a) {
        std::string head = a.key.substr(0, a.key.find_first_of(".["));
        std::erase_if(head, [](char c) { return c == ' ' || c == '\t'; });
        return head == "init";
    });
    plan.runs.reserve(plan.points * plan.replicas); // (a SweepRun is large to move)
    const std::string replica_width = digits(plan.replicas, 1);
    std::map<std::string, std::size_t> named; // directory -> the first point of that name
    for (std::size_t p = 0; p < plan.points; ++p) {
        const std::string directory = point_directory(plan, p);
        if (const auto [at, fresh] = named.emplace(directory, p); !fresh)
            throw InputError(escaped(path) + ": points " + std::to_string(at->second) + " (" +
                             escaped(point_label(plan, at->second)) + ") and " + std::to_string(p) +
                             " (" + escaped(point_label(plan, p)) +
                             ") have one directory name, \"" + escaped(directory) +
                             "\": their values differ only in characters a file name does "
                             "not hold");
        std::vector<std::string> point;
        for (std::size_t k = 0; k < plan.axes.size(); ++k)
            point.push_back(plan.axes[k].key + "=" + plan.point_values[p][k]);
        try {
            stop_if_interrupted();
            const std::uint64_t seed = seed_varies ? load(point).seed : base.seed;
            for (std::size_t r = 0; r < plan.replicas; ++r) {
                SweepRun run;
                run.point = p;
                run.replica = r;
                // Replicas differ in init.seed only: the point's seed, then the next ones.
                run.seed = seed + r;
                run.directory = (fs::path(plan.output) / directory /
                                 fmt::format(fmt::runtime("r{:0" + replica_width + "}"), r))
                                    .string();
                std::vector<std::string> overrides = point;
                overrides.push_back("init.seed=" + std::to_string(run.seed));
                for (auto& o : output_overrides(base, run.directory, plan.base, checkpoint_every))
                    overrides.push_back(std::move(o));
                run.config = load(overrides);
                // A start the config cannot have (too dense for its lattice, a particle
                // larger than the box) is refused now, not when its run's turn comes.
                if (r == 0) {
                    if (run.config.dimension == 2)
                        make_initial_state<2>(run.config);
                    else
                        make_initial_state<3>(run.config);
                }
                run.summary = run.config.summary;
                run.checkpoint = run.config.checkpoint->path;
                plan.runs.push_back(std::move(run));
            }
        } catch (const InputError& e) {
            throw InputError(escaped(path) + ": point " + std::to_string(p) + " (" +
                             escaped(point_label(plan, p)) + "): " + e.what());
        }
    }
    return plan;
}

} // namespace choc
