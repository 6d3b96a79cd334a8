#include "choc/message_text.hpp"

#include <fmt/format.h>

namespace choc {

std::string number_text(double x) {
    // fmt's "{}" is the shortest round-trip form (Ryu-like), as std::to_chars.
    return fmt::format("{}", x);
}

std::string escaped(std::string_view text, std::size_t limit) {
    std::string out;
    const std::size_t shown = std::min(text.size(), limit);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\\')
            out += "\\\\";
        else if (c >= 0x20 && c < 0x7f)
            out += static_cast<char>(c);
        else
            out += fmt::format("\\x{:02x}", c);
    }
    if (shown < text.size()) out += "...";
    return out;
}

} // namespace choc
