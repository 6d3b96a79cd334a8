// H5MD trajectories: what is written reads back exactly (with the HDF5 C API), a file
// written in place and reopened for continuation at a mark has the mark's frames and rows
// and appends after them, also when the writer was killed after the mark (its undo journal
// gives back the bytes HDF5 rewrote), and files that do not fit are refused with an
// InputError naming the key and the file.
#include <doctest/doctest.h>

#include <choc/errors.hpp>
#include <choc/io/h5md.hpp>
#include <choc/io/h5md_journal.hpp>
#include <choc/io/xyz.hpp>

#include <hdf5.h>
#include <zlib.h>

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace test_h5md {

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("choc_test_h5md_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

template <int D>
choc::Box<D> make_box() {
    choc::Box<D> box;
    for (int a = 0; a < D; ++a) {
        box.length[a] = 7.0 + a / 3.0;
        box.periodic[a] = a != 1; // axis 1 walled
    }
    return box;
}

// A mixture with awkward doubles, stored at time 0, in the box.
template <int D>
choc::Particles<D> make_particles(const choc::Box<D>& box, std::uint64_t seed,
                                  std::uint32_t n = 37) {
    choc::Particles<D> p;
    p.table = choc::SpeciesTable({{"A", 0.5, 1.0}, {"B", 0.1 + 0.2, 1.0 / 3.0}});
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::normal_distribution<double> g(0.0, 1.0);
    for (std::uint32_t i = 0; i < n; ++i) {
        choc::Vec<D> x, v;
        for (int a = 0; a < D; ++a) {
            x[a] = box.length[a] * u(rng);
            v[a] = g(rng);
        }
        p.add(x, v, i % 3 == 0 ? 1 : 0);
    }
    return p;
}

// The frame as write_frame stores it: positions advanced to t and folded into the box.
template <int D>
std::vector<double> expected_positions(const choc::Box<D>& box, const choc::Particles<D>& p,
                                       double t) {
    std::vector<double> out;
    for (const auto& s : p.state) {
        const auto x = choc::frame_position(box, s, t);
        for (int a = 0; a < D; ++a) out.push_back(x[a]);
    }
    return out;
}

// Image counts that differ by particle, axis and `k` (a frame's number), both signs.
template <int D>
choc::ImageCountList<D> images(const choc::Particles<D>& p, int k = 0) {
    choc::ImageCountList<D> out(p.size());
    for (std::size_t i = 0; i < p.size(); ++i)
        for (int a = 0; a < D; ++a)
            out[i][static_cast<std::size_t>(a)] = static_cast<std::int64_t>(i % 5) - 2 + 3 * a + k;
    return out;
}
template <int D>
std::vector<long long> flat(const choc::ImageCountList<D>& counts) {
    std::vector<long long> out;
    for (const auto& n : counts)
        for (int a = 0; a < D; ++a) out.push_back(n[static_cast<std::size_t>(a)]);
    return out;
}

template <int D>
std::vector<double> velocities(const choc::Particles<D>& p) {
    std::vector<double> out;
    for (const auto& s : p.state)
        for (int a = 0; a < D; ++a) out.push_back(s.v[a]);
    return out;
}

// A whole dataset as doubles (or 64-bit integers), with its shape.
struct Data {
    std::vector<hsize_t> shape;
    std::vector<double> values;
    std::vector<long long> integers;
};

Data read(const std::string& file, const std::string& dataset) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
    REQUIRE(d >= 0);
    const hid_t space = H5Dget_space(d);
    Data out;
    out.shape.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, out.shape.data(), nullptr);
    const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    const hid_t type = H5Dget_type(d);
    if (H5Tget_class(type) == H5T_INTEGER) {
        out.integers.resize(n);
        if (n)
            CHECK(H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                          out.integers.data()) >= 0);
    } else {
        out.values.resize(n);
        if (n)
            CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()) >=
                  0);
    }
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    return out;
}

// HDF5 identifiers still open anywhere in the process (files, groups, datasets, types,
// attributes): the writer closes all of its own, on error paths too.
void check_nothing_open() {
    CHECK(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) == 0);
}

std::vector<double> slice(const std::vector<double>& all, std::size_t frame, std::size_t size) {
    return {all.begin() + static_cast<std::ptrdiff_t>(frame * size),
            all.begin() + static_cast<std::ptrdiff_t>((frame + 1) * size)};
}

choc::TimeSeriesRow row(double t) {
    choc::TimeSeriesRow r;
    r.time = t;
    r.collisions_per_particle = 2 * t;
    r.temperature = 1.0 + t;
    r.species_temperature = {0.5 + t, 1.5 + t};
    r.Z = 3.0;
    r.velocities.kurtosis = 5.0 / 3.0;
    r.velocities.ks_distance = 0.01;
    r.velocities.ks_pvalue = 0.5;
    r.velocities.H = -1.0;
    r.msd = t * t;
    return r;
}

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::uint32_t crc_of(const std::string& bytes) {
    return static_cast<std::uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// The InputError a call throws (its message must name the key and `shown`), or "(accepted)".
template <class Call>
std::string refusal(Call&& call, const std::string& shown) {
    try {
        call();
    } catch (const choc::InputError& e) {
        const std::string message = e.what();
        CHECK_MESSAGE(message.find("output.trajectory.path") != std::string::npos, message);
        CHECK_MESSAGE(message.find(shown) != std::string::npos, message);
        return message;
    }
    return "(accepted)";
}

int temporaries_beside(const std::string& path) {
    int beside = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
        const std::string name = entry.path().filename().string();
        beside += name.find(std::filesystem::path(path).filename().string() + ".choc-") !=
                      std::string::npos &&
                  name.ends_with(".tmp");
    }
    return beside;
}

void remove_with_journal(const std::string& path) {
    std::filesystem::remove(path);
    std::filesystem::remove(choc::journal_name(path));
}

template <int D>
void check_write_reopen_append() {
    const auto box = make_box<D>();
    const auto particles = make_particles(box, 1);
    const std::size_t frame_size = particles.size() * D;
    const std::string path = temp_path("append" + std::to_string(D) + ".h5");
    choc::Provenance provenance;
    provenance.config = "dimension = " + std::to_string(D);
    provenance.seed = 42;
    provenance.command_line = {"choc", "run", "x.toml"};
    // Two frames and two rows, marked; then one more frame, two more rows and the close,
    // all after the mark (as a run's end after its last checkpoint).
    choc::OutputMark mark;
    {
        auto file = choc::H5mdFile::create(path, "traj.h5", box, particles, provenance, true, true);
        for (int k = 0; k < 2; ++k) {
            file.write_frame(box, particles, 0.5 * k, 10u * static_cast<unsigned>(k),
                             images(particles, k));
            file.write_observables(row(0.25 * k));
        }
        mark = file.mark();
        CHECK(mark.frames == 2);
        CHECK(mark.rows == 2);
        CHECK(mark.bytes == std::filesystem::file_size(path));
        CHECK(mark.crc == crc_of(file_bytes(path)));
        file.write_frame(box, particles, 1.0, 20, images(particles, 2));
        file.write_observables(row(0.5));
        file.write_observables(row(0.75));
        CHECK(file.frames() == 3);
        CHECK(file.rows() == 4);
        file.close("end");
    }
    const auto first = read(path, "/particles/all/position/value");
    CHECK(first.shape == std::vector<hsize_t>{3, particles.size(), D});
    for (std::size_t k = 0; k < 3; ++k)
        CHECK(slice(first.values, k, frame_size) == expected_positions(box, particles, 0.5 * k));

    // Refused before anything changes: a mark the file (with its journal) does not give back.
    const std::string closed = file_bytes(path), journal = file_bytes(choc::journal_name(path));
    auto changed_mark = mark;
    changed_mark.crc ^= 1;
    CHECK(
        refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), changed_mark); },
                "traj.h5")
            .find("CRC-32") != std::string::npos);
    auto longer_mark = mark;
    longer_mark.bytes = closed.size() + 1;
    CHECK(
        refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), longer_mark); },
                "traj.h5")
            .find("fewer than the") != std::string::npos);
    CHECK(refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), {}); },
                  "traj.h5")
              .find("records no length") != std::string::npos);
    CHECK(file_bytes(path) == closed);
    CHECK(file_bytes(choc::journal_name(path)) == journal);
    CHECK(temporaries_beside(path) == 0);

    // Continued at the mark: two frames and rows, then one of each appended.
    const auto later = make_particles(box, 2);
    {
        auto file = choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), mark);
        CHECK(file.frames() == 2);
        CHECK(file.rows() == 2);
        file.write_frame(box, later, 1.0, 99, images(later, 7));
        file.write_observables(row(0.5));
        CHECK(file.frames() == 3);
        CHECK(file.rows() == 3);
        file.close("end");
    }
    const auto position = read(path, "/particles/all/position/value");
    const auto velocity = read(path, "/particles/all/velocity/value");
    CHECK(position.shape == std::vector<hsize_t>{3, particles.size(), D});
    CHECK(slice(position.values, 0, frame_size) == expected_positions(box, particles, 0.0));
    CHECK(slice(position.values, 1, frame_size) == expected_positions(box, particles, 0.5));
    CHECK(slice(position.values, 2, frame_size) == expected_positions(box, later, 1.0));
    CHECK(slice(velocity.values, 1, frame_size) == velocities(particles));
    CHECK(slice(velocity.values, 2, frame_size) == velocities(later));
    const auto image = read(path, "/particles/all/image/value");
    CHECK(image.shape == std::vector<hsize_t>{3, particles.size(), D});
    auto frame_images = [&](std::size_t k) {
        return std::vector<long long>(image.integers.begin() + static_cast<long>(k * frame_size),
                                      image.integers.begin() +
                                          static_cast<long>((k + 1) * frame_size));
    };
    CHECK(frame_images(0) == flat<D>(images(particles, 0)));
    CHECK(frame_images(1) == flat<D>(images(particles, 1)));
    CHECK(frame_images(2) == flat<D>(images(later, 7)));
    CHECK(read(path, "/particles/all/position/step").integers == std::vector<long long>{0, 1, 2});
    CHECK(read(path, "/particles/all/velocity/time").values == std::vector<double>{0.0, 0.5, 1.0});
    CHECK(read(path, "/observables/collisions/value").integers ==
          std::vector<long long>{0, 10, 99});
    const auto edges = read(path, "/particles/all/box/edges/value");
    CHECK(edges.shape == std::vector<hsize_t>{3, D, D}); // box vectors, a diagonal matrix
    CHECK(edges.values[2 * D * D + D * D - 1] == box.length[D - 1]);
    CHECK(edges.values[2 * D * D + 1] == 0.0);
    CHECK(read(path, "/observables/temperature/value").values ==
          std::vector<double>{1.0, 1.25, 1.5});
    CHECK(read(path, "/observables/temperature/step").integers == std::vector<long long>{0, 1, 2});
    const auto species_t = read(path, "/observables/species_temperature/value");
    CHECK(species_t.shape == std::vector<hsize_t>{3, 2});
    CHECK(species_t.values[5] == 2.0);
    CHECK(read(path, "/particles/all/species").integers[0] == 1);
    CHECK(read(path, "/particles/all/mass").values[0] == 1.0 / 3.0);
    CHECK(read(path, "/particles/all/radius").values[1] == 0.5);

    // The same mark again (the continuation killed, continued once more): its content is
    // given back once more. A checkpoint that does not fit the file (more frames or rows
    // than it held, another N or dimension) is refused by the checks of its layout.
    auto more_frames = mark, more_rows = mark;
    more_frames.frames = 4;
    more_rows.rows = 5;
    CHECK(
        refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), more_frames); },
                "traj.h5")
            .find("fewer than the 4") != std::string::npos);
    CHECK(refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), more_rows); },
                  "traj.h5")
              .find("fewer than the 5") != std::string::npos);
    CHECK(refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size() + 1, mark); },
                  "traj.h5")
              .find("particles") != std::string::npos);
    CHECK(refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", 5 - D, particles.size(), mark); },
                  "traj.h5")
              .find("D trajectory") != std::string::npos);
    CHECK(read(path, "/particles/all/position/value").shape[0] == 2);

    // A byte before the mark changed (in a kept frame's compressed chunk): refused, the file
    // unchanged, no temporary left beside it.
    {
        haddr_t address = 0;
        hsize_t size = 0;
        {
            const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
            const hid_t set = H5Dopen2(file, "/particles/all/position/value", H5P_DEFAULT);
            const hid_t space = H5Dget_space(set);
            hsize_t offset[3] = {};
            unsigned mask = 0;
            const herr_t found = H5Dget_chunk_info(set, space, 1, offset, &mask, &address, &size);
            H5Sclose(space);
            H5Dclose(set);
            H5Fclose(file);
            REQUIRE(found >= 0);
            CHECK(offset[0] == 1); // the second frame's chunk
        }
        std::string damaged = file_bytes(path);
        REQUIRE(address + size <= damaged.size());
        REQUIRE(address + size <= mark.bytes);
        damaged[address + size / 2] ^= 0x55;
        std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
        CHECK(refusal([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), mark); },
                      "traj.h5")
                  .find("the file is left as it was") != std::string::npos);
        CHECK(file_bytes(path) == damaged);
        CHECK(temporaries_beside(path) == 0);
    }
    check_nothing_open();
    remove_with_journal(path);
}

// A writer killed (SIGKILL, in a child process) in the middle of writing after its marks:
// continued from the last mark, and from the one before (a run killed after a mark but
// before its checkpoint was written), the file is that of the mark, and goes on.
void check_killed_writer(bool from_the_mark_before) {
    const auto box = make_box<3>();
    const auto particles = make_particles(box, 5, 300);
    const std::string path = temp_path(from_the_mark_before ? "killed_before.h5" : "killed.h5");
    const std::string marks = path + ".marks";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // Many frames per chunk of the small datasets, and frames after each mark: HDF5
        // rewrites the partly filled chunks and metadata written before the mark.
        try {
            auto file = choc::H5mdFile::create(path, "traj.h5", box, particles, {}, true, true);
            std::ofstream out(marks, std::ios::binary);
            for (int k = 0; k < 60; ++k) {
                file.write_frame(box, particles, 0.1 * k, static_cast<unsigned>(k),
                                 images(particles));
                file.write_observables(row(0.1 * k));
                if (k == 29 || k == 44) {
                    const choc::OutputMark m = file.mark();
                    out.write(reinterpret_cast<const char*>(&m), sizeof m);
                    out.flush();
                }
            }
            file.flush(); // HDF5's writes after the marks on disk, as if it evicted them
            for (int k = 60; k < 70; ++k)
                file.write_frame(box, particles, 0.1 * k, 0, images(particles));
        } catch (...) {
            std::_Exit(3);
        }
        std::raise(SIGKILL);
        std::_Exit(4);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    choc::OutputMark m[2];
    {
        std::ifstream in(marks, std::ios::binary);
        in.read(reinterpret_cast<char*>(m), sizeof m);
        REQUIRE(in);
    }
    const choc::OutputMark& mark = m[from_the_mark_before ? 0 : 1];
    const std::uint64_t frames = from_the_mark_before ? 30 : 45;
    CHECK(mark.frames == frames);
    // HDF5 rewrote bytes before the mark after it: the journal has something to give back
    CHECK(crc_of(file_bytes(path).substr(0, mark.bytes)) != mark.crc);
    {
        auto file = choc::H5mdFile::reopen(path, "traj.h5", 3, particles.size(), mark);
        CHECK(file.frames() == frames);
        CHECK(file.rows() == frames);
        file.write_frame(box, particles, 100.0, 1000, images(particles));
        file.close("end");
    }
    CHECK(read(path, "/particles/all/position/value").shape[0] == frames + 1);
    const auto collisions = read(path, "/observables/collisions/value").integers;
    REQUIRE(collisions.size() == frames + 1);
    for (std::uint64_t k = 0; k < frames; ++k) CHECK(collisions[k] == static_cast<long long>(k));
    CHECK(collisions[frames] == 1000);
    const auto time = read(path, "/observables/temperature/time").values;
    REQUIRE(time.size() == frames);
    CHECK(time.back() == 0.1 * static_cast<double>(frames - 1));
    const auto position = read(path, "/particles/all/position/value");
    CHECK(slice(position.values, frames - 1, particles.size() * 3) ==
          expected_positions(box, particles, 0.1 * static_cast<double>(frames - 1)));
    check_nothing_open();
    remove_with_journal(path);
    std::filesystem::remove(marks);
}

} // namespace

TEST_CASE("H5MD: written in place, marked, reopened at the mark, appended (3D)") {
    check_write_reopen_append<3>();
}

TEST_CASE("H5MD: written in place, marked, reopened at the mark, appended (2D data is 2D)") {
    check_write_reopen_append<2>();
}

TEST_CASE("H5MD: a writer killed after its mark continues at the mark") {
    check_killed_writer(false);
}

TEST_CASE(
    "H5MD: a writer killed after a mark continues at the mark before (checkpoint unwritten)") {
    check_killed_writer(true);
}

TEST_CASE(
    "H5MD: reopen at a mark of 0 frames, and a file without observables gets them on demand") {
    const auto box = make_box<3>();
    const auto particles = make_particles(box, 3, 5);
    const std::string path = temp_path("empty.h5");
    choc::OutputMark mark;
    {
        auto file = choc::H5mdFile::create(path, path, box, particles, {}, false, true);
        mark = file.mark();
        file.write_frame(box, particles, 0.0, 0, images(particles));
        file.close("end");
    }
    CHECK(mark.frames == 0);
    {
        auto file = choc::H5mdFile::reopen(path, path, 3, particles.size(), mark);
        CHECK(file.frames() == 0);
        file.write_observables(row(0.0));
        file.write_frame(box, particles, 2.0, 7, images(particles));
        CHECK(file.frames() == 1);
        CHECK(file.rows() == 1);
        file.close("end");
    }
    CHECK(read(path, "/particles/all/position/time").values == std::vector<double>{2.0});
    CHECK(read(path, "/observables/msd/value").values == std::vector<double>{0.0});
    check_nothing_open();
    remove_with_journal(path);
}

TEST_CASE("H5MD: files that are not choc's H5MD, and unwritable places, are InputErrors") {
    // (a mark of each file as it is, so that only the file's kind is refused)
    auto mark_of = [](const std::string& path) {
        choc::OutputMark m;
        const std::string bytes = file_bytes(path);
        m.bytes = bytes.size();
        m.crc = crc_of(bytes);
        return m;
    };
    const std::string text = temp_path("text.h5");
    {
        std::ofstream out(text);
        out << "not hdf5\n";
    }
    CHECK(refusal([&] { choc::H5mdFile::reopen(text, text, 3, 5, mark_of(text)); }, text)
              .find("not an HDF5 file") != std::string::npos);
    remove_with_journal(text);

    const std::string missing = temp_path("missing.h5");
    CHECK(refusal(
              [&] {
                  choc::H5mdFile::reopen(missing, missing, 3, 5, {7, 0, 0, 0});
              },
              missing)
              .find("cannot be found") != std::string::npos);

    // An HDF5 file that is not H5MD.
    const std::string plain = temp_path("plain.h5");
    H5Fclose(H5Fcreate(plain.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(refusal([&] { choc::H5mdFile::reopen(plain, plain, 3, 5, mark_of(plain)); }, plain)
              .find("no /h5md group") != std::string::npos);
    remove_with_journal(plain);

    const auto box = make_box<2>();
    const auto particles = make_particles(box, 4, 3);
    const std::string nowhere = temp_path("no_such_directory/t.h5");
    for (const bool journaled : {false, true})
        CHECK(refusal(
                  [&] {
                      choc::H5mdFile::create(nowhere, "t.h5", box, particles, choc::Provenance{},
                                             false, journaled);
                  },
                  "t.h5")
                  .find("cannot") != std::string::npos);
    check_nothing_open();
}

TEST_CASE("H5MD journal: the CRC-32 after a change, from the CRC-32 before") {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        const std::size_t length = 1 + rng() % 5000;
        std::string message(length, '\0');
        for (auto& c : message) c = static_cast<char>(rng());
        const std::size_t offset = rng() % length, size = 1 + rng() % (length - offset);
        std::string changed = message;
        for (std::size_t i = offset; i < offset + size; ++i)
            changed[i] = trial % 5 == 0 ? message[i] : static_cast<char>(rng());
        const auto* before = reinterpret_cast<const unsigned char*>(message.data() + offset);
        const auto* after = reinterpret_cast<const unsigned char*>(changed.data() + offset);
        CHECK(choc::crc32_after_change(crc_of(message), length, offset, before, after, size) ==
              crc_of(changed));
    }
}

TEST_CASE("H5MD journal: a torn last record is ignored, a missing journal refused") {
    const std::string path = temp_path("journaled.bin");
    const std::string original(10000, 'a');
    std::ofstream(path, std::ios::binary) << original;
    const choc::H5mdJournal::Mark mark{original.size(), crc_of(original)};
    {
        choc::H5mdJournal journal(path, "journaled.bin", "output.trajectory.path", mark);
        const int fd = ::open(path.c_str(), O_RDWR);
        REQUIRE(fd >= 0);
        for (const std::uint64_t at : {100u, 120u, 9990u}) {
            REQUIRE(journal.before_write(fd, at, 50)); // 9990: part of it past the mark
            const std::string bytes(50, 'b');
            REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(at)) == 50);
        }
        ::close(fd);
    }
    // the last record cut short: its write had not begun, so the file is as before it
    const std::string journal = file_bytes(choc::journal_name(path));
    {
        std::ofstream out(choc::journal_name(path), std::ios::binary | std::ios::trunc);
        out << journal.substr(0, journal.size() - 3);
        std::string file = file_bytes(path);
        file.replace(9990, 10, original.substr(9990, 10));
        std::ofstream(path, std::ios::binary | std::ios::trunc) << file;
    }
    choc::restore_h5md(path, "journaled.bin", "output.trajectory.path", mark);
    CHECK(file_bytes(path) == original);
    // changed again, and no journal: refused, unchanged
    std::string changed = original;
    changed[5] = 'c';
    std::ofstream(path, std::ios::binary | std::ios::trunc) << changed;
    std::filesystem::remove(choc::journal_name(path));
    const std::string message =
        refusal([&] { choc::restore_h5md(path, "journaled.bin", "output.trajectory.path", mark); },
                "journaled.bin");
    CHECK(message.find("no journal") != std::string::npos);
    CHECK(file_bytes(path) == changed);
    std::filesystem::remove(path);
}

} // namespace test_h5md
