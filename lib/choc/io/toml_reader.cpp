#include "choc/io/toml_reader.hpp"

#include "choc/errors.hpp"
#include "choc/message_text.hpp"

#include <algorithm>
#include <sstream>

namespace choc {

std::string type_name(const toml::node& node) {
    switch (node.type()) {
    case toml::node_type::table:
        return "table";
    case toml::node_type::array:
        return "array";
    case toml::node_type::string:
        return "string";
    case toml::node_type::integer:
        return "integer";
    case toml::node_type::floating_point:
        return "float";
    case toml::node_type::boolean:
        return "boolean";
    case toml::node_type::date:
        return "date";
    case toml::node_type::time:
        return "time";
    case toml::node_type::date_time:
        return "date-time";
    default:
        return "nothing";
    }
}

std::string show(const toml::node& node) {
    if (node.is_table()) return "a table";
    if (node.is_array()) return "an array";
    std::ostringstream text;
    node.visit([&](const auto& value) { text << value; });
    return type_name(node) + " " + text.str();
}

bool descends(std::string_view child, std::string_view parent) {
    return child.size() > parent.size() && child.starts_with(parent) &&
           (child[parent.size()] == '.' || child[parent.size()] == '[');
}

void KeySource::fail(const std::string& key, const std::string& what) const {
    throw InputError(escaped(source_of(key)) + ": " + escaped(key) + ": " + what);
}

double KeySource::number(const toml::node& node, const std::string& key, bool bounded) const {
    double x = 0;
    if (auto integer = node.value_exact<std::int64_t>()) {
        x = static_cast<double>(*integer);
    } else {
        auto real = node.value_exact<double>();
        if (!real) fail(key, "expected a number, got " + show(node));
        if (!std::isfinite(*real)) fail(key, "must be a finite number, got " + show(node));
        x = *real;
    }
    if (bounded && !within_magnitude(x)) fail(key, magnitude_message(values_, x));
    return x;
}

std::int64_t KeySource::integer(const toml::node& node, const std::string& key) const {
    auto x = node.value_exact<std::int64_t>();
    if (!x) {
        std::string hint =
            node.is_floating_point() ? " (write it without a decimal point or exponent)" : "";
        fail(key, "expected an integer, got " + show(node) + hint);
    }
    return *x;
}

std::string KeySource::string(const toml::node& node, const std::string& key) const {
    auto x = node.value_exact<std::string>();
    if (!x) fail(key, "expected a string, got " + show(node));
    return *x;
}

std::vector<double> KeySource::numbers(const toml::node& node, const std::string& key,
                                       std::size_t size, bool bounded) const {
    const toml::array* array = node.as_array();
    if (!array)
        fail(key, "expected an array of " + std::to_string(size) + " numbers, got " + show(node));
    if (array->size() != size)
        fail(key, "expected " + std::to_string(size) + " numbers (one per axis), got " +
                      std::to_string(array->size()));
    std::vector<double> values;
    for (std::size_t i = 0; i < size; ++i)
        values.push_back(number(*array->get(i), key + "[" + std::to_string(i) + "]", bounded));
    return values;
}

std::string KeySource::source_of(const std::string& key) const {
    for (const auto& set : overridden_)
        if (set == key || descends(set, key) || descends(key, set)) return "--set";
    return file_;
}

void Section::allow(std::initializer_list<std::string_view> names) const {
    if (!table_) return;
    for (const auto& [name, node] : *table_) {
        if (std::find(names.begin(), names.end(), name.str()) != names.end()) continue;
        std::string expected;
        for (auto known : names) expected += (expected.empty() ? "" : ", ") + std::string(known);
        fail(name.str(), "unknown key (expected one of: " + expected + ")");
    }
}

std::optional<double> Section::number(std::string_view name, Range range) const {
    const toml::node* node = get(name);
    if (!node) return std::nullopt;
    double x = source_->number(*node, key(name));
    check(name, x, range);
    return x;
}

double Section::required_number(std::string_view name, Range range) const {
    auto x = number(name, range);
    if (!x) fail(name, "required key is missing");
    return *x;
}

std::optional<std::int64_t> Section::integer(std::string_view name, std::int64_t min) const {
    const toml::node* node = get(name);
    if (!node) return std::nullopt;
    std::int64_t x = source_->integer(*node, key(name));
    if (x < min) fail(name, "must be >= " + std::to_string(min) + ", got " + std::to_string(x));
    return x;
}

std::optional<std::string> Section::string(std::string_view name) const {
    const toml::node* node = get(name);
    if (!node) return std::nullopt;
    return source_->string(*node, key(name));
}

std::optional<bool> Section::boolean(std::string_view name) const {
    const toml::node* node = get(name);
    if (!node) return std::nullopt;
    if (const auto* b = node->as_boolean()) return b->get();
    fail(name, "must be true or false");
}

std::string Section::required_string(std::string_view name) const {
    auto value = string(name);
    if (!value) fail(name, "required key is missing");
    if (value->empty()) fail(name, "must not be empty");
    return *value;
}

std::optional<std::vector<double>> Section::numbers(std::string_view name, int size,
                                                    bool bounded) const {
    const toml::node* node = get(name);
    if (!node) return std::nullopt;
    return source_->numbers(*node, key(name), static_cast<std::size_t>(size), bounded);
}

std::vector<double> Section::required_numbers(std::string_view name, int size, bool bounded) const {
    auto values = numbers(name, size, bounded);
    if (!values) fail(name, "required key is missing");
    return *values;
}

Section Section::table(std::string_view name) const {
    const toml::node* node = get(name);
    if (node && !node->is_table()) fail(name, "expected a table, got " + show(*node));
    return Section(*source_, node ? node->as_table() : nullptr, key(name));
}

std::vector<Section> Section::tables(std::string_view name) const {
    std::vector<Section> entries;
    const toml::node* node = get(name);
    if (!node) return entries;
    const toml::array* array = node->as_array();
    if (!array)
        fail(name, "expected an array of tables ([[" + key(name) + "]]), got " + show(*node));
    for (std::size_t i = 0; i < array->size(); ++i) {
        std::string entry = key(name) + "[" + std::to_string(i) + "]";
        const toml::node* item = array->get(i);
        if (!item->is_table()) source_->fail(entry, "expected a table, got " + show(*item));
        entries.emplace_back(*source_, item->as_table(), entry);
    }
    return entries;
}

void Section::check(std::string_view name, double x, Range range) const {
    switch (range) {
    case Range::any:
        return;
    case Range::positive:
        if (!(x > 0)) fail(name, "must be > 0, got " + number_text(x));
        return;
    case Range::non_negative:
        if (!(x >= 0)) fail(name, "must be >= 0, got " + number_text(x));
        return;
    case Range::unit_open:
        if (!(x > 0 && x < 1))
            fail(name, "must be between 0 and 1 (exclusive), got " + number_text(x));
        return;
    case Range::unit_closed:
        if (!(x >= 0 && x <= 1)) fail(name, "must be between 0 and 1, got " + number_text(x));
        return;
    case Range::unit_right_open:
        if (!(x >= 0 && x < 1)) fail(name, "must be >= 0 and below 1, got " + number_text(x));
        return;
    }
}

int read_dimension(const Section& root, int fallback) {
    auto dimension = root.integer("dimension", 2).value_or(fallback);
    if (dimension != 2 && dimension != 3)
        root.fail("dimension", "must be 2 or 3, got " + std::to_string(dimension));
    return static_cast<int>(dimension);
}

} // namespace choc
