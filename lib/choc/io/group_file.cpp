// parse_group_file: TOML (toml++) -> GroupFile, strictly: unknown keys, wrong types,
// missing keys and out-of-range values are InputErrors "FILE: KEY: what".
#include "group_file.hpp"

#include "../errors.hpp"
#include "message_text.hpp"
#include "toml_file.hpp"
#include "unit_vector.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string_view>

namespace choc {
namespace {

std::string shortest(double x) {
    return number_text(x);
}

// Reads the keys of one table; `where` is its name in messages ("" for the top level,
// "bodies[2]" for an entry of an array of tables).
class TableReader {
  public:
    TableReader(const std::string& source, const toml::table& table, std::string where)
        : source_(source), table_(table), where_(std::move(where)) {}

    std::string key(std::string_view name) const {
        return where_.empty() ? std::string(name) : where_ + "." + std::string(name);
    }
    [[noreturn]] void fail(std::string_view name, const std::string& what) const {
        throw InputError(escaped(source_) + ": " + escaped(key(name)) + ": " + what);
    }

    void only(std::initializer_list<std::string_view> known) const {
        for (const auto& [name, node] : table_) {
            if (std::find(known.begin(), known.end(), name.str()) != known.end()) continue;
            std::string list;
            for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
            fail(name.str(), "unknown key (expected one of: " + list + ")");
        }
    }

    // A number (an integer is accepted for a float), finite; nullopt when absent.
    std::optional<double> number(std::string_view name) const {
        const toml::node* node = table_.get(name);
        if (!node) return std::nullopt;
        return to_number(*node, key(name));
    }
    double required_number(std::string_view name) const {
        auto x = number(name);
        if (!x) fail(name, "required key is missing");
        return *x;
    }
    // A number within [lo, hi] (open ends where asked); nullopt when absent.
    std::optional<double> number_in(std::string_view name, double lo, bool lo_open, double hi,
                                    bool hi_open) const {
        auto x = number(name);
        if (!x || !((lo_open ? *x <= lo : *x < lo) || (hi_open ? *x >= hi : *x > hi))) return x;
        if (std::isinf(hi)) fail(name, "must be > " + shortest(lo) + ", got " + shortest(*x));
        fail(name, "must be in " + std::string(lo_open ? "(" : "[") + shortest(lo) + ", " +
                       shortest(hi) + (hi_open ? ")" : "]") + ", got " + shortest(*x));
    }

    std::vector<double> vector(std::string_view name, int dimension) const {
        const toml::node* node = table_.get(name);
        if (!node) fail(name, "required key is missing");
        const toml::array* array = node->as_array();
        const auto size = static_cast<std::size_t>(dimension);
        if (!array || array->size() != size)
            fail(name, "expected an array of " + std::to_string(dimension) +
                           " numbers (dimension = " + std::to_string(dimension) + ")");
        std::vector<double> values;
        for (std::size_t i = 0; i < size; ++i)
            values.push_back(to_number(*array->get(i), key(name) + "[" + std::to_string(i) + "]"));
        return values;
    }

    // Calls `read` on each entry of the array of tables `name` ([[name]]).
    void each(std::string_view name, const std::function<void(const TableReader&)>& read) const {
        const toml::node* node = table_.get(name);
        if (!node) return;
        const toml::array* array = node->as_array();
        if (!array) fail(name, "expected an array of tables ([[" + key(name) + "]])");
        for (std::size_t i = 0; i < array->size(); ++i) {
            const std::string entry = key(name) + "[" + std::to_string(i) + "]";
            const toml::table* table = array->get(i)->as_table();
            if (!table) throw InputError(escaped(source_) + ": " + entry + ": expected a table");
            read(TableReader(source_, *table, entry));
        }
    }

  private:
    double to_number(const toml::node& node, const std::string& name) const {
        if (auto i = node.value_exact<std::int64_t>()) return static_cast<double>(*i);
        auto x = node.value_exact<double>();
        if (!x) {
            std::ostringstream got;
            got << node.type();
            throw InputError(escaped(source_) + ": " + name + ": expected a number, got a " +
                             got.str());
        }
        if (!std::isfinite(*x))
            throw InputError(escaped(source_) + ": " + name + ": must be a finite number");
        return *x;
    }

    const std::string& source_;
    const toml::table& table_;
    std::string where_;
};

constexpr double inf = std::numeric_limits<double>::infinity();

} // namespace

GroupFile parse_group_file(const std::string& toml_text, const std::string& source) {
    const toml::table document = parse_toml(toml_text, source);
    const TableReader root(source, document, "");
    root.only({"dimension", "restitution", "tolerance", "bodies", "walls"});
    GroupFile group;
    group.source = source;
    if (const toml::node* node = document.get("dimension")) {
        auto dimension = node->value_exact<std::int64_t>();
        if (!dimension || (*dimension != 2 && *dimension != 3))
            root.fail("dimension", "must be the integer 2 or 3");
        group.dimension = static_cast<int>(*dimension);
    }
    group.restitution = root.number_in("restitution", 0, false, 1, false).value_or(1.0);
    group.tolerance =
        root.number_in("tolerance", 0, false, 1, true).value_or(default_contact_tolerance);
    const int d = group.dimension;

    root.each("bodies", [&](const TableReader& entry) {
        entry.only({"position", "velocity", "radius", "mass"});
        GroupFileBody body;
        body.position = entry.vector("position", d);
        body.velocity = entry.vector("velocity", d);
        entry.required_number("radius");
        body.radius = *entry.number_in("radius", 0, true, inf, true);
        entry.required_number("mass");
        body.mass = *entry.number_in("mass", 0, true, inf, true);
        double kinetic = 0.0;
        for (double v : body.velocity) kinetic += 0.5 * body.mass * v * v;
        if (!std::isfinite(kinetic))
            entry.fail("velocity", "the kinetic energy m v^2 / 2 overflows a double");
        group.bodies.push_back(body);
    });
    if (group.bodies.empty()) root.fail("bodies", "at least one [[bodies]] table is required");

    root.each("walls", [&](const TableReader& entry) {
        entry.only({"normal", "point", "restitution"});
        GroupFileWall wall;
        const auto normal = unit_vector(entry.vector("normal", d));
        if (!normal) entry.fail("normal", "must not be the zero vector");
        wall.normal = *normal;
        wall.point = entry.vector("point", d);
        wall.restitution =
            entry.number_in("restitution", 0, false, 1, false).value_or(group.restitution);
        group.walls.push_back(wall);
    });
    return group;
}

GroupFile load_group_file(const std::string& path) {
    return parse_group_file(read_text_file(path), path);
}

} // namespace choc
