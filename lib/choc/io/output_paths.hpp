// The outputs of one run checked together before it starts: each can be written
// (atomic_file.hpp's check_writable), no two are one file, and none is one of the inputs.
// Paths are compared resolved (the real path of the directory plus the name), and files
// that exist by identity (device and inode), so "summary.json", "./summary.json",
// "$PWD/summary.json", a symbolic link to the directory and a hard link are all caught.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace choc {

struct NamedPath {
    std::string key;  // the config key or option that gives the path ("output.summary")
    std::string path; // as the user wrote it
};

// Throws InputError naming the output's key (and the other key) on the first problem.
// `inputs` are files the run reads (the config file, init.from): an output must not
// replace one of them.
void check_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// Bytes free to an unprivileged writer on the file system that holds `path`'s directory
// (the most a run may use for its largest outputs, see run.cpp); none when unknown.
std::optional<std::uint64_t> free_bytes(const std::string& path);

// Removes every output's temporaries left by choc processes that were killed outright.
void remove_stale_temporaries(const std::vector<NamedPath>& outputs);

} // namespace choc
