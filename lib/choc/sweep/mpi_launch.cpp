// Whether an MPI launcher started this process, whether or not this build has MPI (a
// build without it says so rather than run the whole sweep once per rank).
#include "choc/sweep/mpi.hpp"

#include <cstdlib>

namespace choc {

bool launched_by_mpi() {
    // Open MPI's mpirun; PMIx (Open MPI 4+, srun --mpi=pmix); PMI-1/2 (MPICH, srun --mpi=pmi2).
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(name)) return true;
    return false;
}

} // namespace choc
