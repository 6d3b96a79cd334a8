// Extended XYZ, as written here (one frame):
//
//   N
//   Lattice="Lx 0 0 0 Ly 0 0 0 Lz" Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:masses:R:1:
//     momenta:R:3 Time=t pbc="T T T" dimension=D choc_version="..." ... (one line)
//   name x y z vx vy vz radius mass px py pz                          (N lines)
//
// Velocities are written twice. `velo` is the velocity itself, which choc's reader takes
// back bit for bit (and OVITO maps to Velocity). ASE has no velocity column: its Atoms keep
// momenta and masses, and get_velocities() divides the two, so `momenta` (m v, rounded
// once) and `masses` (exact) are written too; ASE's velocities are then within two
// roundings of velo (|dv| <= 2^-52 |v|), and get_masses() and get_kinetic_energy() are the
// mixture's. Files of the earlier layout (velo, radius, mass; no momenta) are read as
// before; a file with momenta and masses but no velo gets v = p / m.
//
// The particle's species name goes in a column called `type`, not `species`: ASE's reader
// turns a `species` column into chemical symbols and fails on names such as "A", while a
// `type` column is kept as a plain string array (atoms.arrays["type"], every atom is the
// dummy element X); OVITO maps both `type` and `species` to its Particle Type property.
// The reader accepts either name. In 2D z = 0, pz = 0, Lz = 1 (a nonsingular cell for the
// readers) and the third pbc entry is F. Numbers are written in shortest round-trip form
// ({fmt} "{}") and read with std::from_chars, so a frame read back is bit-identical.
//
// Extra comment-line keys (the run's provenance) are quoted with a backslash before `\` and
// `"` (ASE's key_val_str_to_dict reads them so); a multi-line text goes as ASE's "_JSON "
// form, a JSON string on one line. The reader skips keys it does not use.
#include "choc/io/xyz.hpp"

#include "choc/errors.hpp"
#include "choc/message_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sys/stat.h>

namespace choc {

std::string xyz_quoted(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '\\' || c == '"') out += '\\';
        out += c;
    }
    return out + '"';
}

std::string xyz_json(const std::string& json_text) {
    return xyz_quoted("_JSON " + json_text);
}

template <int D>
void write_xyz_frame(std::ostream& out, const Box<D>& box, const Particles<D>& particles,
                     double now, std::string_view keys,
                     const std::type_identity_t<ImageCountList<D>>* images) {
    fmt::memory_buffer buf;
    auto it = std::back_inserter(buf);
    const double lz = D == 3 ? box.length[D - 1] : 1.0;
    auto flag = [&](int a) { return a < D && box.periodic[a] ? 'T' : 'F'; };
    fmt::format_to(it,
                   "{}\nLattice=\"{} 0 0 0 {} 0 0 0 {}\" "
                   "Properties=type:S:1:pos:R:3:velo:R:3:radius:R:1:masses:R:1:momenta:R:3{} "
                   "Time={} pbc=\"{} {} {}\" dimension={}{}{}\n",
                   particles.size(), box.length[0], box.length[1], lz, images ? ":image:I:3" : "",
                   now, flag(0), flag(1), flag(2), D, keys.empty() ? "" : " ", keys);
    for (std::uint32_t i = 0; i < particles.size(); ++i) {
        const auto& p = particles.state[i];
        const Vec<D> x = frame_position(box, p, now);
        const auto& s = particles.table.species[p.species];
        const double m = s.mass;
        if constexpr (D == 3)
            fmt::format_to(it, "{} {} {} {} {} {} {} {} {} {} {} {}", s.name, x[0], x[1], x[2],
                           p.v[0], p.v[1], p.v[2], s.radius, m, m * p.v[0], m * p.v[1], m * p.v[2]);
        else
            fmt::format_to(it, "{} {} {} 0 {} {} 0 {} {} {} {} 0", s.name, x[0], x[1], p.v[0],
                           p.v[1], s.radius, m, m * p.v[0], m * p.v[1]);
        if (images) {
            const auto& n = (*images)[i];
            fmt::format_to(it, " {} {} {}", n[0], n[1], D == 3 ? n[D - 1] : 0);
        }
        buf.push_back('\n');
        if (buf.size() > (1u << 20)) { // keep the buffer small for large systems
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

namespace {

class Reader {
  public:
    explicit Reader(const std::string& path) : path_(escaped(path)) {
        // A device or FIFO (/dev/zero) would be read for ever: regular files only.
        struct stat info {};
        if (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
            throw InputError(path_ + ": cannot read file: not a regular file");
        in_.open(path);
        if (!in_) throw InputError(path_ + ": cannot open the file for reading");
    }

    // Next line; false at the end of the file.
    bool next(std::string& line) {
        if (!std::getline(in_, line)) return false;
        ++line_no_;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
    }
    std::size_t line_no() const { return line_no_; }
    std::streampos tell() { return in_.tellg(); }
    void seek(std::streampos pos, std::size_t line_no) {
        in_.clear();
        in_.seekg(pos);
        line_no_ = line_no;
    }
    [[noreturn]] void fail(const std::string& what) const {
        // `what` quotes the file's own bytes: escaped, so none reach the terminal raw.
        throw InputError(fmt::format("{}:{}: {}", path_, line_no_, escaped(what)));
    }

  private:
    std::string path_;
    std::ifstream in_;
    std::size_t line_no_ = 0;
};

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (true) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        if (i == s.size()) return out;
        const std::size_t j = s.find_first_of(" \t", i);
        out.push_back(s.substr(i, j == std::string_view::npos ? s.size() - i : j - i));
        if (j == std::string_view::npos) return out;
        i = j;
    }
}

template <class T>
std::optional<T> number(std::string_view s) {
    T v{};
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

// A finite double, or a Reader error: std::from_chars accepts "nan", "inf" and
// "infinity", which would make particles that never collide or a run that never ends.
// A number beyond the double range ("1e999") is read as +-inf and refused the same way; one
// too small for a double ("1e-400") is rounded to 0 or a subnormal as strtod does.
double finite(Reader& r, std::string_view word, const std::string& what) {
    double v = 0.0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (end != word.data() + word.size() ||
        (ec != std::errc() && ec != std::errc::result_out_of_range))
        r.fail(fmt::format("{} \"{}\" is not a number", what, word));
    if (ec == std::errc::result_out_of_range) v = std::strtod(std::string(word).c_str(), nullptr);
    if (!std::isfinite(v)) r.fail(fmt::format("{} \"{}\" is not a finite number", what, word));
    return v;
}

// The frame's particle count; an empty optional for a blank line.
std::optional<std::size_t> count_line(Reader& r, const std::string& line) {
    const auto words = split(line);
    if (words.empty()) return std::nullopt;
    const auto n = words.size() == 1 ? number<std::size_t>(words[0]) : std::nullopt;
    if (!n) r.fail("expected the particle count of a frame, found \"" + line + "\"");
    return n;
}

// key=value and key="quoted value" pairs of the comment line.
std::map<std::string, std::string> comment_pairs(Reader& r, const std::string& line) {
    std::map<std::string, std::string> kv;
    std::size_t i = 0;
    while (true) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == line.size()) return kv;
        const std::size_t eq = line.find('=', i);
        if (eq == std::string::npos) r.fail("expected key=value in the comment line");
        const std::string key = line.substr(i, eq - i);
        std::string value;
        if (eq + 1 < line.size() && line[eq + 1] == '"') {
            // a backslash takes the next character as it is (\" and \\ in written values)
            std::size_t j = eq + 2;
            for (; j < line.size() && line[j] != '"'; ++j) {
                if (line[j] == '\\' && j + 1 < line.size()) ++j;
                value += line[j];
            }
            if (j == line.size()) r.fail("unterminated quote after " + key + "=");
            i = j + 1;
        } else {
            const std::size_t end = line.find_first_of(" \t", eq + 1);
            value = line.substr(eq + 1, end == std::string::npos ? end : end - eq - 1);
            i = end == std::string::npos ? line.size() : end;
        }
        kv[key] = value;
    }
}

// Parses one frame whose count line has been read already.
XyzFrame parse_frame(Reader& r, std::size_t n) {
    std::string line;
    if (!r.next(line)) r.fail("the frame ends before its comment line");
    auto kv = comment_pairs(r, line);
    XyzFrame f;

    if (!kv.count("Lattice")) r.fail("the comment line has no Lattice=\"...\"");
    const auto cell = split(kv["Lattice"]);
    if (cell.size() != 9) r.fail("Lattice= needs 9 numbers");
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            const double v = finite(r, cell[3 * a + b], "Lattice= entry");
            if ((a != b && v != 0.0) || (a == b && !(v > 0.0)))
                r.fail("Lattice= must be a diagonal cell with positive edges");
            if (a == b) f.box[a] = v;
        }
    f.periodic = {true, true, true}; // the extended XYZ default when Lattice is given
    if (kv.count("pbc")) {
        const auto flags = split(kv["pbc"]);
        if (flags.size() != 3) r.fail("pbc= needs 3 entries");
        for (int a = 0; a < 3; ++a) {
            if (flags[a] != "T" && flags[a] != "F") r.fail("pbc= entries must be T or F");
            f.periodic[a] = flags[a] == "T";
        }
    }
    if (kv.count("Time")) {
        f.time = finite(r, kv["Time"], "Time=");
    }
    if (kv.count("dimension")) {
        const auto d = number<int>(kv["dimension"]);
        if (!d || (*d != 2 && *d != 3)) r.fail("dimension= must be 2 or 3");
        f.dimension = *d;
    }

    // Column of each property: name:type:columns triples.
    const auto props = kv.count("Properties") ? kv["Properties"] : "species:S:1:pos:R:3";
    std::size_t columns = 0, name_col = 0, pos_col = 0, velo_col = 0, radius_col = 0, mass_col = 0,
                momenta_col = 0;
    bool has_name = false, has_type = false, has_pos = false, has_velo = false, has_radius = false,
         has_mass = false, has_momenta = false;
    std::string_view rest = props;
    while (!rest.empty()) {
        std::array<std::string_view, 3> part;
        for (auto& p : part) {
            const std::size_t colon = rest.find(':');
            p = rest.substr(0, colon);
            rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        }
        const auto width = number<std::size_t>(part[2]);
        if (!width || part[0].empty()) r.fail("cannot parse Properties=" + props);
        // `type` wins over `species` (ASE writes species X next to our type column)
        if (part[0] == "type" && part[1] == "S" && *width == 1)
            name_col = columns, has_name = has_type = true;
        else if (part[0] == "species" && part[1] == "S" && *width == 1 && !has_type)
            name_col = columns, has_name = true;
        else if (part[0] == "pos" && part[1] == "R" && *width == 3)
            pos_col = columns, has_pos = true;
        else if (part[0] == "velo" && part[1] == "R" && *width == 3)
            velo_col = columns, has_velo = true;
        else if (part[0] == "radius" && part[1] == "R" && *width == 1)
            radius_col = columns, has_radius = true;
        else if ((part[0] == "masses" || part[0] == "mass") && part[1] == "R" && *width == 1)
            mass_col = columns, has_mass = true;
        else if (part[0] == "momenta" && part[1] == "R" && *width == 3)
            momenta_col = columns, has_momenta = true;
        columns += *width;
    }
    // velo is exact; momenta / masses (a file without velo) is within two roundings
    const bool from_momenta = !has_velo && has_momenta && has_mass;
    if (!has_name || !has_pos || !(has_velo || from_momenta))
        r.fail("Properties= must have a type (or species):S:1, a pos:R:3 and a velo:R:3 "
               "(or momenta:R:3 and masses:R:1) column");

    f.species.reserve(n);
    f.position.reserve(n);
    f.velocity.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!r.next(line)) r.fail(fmt::format("the frame ends after {} of {} particles", i, n));
        const auto words = split(line);
        if (words.size() != columns)
            r.fail(fmt::format("expected {} columns, found {}", columns, words.size()));
        std::array<double, 3> x{}, v{};
        const double m = has_mass ? finite(r, words[mass_col], "mass") : 0.0;
        if (from_momenta && !(m > 0.0)) r.fail("a mass must be positive to give v = p / m");
        for (std::size_t a = 0; a < 3; ++a) {
            x[a] = finite(r, words[pos_col + a], fmt::format("position component {}", a));
            v[a] =
                from_momenta
                    ? finite(r, words[momenta_col + a], fmt::format("momentum component {}", a)) / m
                    : finite(r, words[velo_col + a], fmt::format("velocity component {}", a));
        }
        if (i == 0) f.first_line = r.line_no();
        if (has_radius) f.radius.push_back(finite(r, words[radius_col], "radius"));
        if (has_mass) f.mass.push_back(m);
        f.species.emplace_back(words[name_col]);
        f.position.push_back(x);
        f.velocity.push_back(v);
    }
    return f;
}

} // namespace

XyzFrame read_last_xyz_frame(const std::string& path) {
    Reader r(path);
    // Walk the frames by their counts without parsing the particle lines, remembering where
    // the last one starts; a count that runs past the end of the file is an error.
    std::optional<std::size_t> last_n;
    std::streampos last_pos{};
    std::size_t last_line = 0;
    std::string line;
    while (true) {
        const std::streampos pos = r.tell();
        const std::size_t line_no = r.line_no();
        if (!r.next(line)) break;
        const auto n = count_line(r, line);
        if (!n) continue;
        last_n = n;
        last_pos = pos;
        last_line = line_no;
        for (std::size_t k = 0; k < *n + 1; ++k)
            if (!r.next(line))
                r.fail(fmt::format("the last frame is incomplete: {} particles "
                                   "announced, the file ends first",
                                   *n));
    }
    if (!last_n) throw InputError(escaped(path) + ": no frame found (the file is empty)");
    r.seek(last_pos, last_line);
    r.next(line);
    return parse_frame(r, *last_n);
}

template void write_xyz_frame<2>(std::ostream&, const Box<2>&, const Particles<2>&, double,
                                 std::string_view, const ImageCountList<2>*);
template void write_xyz_frame<3>(std::ostream&, const Box<3>&, const Particles<3>&, double,
                                 std::string_view, const ImageCountList<3>*);

} // namespace choc
