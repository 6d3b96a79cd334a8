// H5MD trajectories: what is written reads back exactly (with the HDF5 C API), a file
// reopened for continuation keeps its first K frames and rows and appends after them, and
// files that do not fit are refused with an InputError naming the key and the file.
#include <doctest/doctest.h>

#include <choc/errors.hpp>
#include <choc/io/h5md.hpp>
#include <choc/io/xyz.hpp>

#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>

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
    {
        auto file = choc::H5mdFile::create(path, "traj.h5", box, particles, provenance, true);
        for (int k = 0; k < 3; ++k) {
            file.write_frame(box, particles, 0.5 * k, 10u * static_cast<unsigned>(k));
            file.write_observables(row(0.25 * k));
        }
        file.write_observables(row(0.75));
        CHECK(file.frames() == 3);
        CHECK(file.rows() == 4);
        file.flush();
        file.close("end");
    }
    const auto first = read(path, "/particles/all/position/value");
    CHECK(first.shape == std::vector<hsize_t>{3, particles.size(), D});
    for (std::size_t k = 0; k < 3; ++k)
        CHECK(slice(first.values, k, frame_size) == expected_positions(box, particles, 0.5 * k));

    // Keep two frames and two rows, append one of each.
    const auto later = make_particles(box, 2);
    {
        auto file = choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), 2, 2);
        CHECK(file.frames() == 2);
        CHECK(file.rows() == 2);
        file.write_frame(box, later, 1.0, 99);
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

    // Refusals: more frames or rows than the file holds, another N or dimension.
    auto refused = [&](auto&& call, const std::string& what) {
        try {
            call();
            FAIL("accepted: " << what);
        } catch (const choc::InputError& e) {
            const std::string message = e.what();
            CHECK_MESSAGE(message.find("output.trajectory.path") != std::string::npos, message);
            CHECK_MESSAGE(message.find("traj.h5") != std::string::npos, message);
            CHECK_MESSAGE(message.find(what) != std::string::npos, message);
        }
    };
    refused([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), 4, 0); },
            "fewer than the 4");
    refused([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), 1, 5); },
            "fewer than the 5");
    refused([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size() + 1, 1, 0); },
            "particles");
    refused([&] { choc::H5mdFile::reopen(path, "traj.h5", 5 - D, particles.size(), 1, 0); },
            "D trajectory");
    // The refusals left the file as it was.
    CHECK(read(path, "/particles/all/position/value").shape[0] == 3);

    // A kept frame damaged (a byte of its compressed chunk changed, as a run killed in the
    // middle of a write can leave it): refused, the file unchanged, no copy left beside it.
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
        const auto bytes = [&] {
            std::ifstream in(path, std::ios::binary);
            return std::string(std::istreambuf_iterator<char>(in), {});
        };
        std::string damaged = bytes();
        REQUIRE(address + size <= damaged.size());
        damaged[address + size / 2] ^= 0x55;
        std::ofstream(path, std::ios::binary | std::ios::trunc) << damaged;
        refused([&] { choc::H5mdFile::reopen(path, "traj.h5", D, particles.size(), 2, 2); },
                "the file is left as it was");
        CHECK(bytes() == damaged);
        int beside = 0;
        for (const auto& entry :
             std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
            beside += entry.path().filename().string().find(
                          std::filesystem::path(path).filename().string() + ".choc-") !=
                      std::string::npos;
        CHECK(beside == 0);
    }
    check_nothing_open();
    std::filesystem::remove(path);
}

} // namespace

TEST_CASE("H5MD: write, reopen keeping K frames, append (3D)") {
    check_write_reopen_append<3>();
}

TEST_CASE("H5MD: write, reopen keeping K frames, append (2D data is 2D)") {
    check_write_reopen_append<2>();
}

TEST_CASE("H5MD: reopen keeping 0 frames, and a file without observables gets them on demand") {
    const auto box = make_box<3>();
    const auto particles = make_particles(box, 3, 5);
    const std::string path = temp_path("empty.h5");
    {
        auto file = choc::H5mdFile::create(path, path, box, particles, {}, false);
        file.write_frame(box, particles, 0.0, 0);
        file.close("end");
    }
    {
        auto file = choc::H5mdFile::reopen(path, path, 3, particles.size(), 0, 0);
        CHECK(file.frames() == 0);
        file.write_observables(row(0.0));
        file.write_frame(box, particles, 2.0, 7);
        CHECK(file.frames() == 1);
        CHECK(file.rows() == 1);
        file.close("end");
    }
    CHECK(read(path, "/particles/all/position/time").values == std::vector<double>{2.0});
    CHECK(read(path, "/observables/msd/value").values == std::vector<double>{0.0});
    check_nothing_open();
    std::filesystem::remove(path);
}

TEST_CASE("H5MD: files that are not choc's H5MD, and unwritable places, are InputErrors") {
    const std::string text = temp_path("text.h5");
    {
        std::ofstream out(text);
        out << "not hdf5\n";
    }
    auto message = [](auto&& call) {
        try {
            call();
        } catch (const choc::InputError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    const auto not_hdf5 = message([&] { choc::H5mdFile::reopen(text, text, 3, 5, 0, 0); });
    CHECK(not_hdf5.find("output.trajectory.path") != std::string::npos);
    CHECK(not_hdf5.find("not an HDF5 file") != std::string::npos);
    std::filesystem::remove(text);

    const std::string missing = temp_path("missing.h5");
    CHECK(message([&] {
              choc::H5mdFile::reopen(missing, missing, 3, 5, 0, 0);
          }).find("output.trajectory.path") != std::string::npos);

    // An HDF5 file that is not H5MD.
    const std::string plain = temp_path("plain.h5");
    H5Fclose(H5Fcreate(plain.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(message([&] {
              choc::H5mdFile::reopen(plain, plain, 3, 5, 0, 0);
          }).find("no /h5md group") != std::string::npos);
    std::filesystem::remove(plain);

    const auto box = make_box<2>();
    const auto particles = make_particles(box, 4, 3);
    const std::string nowhere = temp_path("no_such_directory/t.h5");
    const auto create = message([&] {
        choc::H5mdFile::create(nowhere, "t.h5", box, particles, choc::Provenance{}, false);
    });
    CHECK(create.find("output.trajectory.path") != std::string::npos);
    CHECK(create.find("cannot create the file") != std::string::npos);
    check_nothing_open();
}
