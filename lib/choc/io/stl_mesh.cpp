#include "choc/io/stl_mesh.hpp"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace choc {

std::vector<MeshTriangle> read_stl(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension != ".stl")
        throw std::runtime_error("expected an STL file (a name ending in .stl)");
    Assimp::Importer importer;
    // Only what reading needs: no post-processing step that moves, merges or drops a vertex
    // (STL facets are triangles already), and no lines or points.
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const aiScene* scene = importer.ReadFile(path, aiProcess_SortByPType);
    if (scene == nullptr)
        throw std::runtime_error("cannot read it as STL: " +
                                 std::string(importer.GetErrorString()));
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
    return triangles;
}

} // namespace choc
