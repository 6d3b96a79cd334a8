// The summary of docs/REFERENCE.md with nlohmann::ordered_json, so that keys keep the
// table's order.
#include "choc/run/summary.hpp"

#include "choc/io/atomic_file.hpp"
#include "choc_commit.hpp"
#include "choc_version.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace choc {
namespace {

using Json = nlohmann::ordered_json;

// A value the run could not define (unset or not finite) is null, never a number.
Json number(double x) {
    return std::isfinite(x) ? Json(x) : Json(nullptr);
}
Json number(const std::optional<double>& x) {
    return x ? number(*x) : Json(nullptr);
}

Json numbers(const std::vector<double>& xs) {
    Json array = Json::array();
    for (double x : xs) array.push_back(number(x));
    return array;
}

// A matrix as rows; null when empty.
Json matrix(const std::vector<std::vector<double>>& rows) {
    if (rows.empty()) return nullptr;
    Json out = Json::array();
    for (const auto& row : rows) out.push_back(numbers(row));
    return out;
}

// One lag of a coefficient from windows, its value and error named `name` and `name`_err.
Json lag_json(const WindowLag& l, const std::string& name) {
    return Json{{"lag", number(l.lag)},
                {"pairs", l.pairs},
                {name, number(l.value)},
                {name + "_err", number(l.error)}};
}

// "shear_viscosity" or "thermal_conductivity" (value named `name`), or null.
Json transport_json(const std::optional<TransportCoefficient>& c, const std::string& name) {
    if (!c) return nullptr;
    const bool compared = c->value && c->enskog;
    Json j{{name, number(c->value)},
           {name + "_err", number(c->error)},
           {name + "_enskog", number(c->enskog)},
           {"ratio", compared ? number(*c->value / *c->enskog) : Json(nullptr)},
           {"ratio_err", compared && c->error ? number(*c->error / *c->enskog) : Json(nullptr)},
           {"windows", c->windows ? lag_json(*c->windows, name) : Json(nullptr)},
           {"plateau", c->plateau},
           {"lags", Json::array()}};
    for (const auto& l : c->lags) j["lags"].push_back(lag_json(l, name));
    return j;
}

// "heat_conduction" or "shear_flow": what drives, what flows, the coefficient (named by
// the key's own words) and its Enskog value.
Json gap_json(const std::optional<GapTransport>& h, int dimension, bool shear) {
    if (!h) return nullptr;
    static constexpr const char* axes[] = {"x", "y", "z"};
    const bool compared = h->enskog.has_value();
    const std::string flux = shear ? "stress" : "flux",
                      gradient = shear ? "shear_rate" : "gradient", name = shear ? "eta" : "lambda";
    Json j{{"axis", dimension > h->axis ? axes[h->axis] : "?"},
           {"wall_temperature", numbers({h->wall_temperature[0], h->wall_temperature[1]})}};
    if (shear) {
        j["wall_velocity"] = matrix(h->wall_velocity);
        j["direction"] = numbers(h->direction);
        j["wall_momentum"] = numbers({h->given[0], h->given[1]});
    } else {
        j["wall_heat"] = numbers({h->given[0], h->given[1]});
    }
    j[flux] = number(h->flux);
    j[flux + "_err"] = number(h->flux_err);
    j[gradient] = number(h->gradient);
    j[gradient + "_err"] = number(h->gradient_err);
    j[name] = number(h->coefficient);
    j[name + "_err"] = number(h->coefficient_err);
    j["temperature"] = number(h->temperature);
    j["temperature_err"] = number(h->temperature_err);
    j["packing_fraction"] = number(h->packing_fraction);
    j["packing_fraction_err"] = number(h->packing_fraction_err);
    j["fit"] = numbers({h->fit_from, h->fit_to});
    j["blocks"] = h->blocks;
    j[name + "_enskog"] = number(h->enskog);
    j["ratio"] = compared ? number(h->coefficient / *h->enskog) : Json(nullptr);
    j["ratio_err"] =
        compared && h->coefficient_err ? number(*h->coefficient_err / *h->enskog) : Json(nullptr);
    return j;
}

Json sliding_shear_json(const std::optional<ShearSummary>& h) {
    if (!h) return nullptr;
    const bool compared = h->enskog.has_value();
    return Json{
        {"shear_rate", number(h->shear_rate)},
        {"stress", number(h->stress)},
        {"stress_err", number(h->stress_err)},
        {"eta", number(h->eta)},
        {"eta_err", number(h->eta_err)},
        {"temperature", number(h->temperature)},
        {"temperature_first", number(h->temperature_first)},
        {"temperature_last", number(h->temperature_last)},
        {"heating", number(h->heating)},
        {"packing_fraction", number(h->packing_fraction)},
        {"blocks", h->blocks},
        {"eta_enskog", number(h->enskog)},
        {"ratio", compared ? number(h->eta / *h->enskog) : Json(nullptr)},
        {"ratio_err", compared && h->eta_err ? number(*h->eta_err / *h->enskog) : Json(nullptr)}};
}

// A ratio of counts, null when the reference found none.
Json ratio(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? Json(nullptr) : number(static_cast<double>(a) / static_cast<double>(b));
}

Json stepping_json(const Summary& s) {
    if (!s.timestep) return nullptr;
    const SteppingSummary& t = *s.timestep;
    Json j{{"dt", number(t.dt)},
           {"passes", t.passes},
           {"steps", t.steps},
           {"passes_run", t.passes_run},
           {"unresolved", t.unresolved},
           {"overlapping_pairs", t.overlapping_pairs},
           {"max_overlap", number(t.max_overlap)},
           {"energy_error", number(t.energy_error)}};
    if (!t.edmd) {
        j["edmd"] = nullptr;
        return j;
    }
    const EdmdComparison& e = *t.edmd;
    Json z = e.Z ? Json{{"Z", number(e.Z)}, {"Z_err", number(e.Z_err)}} : Json(nullptr);
    j["edmd"] = {{"sim_time", number(e.sim_time)},
                 {"collisions", e.collisions},
                 {"wall_collisions", e.wall_collisions},
                 {"collision_rate", number(e.collision_rate)},
                 {"pressure", z},
                 {"wall_seconds", number(e.wall_seconds)},
                 {"valid", e.valid},
                 {"collapsed", e.collapsed},
                 {"collisions_found", ratio(s.collisions, e.collisions)},
                 {"wall_collisions_found", ratio(s.wall_collisions, e.wall_collisions)}};
    return j;
}

} // namespace

std::string summary_json(const Summary& s) {
    Json j;
    j["choc_version"] = version;
    j["dimension"] = s.dimension;
    j["N"] = s.N;
    j["packing_fraction"] = number(s.packing_fraction);
    j["sim_time"] = number(s.sim_time);
    j["collisions"] = s.collisions;
    j["wall_collisions"] = s.wall_collisions;
    j["events"] = s.events;
    j["wall_seconds"] = number(s.wall_seconds);
    j["collisions_per_second"] = number(s.collisions_per_second);
    j["engine"] = s.engine ? Json{{"cell_crossings", s.engine->cell_crossings},
                                  {"stale_predictions", s.engine->stale},
                                  {"rescans", s.engine->rescans},
                                  {"pair_predictions", s.engine->pair_predictions},
                                  {"memory_bytes", s.engine->memory_bytes}}
                           : Json(nullptr);
    j["kinetic_energy"] = {{"initial", number(s.kinetic_energy_initial)},
                           {"final", number(s.kinetic_energy_final)}};
    j["momentum"] = {{"initial", numbers(s.momentum_initial)},
                     {"final", numbers(s.momentum_final)}};
    j["temperature"] = number(s.temperature);
    j["max_overlap"] = number(s.max_overlap);
    j["pressure"] = s.Z ? Json{{"Z", number(s.Z)},
                               {"Z_err", number(s.Z_err)},
                               {"tensor", matrix(s.pressure_tensor)},
                               {"tensor_err", matrix(s.pressure_tensor_err)}}
                        : Json(nullptr);
    j["collision_rate"] = number(s.collision_rate);
    Json species = Json::array();
    for (const auto& sp : s.species) {
        Json rates = Json::object();
        for (std::size_t b = 0; b < sp.collision_rates.size(); ++b)
            rates[s.species[b].name] = number(sp.collision_rates[b]);
        species.push_back(
            {{"name", sp.name},
             {"count", sp.count},
             {"temperature", number(sp.temperature)},
             {"collision_rate", number(sp.collision_rate)},
             {"collision_rates", sp.collision_rates.empty() ? Json(nullptr) : rates}});
    }
    j["species"] = species;
    j["velocity_distribution"] = s.ks_distance && s.kurtosis
                                     ? Json{{"ks_distance", number(s.ks_distance)},
                                            {"ks_pvalue", number(s.ks_pvalue)},
                                            {"kurtosis", number(s.kurtosis)}}
                                     : Json(nullptr);
    j["mean_free_time"] = number(s.mean_free_time);
    // (in 2D, D from windows lag by lag alone: s.D is null)
    if (s.D || (s.dimension == 2 && !s.diffusion_lags.empty())) {
        const bool compared = s.D_enskog && s.D_infinite;
        j["diffusion"] = {{"D", number(s.D)},
                          {"D_err", number(s.D_err)},
                          {"D_infinite", number(s.D_infinite)},
                          {"D_infinite_err", number(s.D_infinite_err)},
                          {"D_enskog", number(s.D_enskog)},
                          {"ratio", compared ? number(*s.D_infinite / *s.D_enskog) : Json(nullptr)},
                          {"ratio_err", compared && s.D_infinite_err
                                            ? number(*s.D_infinite_err / *s.D_enskog)
                                            : Json(nullptr)},
                          {"species", Json::array()}};
        j["diffusion"]["finite_size"] =
            s.finite_size
                ? Json{{"correction", number(s.finite_size->correction)},
                       {"D_from", s.finite_size->from_windows ? "windows" : "displacement"},
                       {"eta_from", s.finite_size->measured_viscosity ? "measured" : "enskog"}}
                : Json(nullptr);
        j["diffusion"]["windows"] =
            s.diffusion_windows ? lag_json(*s.diffusion_windows, "D") : Json(nullptr);
        j["diffusion"]["lags"] = Json::array();
        for (const auto& l : s.diffusion_lags) j["diffusion"]["lags"].push_back(lag_json(l, "D"));
        for (const auto& sp : s.species_diffusion)
            j["diffusion"]["species"].push_back(
                {{"name", sp.name}, {"D", number(sp.D)}, {"D_err", number(sp.D_err)}});
    } else {
        j["diffusion"] = nullptr;
    }
    j["shear_viscosity"] = transport_json(s.shear_viscosity, "eta");
    j["thermal_conductivity"] = transport_json(s.thermal_conductivity, "lambda");
    j["heat_conduction"] = gap_json(s.heat_conduction, s.dimension, false);
    j["shear_flow"] = gap_json(s.shear_flow, s.dimension, true);
    j["sliding_shear"] = sliding_shear_json(s.sliding_shear);
    j["crossing"] =
        s.crossing ? Json{{"count", s.crossing->count},
                          {"rate", s.crossing->rate ? number(*s.crossing->rate) : Json(nullptr)}}
                   : Json(nullptr);
    j["rest"] = s.rest ? Json{{"speed", number(s.rest->speed)},
                              {"reach", number(s.rest->reach)},
                              {"wake_speed", number(s.rest->wake)},
                              {"rests", s.rest->rests},
                              {"wakes", s.rest->wakes},
                              {"slow_impacts", s.rest->slow_impacts},
                              {"glides", s.rest->glides},
                              {"leans", s.rest->leans},
                              {"rescues", s.rest->rescues},
                              {"energy", number(s.rest->energy)},
                              {"at_rest", s.rest->at_rest}}
                       : Json(nullptr);
    j["timestep"] = stepping_json(s);
    // True when SIGINT/SIGTERM stopped the run before its end.
    j["interrupted"] = s.interrupted;
    // True when an inelastic collapse stopped the run before its end (exit status 3).
    j["collapsed"] = s.collapsed;
    // False (with the reason) when a runtime invariant broke.
    j["valid"] = s.valid;
    j["violation"] = s.violation ? Json(*s.violation) : Json(nullptr);
    const Provenance& p = s.provenance;
    j["provenance"] = {{"git_commit", git_commit},
                       {"config", p.config},
                       {"seed", p.seed},
                       {"command_line", p.command_line},
                       {"started", p.started},
                       {"finished", p.finished},
                       {"host", p.host}};
    return j.dump(2);
}

void write_summary(const std::string& path, const Summary& summary) {
    write_file_atomically(path, summary_json(summary) + "\n");
}

} // namespace choc
