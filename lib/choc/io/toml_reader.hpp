// The one strict reader of TOML input (the run config and the `choc collide` group file):
// unknown keys, wrong types, missing keys and out-of-range values are InputErrors
// "SOURCE: KEY: what", with one wording for every input file.
#pragma once

#include "choc/io/magnitude.hpp"

#include <toml++/toml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace choc {

// "integer 3", "string \"abc\"", "a table": what the user wrote, for "got ..." messages.
std::string type_name(const toml::node& node);
std::string show(const toml::node& node);

// Whether dotted key `child` lies inside `parent` ("a.b[0]" inside "a.b").
bool descends(std::string_view child, std::string_view parent);

// The file the keys are read from. A key set (or created) by --set is reported as coming
// from "--set" rather than from a file that does not contain the value. `values` names
// the file's numbers in the magnitude message ("config values").
class KeySource {
  public:
    KeySource(std::string file, std::vector<std::string> overridden = {},
              std::string values = "config values")
        : file_(std::move(file)), overridden_(std::move(overridden)), values_(std::move(values)) {}

    [[noreturn]] void fail(const std::string& key, const std::string& what) const;

    // A finite number; `bounded`: 0 or of magnitude within [min_magnitude, max_magnitude].
    double number(const toml::node& node, const std::string& key, bool bounded = true) const;
    std::int64_t integer(const toml::node& node, const std::string& key) const;
    std::string string(const toml::node& node, const std::string& key) const;
    std::vector<double> numbers(const toml::node& node, const std::string& key, std::size_t size,
                                bool bounded = true) const;

    bool from_override(const std::string& key) const { return source_of(key) == "--set"; }

    // The directory that relative input paths written in the file are relative to.
    std::string base_directory;

  private:
    std::string source_of(const std::string& key) const;

    std::string file_;
    std::vector<std::string> overridden_;
    std::string values_;
};

// unit_right_open: [0, 1).
enum class Range { any, positive, non_negative, unit_open, unit_closed, unit_right_open };

// One table of the document (possibly absent) and its dotted name.
class Section {
  public:
    Section(const KeySource& source, const toml::table* table, std::string prefix)
        : source_(&source), table_(table), prefix_(std::move(prefix)) {}

    std::string key(std::string_view name) const {
        return prefix_.empty() ? std::string(name) : prefix_ + "." + std::string(name);
    }
    [[noreturn]] void fail(std::string_view name, const std::string& what) const {
        source_->fail(key(name), what);
    }
    const toml::node* get(std::string_view name) const {
        return table_ ? table_->get(name) : nullptr;
    }
    bool has(std::string_view name) const { return get(name) != nullptr; }

    // Checked first in every table, so that a misspelt key is reported as such rather
    // than as the correct key missing.
    void allow(std::initializer_list<std::string_view> names) const;

    std::optional<double> number(std::string_view name, Range range = Range::any) const;
    double required_number(std::string_view name, Range range = Range::any) const;
    std::optional<std::int64_t> integer(std::string_view name, std::int64_t min) const;
    std::optional<std::string> string(std::string_view name) const;
    std::optional<bool> boolean(std::string_view name) const;
    std::string required_string(std::string_view name) const;

    // `bounded` false only for directions (wall normals), which are normalised.
    std::optional<std::vector<double>> numbers(std::string_view name, int size,
                                               bool bounded = true) const;
    std::vector<double> required_numbers(std::string_view name, int size,
                                         bool bounded = true) const;

    Section table(std::string_view name) const;
    // [[name]] entries, each named "name[i]" in messages.
    std::vector<Section> tables(std::string_view name) const;

    const KeySource& source() const { return *source_; }

  private:
    void check(std::string_view name, double x, Range range) const;

    const KeySource* source_;
    const toml::table* table_;
    std::string prefix_;
};

// The top-level `dimension`: the integer 2 or 3, `fallback` when absent.
int read_dimension(const Section& root, int fallback);

} // namespace choc
