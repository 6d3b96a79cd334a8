// Typed errors thrown by the library. The app turns an InputError into one
// `choc: error:` line and exit status 2; anything else is an internal failure (exit 1).
#pragma once

#include <stdexcept>
#include <string>

namespace choc {

// Bad input: a config key, a file or a value the user can fix. `what()` is the whole
// message and always names the key or the file.
class InputError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

} // namespace choc
