// `choc contact`: the command line around choc::study_contact (docs/REFERENCE.md,
// "choc contact").
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace choc {

struct ContactArguments {
    std::string contact_path;
    bool json = false;
    std::optional<std::string> plot_path;
};

// The help footer of `choc contact --help`: the contact file's keys in brief.
extern const char* const contact_footer;

// Reads the file, checks the plot path before any work, studies, draws, and prints only
// once everything has succeeded. Returns the exit status (0, 2 bad input, 1 internal).
// `release_log` is called once the input is checked (held-back log lines may go out).
int contact_command(const ContactArguments& args, const std::function<void()>& release_log);

} // namespace choc
