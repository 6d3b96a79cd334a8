// The aggregated table of a sweep: one row per point, the axes' values, and per collected
// key the mean over the replicas, its standard error and their number. Nothing in it
// depends on where or in what order the runs ran, so a local sweep, one with more jobs and
// one spread over MPI ranks write the same bytes.
#include "choc/sweep/sweep.hpp"

#include "choc/message_text.hpp"
#include "choc/observers/standard_error.hpp"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <filesystem>
#include <sstream>

namespace choc {
namespace {

using Json = nlohmann::ordered_json;

Json json_of(const toml::node& node) {
    if (auto i = node.value_exact<std::int64_t>()) return *i;
    if (auto x = node.value_exact<double>()) return *x;
    if (auto b = node.value_exact<bool>()) return *b;
    if (auto s = node.value_exact<std::string>()) return *s;
    if (const toml::array* array = node.as_array()) {
        Json list = Json::array();
        for (const auto& element : *array) list.push_back(json_of(element));
        return list;
    }
    std::ostringstream text; // a table or a date: as TOML writes it
    node.visit([&](const auto& value) { text << value; });
    return text.str();
}

// An axis value (TOML text, as --set received it) as the JSON value it stands for.
Json axis_value(const std::string& text) {
    const toml::table parsed = toml::parse("v = " + text);
    return json_of(*parsed.get("v"));
}

// Text as one CSV field: quoted (quotes doubled) where it holds a comma, a quote or a
// line break.
std::string csv_text(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

// An axis value (TOML text) as a CSV field: a string's text without TOML's quotes.
std::string csv_field(const std::string& text) {
    const auto json = axis_value(text);
    return csv_text(json.is_string() ? json.get<std::string>() : text);
}

std::string csv_number(const std::optional<double>& x) {
    return x ? number_text(*x) : "";
}

Json json_number(const std::optional<double>& x) {
    return x ? Json(*x) : Json(nullptr);
}

std::string directory_name(const SweepPlan& plan, std::size_t point) {
    const auto& run = plan.runs[point * plan.replicas];
    return std::filesystem::path(run.directory).parent_path().filename().string();
}

} // namespace

std::vector<SweepRow> aggregate(const SweepPlan& plan, const std::vector<RunOutcome>& outcomes) {
    std::vector<SweepRow> rows;
    for (std::size_t p = 0; p < plan.points; ++p) {
        SweepRow row;
        row.point = p;
        std::vector<std::vector<double>> values(plan.collect.size());
        for (std::size_t r = 0; r < plan.replicas; ++r) {
            const RunOutcome& o = outcomes[p * plan.replicas + r];
            if (o.status != RunOutcome::Status::complete) continue;
            ++row.replicas;
            if (o.collapsed) ++row.collapsed;
            // A run that broke an invariant cannot be trusted: counted, never averaged.
            if (!o.valid) {
                ++row.invalid;
                continue;
            }
            for (std::size_t k = 0; k < plan.collect.size(); ++k)
                if (o.values[k]) values[k].push_back(*o.values[k]);
        }
        for (const auto& v : values) {
            SweepEstimate e;
            e.n = v.size();
            if (!v.empty()) {
                // Replicas are independent runs: equal weights, sem = s / sqrt(n).
                const Estimate mean = weighted_mean(v, std::vector<double>(v.size(), 1.0));
                e.mean = mean.mean;
                e.sem = mean.error;
            }
            row.estimates.push_back(e);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string sweep_table_csv(const SweepPlan& plan, const std::vector<SweepRow>& rows) {
    std::ostringstream csv;
    csv << "point,directory";
    for (const auto& axis : plan.axes) csv << "," << csv_text(axis.key);
    csv << ",replicas,collapsed,invalid";
    for (const auto& key : plan.collect)
        csv << "," << csv_text(key) << "," << csv_text(key + "_sem") << "," << csv_text(key + "_n");
    csv << "\n";
    for (const auto& row : rows) {
        csv << row.point << "," << csv_text(directory_name(plan, row.point));
        for (const auto& value : plan.point_values[row.point]) csv << "," << csv_field(value);
        csv << "," << row.replicas << "," << row.collapsed << "," << row.invalid;
        for (const auto& e : row.estimates)
            csv << "," << csv_number(e.mean) << "," << csv_number(e.sem) << "," << e.n;
        csv << "\n";
    }
    return csv.str();
}

std::string sweep_table_json(const SweepPlan& plan, const std::vector<SweepRow>& rows) {
    Json j;
    j["sweep"] = plan.source;
    j["config"] = plan.base;
    j["combine"] = plan.zip ? "zip" : "grid";
    j["replicas"] = plan.replicas;
    Json axes = Json::array();
    for (const auto& axis : plan.axes) axes.push_back(axis.key);
    j["axes"] = axes;
    j["collect"] = plan.collect;
    Json list = Json::array();
    for (const auto& row : rows) {
        Json r;
        r["point"] = row.point;
        r["directory"] = directory_name(plan, row.point);
        Json values = Json::object();
        for (std::size_t k = 0; k < plan.axes.size(); ++k)
            values[plan.axes[k].key] = axis_value(plan.point_values[row.point][k]);
        r["axes"] = values;
        r["replicas"] = row.replicas;
        r["collapsed"] = row.collapsed;
        r["invalid"] = row.invalid;
        Json results = Json::object();
        for (std::size_t k = 0; k < plan.collect.size(); ++k)
            results[plan.collect[k]] = {{"mean", json_number(row.estimates[k].mean)},
                                        {"sem", json_number(row.estimates[k].sem)},
                                        {"n", row.estimates[k].n}};
        r["results"] = results;
        list.push_back(r);
    }
    j["rows"] = list;
    return j.dump(2) + "\n";
}

} // namespace choc
