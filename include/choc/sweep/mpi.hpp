// MPI for `choc sweep` under mpirun or srun: built when meson finds an MPI library
// (Debian's libopenmpi-dev), otherwise these say so and start nothing.
#pragma once

#include "choc/sweep/sweep.hpp"

#include <memory>
#include <string>

namespace choc {

// "Open MPI 4.1.4", or empty when this build has no MPI.
std::string mpi_description();

// Whether an MPI launcher (mpirun, mpiexec, srun with PMI or PMIx) started this process:
// its environment names a rank.
bool launched_by_mpi();

// Initialises MPI (only the main thread calls it) and returns the transport among the
// ranks of MPI_COMM_WORLD; MPI is finalised when it is destroyed. Only when
// mpi_description() is not empty.
std::unique_ptr<SweepTransport> start_mpi(int& argc, char**& argv);

// Ends every rank at once after an internal failure (another rank might otherwise wait
// for its reports for ever).
[[noreturn]] void abort_mpi(int status);

} // namespace choc
