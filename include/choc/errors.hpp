// Typed errors thrown by the library. The app turns an InputError into one
// `choc: error:` line and exit status 2, an InelasticCollapse into one such line and exit
// status 3, an Interrupted into one line and exit status 130; anything else is an internal failure
// (exit 1).
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

// A physical outcome, not bad input: an inelastic collapse (a Zeno sequence,
// run/collapse_watch.hpp) stopped the run. The outputs of the part run so far are written
// before it reaches the app (the summary says "collapsed": true). `what()` names the
// restitution or TC key to change and the time of the collapse.
class InelasticCollapse : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A signal (SIGINT, SIGTERM) stopped a long stage of building the start (reading a mesh,
// listing its triangles by cell: run/interrupt.hpp, stop_if_interrupted) before anything was
// written: the app exits with status 130 and writes nothing. `what()` names the stage.
class Interrupted : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A run that broke one of the engine's runtime invariants (engine_audit.hpp): its results
// cannot be trusted. `what()` names the invariant, the time and the particles.
class InvariantViolation : public std::runtime_error {
  public:
    InvariantViolation(std::string invariant, const std::string& message)
        : std::runtime_error(message), invariant_(std::move(invariant)) {}
    // A short name: "event order", "contact distance", "energy", "momentum", "overlap".
    const std::string& invariant() const { return invariant_; }

  private:
    std::string invariant_;
};

} // namespace choc
