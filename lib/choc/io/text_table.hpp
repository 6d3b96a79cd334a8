// Plain-text tables for the terminal (`choc collide`, `choc contact`).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace choc {

// Rows of cells, each column padded to its widest cell, two spaces apart.
inline std::string aligned(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    for (const auto& row : rows) {
        width.resize(std::max(width.size(), row.size()));
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    std::string text;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c)
            line += c + 1 < row.size() ? fmt::format("{:<{}}  ", row[c], width[c]) : row[c];
        text += line + "\n";
    }
    return text;
}

} // namespace choc
