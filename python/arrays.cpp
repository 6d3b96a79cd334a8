// CSV text of the library's outputs -> columns of NumPy arrays.
#include "arrays.hpp"

#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace choc::python {

namespace {

// The cells between commas, empty ones included (a trailing one too: "1,," is three).
std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = line.find(',', from);
        out.push_back(line.substr(from, comma - from));
        if (comma == std::string::npos) return out;
        from = comma + 1;
    }
}

} // namespace

py::dict csv_columns(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    std::vector<std::string> names;
    // (comment lines, as the time series file starts with, carry no column)
    while (std::getline(in, line))
        if (!line.empty() && line[0] != '#') {
            names = split(line);
            break;
        }
    std::vector<std::vector<double>> columns(names.size());
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto cells = split(line);
        if (cells.size() != names.size())
            throw std::runtime_error("a CSV row has " + std::to_string(cells.size()) +
                                     " cells for " + std::to_string(names.size()) + " columns");
        // strtod reads "nan" and "inf" and gives back the shortest form's double exactly;
        // an empty cell (a value the run could not define) is NaN, as numpy reads it
        for (std::size_t k = 0; k < cells.size(); ++k)
            columns[k].push_back(cells[k].empty() ? std::numeric_limits<double>::quiet_NaN()
                                                  : std::strtod(cells[k].c_str(), nullptr));
    }
    py::dict out;
    for (std::size_t k = 0; k < names.size(); ++k) {
        const auto n = static_cast<py::ssize_t>(columns[k].size());
        out[py::str(names[k])] = owned_array(std::move(columns[k]), {n});
    }
    return out;
}

} // namespace choc::python
