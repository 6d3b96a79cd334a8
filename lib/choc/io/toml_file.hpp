// Reading a TOML input file with errors that name it: the whole text of a file, and the
// parsed document with a syntax error reported as "SOURCE:LINE:COLUMN: what". Shared by
// the input files (`choc collide` group files; the run config reads the same way).
#pragma once

#include <toml++/toml.h>

#include <cstddef>
#include <string>

namespace choc {

// Largest input file read (a config or group file): a few thousand lines are a large
// config; 16 MiB is far beyond any, and small next to memory.
constexpr std::size_t max_input_bytes = std::size_t{16} << 20;

// Throws InputError "PATH: cannot read file: why" (missing, a directory, not a regular
// file, larger than max_input_bytes, unreadable).
std::string read_text_file(const std::string& path);

// Throws InputError "SOURCE:LINE:COLUMN: description" on a syntax error.
toml::table parse_toml(const std::string& text, const std::string& source);

// The TOML text of a document, as toml++ writes it but with every float in its shortest
// round-trip form: 0.1, not toml++'s 0.10000000000000001 (Debian's toml++ is built without
// floating-point to_chars and prints 17 significant digits). It reads back to the same
// document, to the bit.
std::string document_text(const toml::table& document);

} // namespace choc
