#include "choc/io/stl_mesh.hpp"

#include "choc/message_text.hpp"
#include "choc/run/interrupt.hpp"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace choc {
namespace {

// Binary STL as Assimp tells it: an 80-byte header, a 32-bit facet count, and exactly 50
// bytes a facet. Anything else whose first word is "solid" Assimp reads as ASCII.
std::optional<std::uint64_t> binary_facets(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[84];
    if (!in.read(head, sizeof head)) return std::nullopt;
    const auto size = std::filesystem::file_size(path);
    const auto* b = reinterpret_cast<const unsigned char*>(head + 80);
    const std::uint64_t count = b[0] | b[1] << 8 | b[2] << 16 | std::uint64_t{b[3]} << 24;
    if (84 + 50 * count != size) return std::nullopt;
    return count;
}

// A word of the file, quoted for a message: escaped, at most 40 bytes.
std::string word_text(const std::string& word) {
    std::string out(1, '"');
    out += escaped(word, 40);
    out += '"';
    return out;
}

bool is_number(const std::string& token) {
    if (token.empty() || token.find_first_not_of("0123456789+-.eE") != std::string::npos)
        return false; // (no inf, nan or hexadecimal: Assimp would read them otherwise)
    char* end = nullptr;
    std::strtod(token.c_str(), &end);
    return end == token.c_str() + token.size();
}

// The structure of an ASCII STL file, line by line: "solid NAME", then facets of exactly
// this form, then "endsolid NAME" (and possibly further solids):
//     facet normal nx ny nz
//       outer loop
//         vertex x y z      (three times)
//       endloop
//     endfacet
// Assimp reads what does not fit past without a word: a file cut short (no endsolid) gives
// the facets before the cut, a fourth vertex is dropped. Returns the number of facets;
// throws std::runtime_error naming the line otherwise.
std::uint64_t check_ascii(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    enum class In { nothing, solid, facet, loop, looped } at = In::nothing;
    // the lines where the open solid and the open facet began
    std::uint64_t line_number = 0, facets = 0, solid_line = 0, opened = 0;
    int vertices = 0;
    std::string line;
    std::vector<std::string> w; // the line's words
    const auto fail = [&](const std::string& what) {
        throw std::runtime_error("line " + std::to_string(line_number) + ": " + what);
    };
    while (std::getline(in, line)) {
        if ((++line_number & 0xffff) == 0) stop_if_interrupted("reading a mesh");
        w.clear();
        for (std::size_t b = 0; (b = line.find_first_not_of(" \t\r\f\v", b)) != line.npos;) {
            const std::size_t e = std::min(line.find_first_of(" \t\r\f\v", b), line.size());
            w.emplace_back(line, b, e - b);
            b = e;
        }
        if (w.empty()) continue;
        const auto numbers_after = [&](std::size_t first, const char* what) {
            if (w.size() != first + 3)
                fail(std::string("expected ") + word_text(what) + " and three numbers, got " +
                     std::to_string(w.size() - first) + " value(s)");
            for (std::size_t k = first; k < w.size(); ++k)
                if (!is_number(w[k])) fail(word_text(w[k]) + " is not a number");
        };
        const std::string& key = w[0];
        switch (at) {
        case In::nothing:
            if (key != "solid") fail("expected \"solid\", got " + word_text(key));
            at = In::solid, solid_line = line_number;
            break;
        case In::solid:
            if (key == "endsolid") {
                at = In::nothing;
            } else if (key == "facet") {
                if (w.size() < 2 || w[1] != "normal") fail("expected \"facet normal nx ny nz\"");
                numbers_after(2, "facet normal");
                at = In::facet, opened = line_number;
            } else {
                fail("expected \"facet\" or \"endsolid\", got " + word_text(key));
            }
            break;
        case In::facet:
            if (key != "outer" || w.size() != 2 || w[1] != "loop")
                fail("expected \"outer loop\" after the facet of line " + std::to_string(opened));
            at = In::loop, vertices = 0;
            break;
        case In::loop:
            if (key == "vertex") {
                if (++vertices > 3)
                    fail("a fourth vertex in the facet of line " + std::to_string(opened) +
                         " (an STL facet is a triangle: three vertices)");
                numbers_after(1, "vertex");
            } else if (key == "endloop") {
                if (vertices != 3)
                    fail("the facet of line " + std::to_string(opened) + " has " +
                         std::to_string(vertices) + " vertices, expected three");
                at = In::looped;
            } else {
                fail("expected \"vertex\" or \"endloop\", got " + word_text(key));
            }
            break;
        case In::looped:
            if (key != "endfacet") fail("expected \"endfacet\", got " + word_text(key));
            at = In::solid, ++facets;
            break;
        }
    }
    if (in.bad()) throw std::runtime_error("cannot read it");
    if (at == In::solid)
        fail("the file ends without \"endsolid\" for the solid of line " +
             std::to_string(solid_line) + " (a truncated file?)");
    if (at != In::nothing)
        fail("the file ends inside the facet of line " + std::to_string(opened) +
             " (a truncated file?)");
    return facets;
}

// Whether Assimp will read the file as ASCII STL: its first word is "solid" (and it is not
// binary by its size).
bool ascii(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string first;
    return static_cast<bool>(in >> first) && first.rfind("solid", 0) == 0;
}

} // namespace

std::vector<MeshTriangle> read_stl(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension != ".stl")
        throw std::runtime_error("expected an STL file (a name ending in .stl)");
    // The facets the file holds, as its structure says: Assimp must return them all.
    std::optional<std::uint64_t> expected = binary_facets(path);
    if (!expected && ascii(path)) expected = check_ascii(path);
    Assimp::Importer importer;
    // Only what reading needs: no post-processing step that moves, merges or drops a vertex
    // (STL facets are triangles already), and no lines or points.
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* scene = importer.ReadFile(path, aiProcess_SortByPType);
    stop_if_interrupted("reading a mesh");
    // (Assimp's message may quote the rest of the file: a bounded excerpt of it)
    if (scene == nullptr)
        throw std::runtime_error(std::string("cannot read it as STL: ") +
                                 escaped(importer.GetErrorString(), 160));
    std::vector<MeshTriangle> triangles;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* mesh = scene->mMeshes[m];
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            const aiFace& face = mesh->mFaces[f];
            if (face.mNumIndices != 3) continue; // (removed above; a polygon is not STL)
            MeshTriangle t;
            for (int k = 0; k < 3; ++k) {
                const aiVector3D& v = mesh->mVertices[face.mIndices[k]];
                t[k] = {static_cast<double>(v.x), static_cast<double>(v.y),
                        static_cast<double>(v.z)};
            }
            triangles.push_back(t);
        }
    }
    if (triangles.empty()) throw std::runtime_error("the file has no facets");
    if (expected && triangles.size() != *expected)
        throw std::runtime_error("the file holds " + std::to_string(*expected) + " facets, but " +
                                 std::to_string(triangles.size()) + " were read");
    return triangles;
}

} // namespace choc
