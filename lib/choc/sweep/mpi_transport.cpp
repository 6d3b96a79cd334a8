// The sweep's MPI transport (built when MPI is found): reports are JSON strings sent to
// rank 0 with MPI_Send; rank 0 polls for them with MPI_Iprobe between looking at its own
// workers. Messages from one rank arrive in the order sent (MPI's non-overtaking rule),
// so a rank's "done" comes after all its results.
#include "choc/sweep/mpi.hpp"

// Only MPI's C interface: the deprecated C++ bindings' headers do not compile warning-free.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <fmt/format.h>

#include <cstdlib>

namespace choc {
namespace {

constexpr int report_tag = 17;

class MpiTransport : public SweepTransport {
  public:
    MpiTransport(int& argc, char**& argv) {
        int provided = 0;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
    }
    ~MpiTransport() override { MPI_Finalize(); }
    MpiTransport(const MpiTransport&) = delete;
    MpiTransport& operator=(const MpiTransport&) = delete;

    int rank() const override { return rank_; }
    int ranks() const override { return ranks_; }

    int first_failing(bool failed) override {
        int mine = failed ? rank_ : ranks_;
        int first = ranks_;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        return first == ranks_ ? -1 : first;
    }

    void send(const std::string& message) override {
        MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, report_tag,
                 MPI_COMM_WORLD);
    }

    std::vector<std::string> receive() override {
        std::vector<std::string> messages;
        for (;;) {
            int arrived = 0;
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, report_tag, MPI_COMM_WORLD, &arrived, &status);
            if (!arrived) return messages;
            int size = 0;
            MPI_Get_count(&status, MPI_CHAR, &size);
            std::string message(static_cast<std::size_t>(size), '\0');
            MPI_Recv(message.data(), size, MPI_CHAR, status.MPI_SOURCE, report_tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            messages.push_back(std::move(message));
        }
    }

  private:
    int rank_ = 0, ranks_ = 1;
};

} // namespace

std::string mpi_description() {
#ifdef OMPI_MAJOR_VERSION
    return fmt::format("Open MPI {}.{}.{}", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                       OMPI_RELEASE_VERSION);
#else
    return fmt::format("MPI {}.{}", MPI_VERSION, MPI_SUBVERSION);
#endif
}

std::unique_ptr<SweepTransport> start_mpi(int& argc, char**& argv) {
    return std::make_unique<MpiTransport>(argc, argv);
}

void abort_mpi(int status) {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);
}

} // namespace choc
