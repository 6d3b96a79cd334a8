// Text for error messages: the one way numbers and user-given strings are shown in a
// `choc: error:` line, so that every reader says the same thing the same way.
#pragma once

#include <string>
#include <string_view>

namespace choc {

// The shortest text that reads back as the same double ("3e-07", "0.1", "inf"), never
// std::to_string's six fixed decimals (which show 3e-7 as "0.000000").
std::string number_text(double x);

// `text` made safe for a terminal line: printable ASCII is kept, a backslash is doubled,
// and every other byte (control characters, newlines, escape sequences, the bytes of
// non-ASCII characters such as right-to-left overrides) is written as \xHH. At most
// `limit` bytes of `text` are shown; a longer text ends in "...".
std::string escaped(std::string_view text, std::size_t limit = 200);

} // namespace choc
