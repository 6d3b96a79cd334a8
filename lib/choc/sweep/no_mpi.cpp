// The sweep without MPI (no MPI library was found when choc was built): one process.
#include "choc/sweep/mpi.hpp"

#include <cstdlib>
#include <stdexcept>

namespace choc {

std::string mpi_description() {
    return {};
}

std::unique_ptr<SweepTransport> start_mpi(int&, char**&) {
    throw std::logic_error("this choc was built without MPI");
}

void abort_mpi(int status) {
    std::_Exit(status);
}

} // namespace choc
