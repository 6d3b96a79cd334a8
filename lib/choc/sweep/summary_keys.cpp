#include "choc/sweep/summary_keys.hpp"

#include "choc/message_text.hpp"
#include "choc/run/summary.hpp"

#include <fmt/format.h>

#include <charconv>

namespace choc {
namespace {

// "species[1].temperature" -> the JSON pointer /species/1/temperature; none when the
// key is not of that form (names joined by dots, each followed by any [index]).
std::optional<nlohmann::json::json_pointer> pointer(const std::string& key) {
    std::vector<std::string> tokens;
    std::size_t i = 0;
    while (i <= key.size()) {
        // a name
        const std::size_t end = key.find_first_of(".[", i);
        const std::string name = key.substr(i, end == std::string::npos ? end : end - i);
        if (name.empty() || name.find_first_of("]/~") != std::string::npos) return std::nullopt;
        tokens.push_back(name);
        i = end == std::string::npos ? key.size() : end;
        // its indices
        while (i < key.size() && key[i] == '[') {
            const std::size_t close = key.find(']', i);
            if (close == std::string::npos) return std::nullopt;
            std::size_t index = 0;
            const char* begin = key.data() + i + 1;
            const char* stop = key.data() + close;
            const auto [last, error] = std::from_chars(begin, stop, index);
            if (begin == stop || error != std::errc{} || last != stop) return std::nullopt;
            tokens.push_back(std::to_string(index));
            i = close + 1;
        }
        if (i == key.size()) break;
        if (key[i] != '.') return std::nullopt;
        ++i; // (a trailing dot leaves an empty name: refused above)
    }
    nlohmann::json::json_pointer at;
    for (const auto& token : tokens) at /= token;
    return at;
}

// A summary of a run of `config` in which every quantity is defined: its numbers are
// the keys a sweep can collect.
nlohmann::json layout(const Config& config) {
    Summary s;
    s.dimension = config.dimension;
    s.Z = s.Z_err = s.collision_rate = s.ks_distance = s.ks_pvalue = s.kurtosis = s.mean_free_time =
        s.D = s.D_err = s.D_infinite = s.D_infinite_err = s.D_enskog = 1.0;
    s.finite_size = Summary::FiniteSize{1.0, true, true};
    s.momentum_initial.assign(static_cast<std::size_t>(config.dimension), 0.0);
    s.momentum_final = s.momentum_initial;
    for (const auto& species : config.species) {
        s.species.push_back(
            {species.name, 1, 1.0, std::vector<double>(config.species.size(), 1.0), 1.0});
        s.species_diffusion.push_back({species.name, 1.0, 1.0});
    }
    s.diffusion_windows = WindowLag{1.0, 1, 1.0, 1.0};
    s.diffusion_lags = {*s.diffusion_windows};
    s.shear_viscosity =
        TransportCoefficient{1.0, 1.0, 1.0, {*s.diffusion_windows}, *s.diffusion_windows};
    s.thermal_conductivity = s.shear_viscosity;
    const auto d = static_cast<std::size_t>(config.dimension);
    s.pressure_tensor.assign(d, std::vector<double>(d, 1.0));
    s.pressure_tensor_err = s.pressure_tensor;
    if (config.shear_rate != 0.0) {
        ShearSummary h;
        h.stress_err = h.eta_err = h.heating = h.enskog = 1.0;
        s.sliding_shear = h;
    }
    if (config.crossing) s.crossing = CrossingSummary{1, 1.0};
    if (config.rest_speed > 0.0) s.rest = RestSummary{1.0, 1.0, 1.0, 1, 1, 1, 1, 1.0, 1, 1, 1};
    if (config.integrator == Integrator::edmd) s.engine.emplace();
    if (config.integrator == Integrator::timestep) {
        s.timestep.emplace();
        if (config.compare_edmd) {
            EdmdComparison e;
            e.collision_rate = e.Z = e.Z_err = 1.0;
            e.collisions = e.wall_collisions = 1;
            s.collisions = s.wall_collisions = 1;
            s.timestep->edmd = e;
        }
    }
    return nlohmann::json::parse(summary_json(s));
}

} // namespace

std::vector<std::string> collected_keys(const Section& root, const Config& config) {
    if (!root.has("collect")) return {"pressure.Z", "collision_rate", "temperature"};
    const toml::array* list = root.get("collect")->as_array();
    if (!list)
        root.fail("collect",
                  "expected an array of summary keys, got " + show(*root.get("collect")));
    if (list->empty()) root.fail("collect", "must not be empty (name a summary key to collect)");
    const nlohmann::json summary = layout(config);
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string name = "collect[" + std::to_string(i) + "]";
        const auto key = list->get(i)->value_exact<std::string>();
        if (!key) root.fail(name, "expected a string, got " + show(*list->get(i)));
        const auto at = pointer(*key);
        const bool number = at && summary.contains(*at) && summary.at(*at).is_number();
        if (!number)
            root.fail(name, fmt::format("\"{}\" is not a number of the summary (collect e.g. "
                                        "pressure.Z, collision_rate, temperature, "
                                        "species[0].temperature, diffusion.D, "
                                        "velocity_distribution.ks_distance)",
                                        escaped(*key)));
        for (const auto& other : keys)
            if (other == *key)
                root.fail(name, fmt::format("\"{}\" is collected twice", escaped(*key)));
        keys.push_back(*key);
    }
    return keys;
}

std::optional<double> summary_value(const nlohmann::json& summary, const std::string& key) {
    const auto at = pointer(key);
    if (!at || !summary.contains(*at)) return std::nullopt;
    const auto& value = summary.at(*at);
    if (!value.is_number()) return std::nullopt;
    return value.get<double>();
}

} // namespace choc
