#include "choc/init/velocities.hpp"

#include "choc/errors.hpp"

#include <cmath>
#include <numbers>
#include <spdlog/spdlog.h>

namespace choc {

namespace {

// Uniform direction on the unit circle/sphere: a Gaussian vector is isotropic.
template <int D>
Vec<D> random_direction(std::mt19937_64& rng) {
    std::normal_distribution<double> gauss(0.0, 1.0);
    for (;;) {
        Vec<D> e;
        for (int a = 0; a < D; ++a) e[a] = gauss(rng);
        const double r = norm(e);
        if (r > 1e-8) return e * (1.0 / r);
    }
}

template <int D>
void maxwell(Particles<D>& p, const std::vector<std::uint32_t>& members, double kT,
             std::mt19937_64& rng) {
    const double m = p.table.species[p.state[members[0]].species].mass;
    std::normal_distribution<double> gauss(0.0, std::sqrt(kT / m));
    Vec<D> mean;
    for (const auto i : members) {
        for (int a = 0; a < D; ++a) p.state[i].v[a] = gauss(rng);
        mean += p.state[i].v;
    }
    mean *= 1.0 / static_cast<double>(members.size());
    double sum_v2 = 0.0;
    for (const auto i : members) {
        p.state[i].v -= mean;
        sum_v2 += norm2(p.state[i].v);
    }
    // KE_s = m sum v^2 / 2 must equal D N_s kT / 2: scale by sqrt(D N_s kT / (m sum v^2)).
    const double scale = std::sqrt(D * static_cast<double>(members.size()) * kT / (m * sum_v2));
    for (const auto i : members) p.state[i].v *= scale;
}

template <int D>
void fixed_speed(Particles<D>& p, const std::vector<std::uint32_t>& members, double kT,
                 std::mt19937_64& rng) {
    const double m = p.table.species[p.state[members[0]].species].mass;
    // m u^2 / 2 = D kT / 2 per particle
    const double u = std::sqrt(D * kT / m);
    std::size_t k = 0;
    if (members.size() % 2 == 1) {
        // Three velocities at 120 degrees: u (cos phi e1 + sin phi e2) for phi = 0, 2pi/3,
        // with e1, e2 orthonormal in a random plane; the third is minus the sum of the
        // first two, so the triple's momentum is zero to the last bit.
        const Vec<D> e1 = random_direction<D>(rng);
        Vec<D> e2;
        if constexpr (D == 2)
            e2 = Vec<2>{{-e1[1], e1[0]}};
        else
            for (;;) {
                e2 = random_direction<D>(rng);
                e2 -= e1 * dot(e1, e2);
                if (norm(e2) > 1e-3) break;
            }
        e2 *= 1.0 / norm(e2);
        const double c = std::cos(2 * std::numbers::pi / 3), s = std::sin(2 * std::numbers::pi / 3);
        const Vec<D> v0 = u * e1, v1 = u * (c * e1 + s * e2);
        p.state[members[0]].v = v0;
        p.state[members[1]].v = v1;
        p.state[members[2]].v = -(v0 + v1);
        k = 3;
    }
    for (; k + 1 < members.size(); k += 2) {
        const Vec<D> v = u * random_direction<D>(rng);
        p.state[members[k]].v = v;
        p.state[members[k + 1]].v = -v;
    }
}

} // namespace

template <int D>
void assign_velocities(Particles<D>& particles, const std::string& kind,
                       const std::vector<double>& temperature, std::mt19937_64& rng) {
    if (kind != "maxwell" && kind != "fixed_speed")
        throw InputError("init.velocities: \"" + kind +
                         "\" is not a velocity distribution (use \"maxwell\" or \"fixed_speed\")");
    std::vector<std::vector<std::uint32_t>> members(particles.table.size());
    for (std::uint32_t i = 0; i < particles.size(); ++i) {
        members[particles.state[i].species].push_back(i);
        particles.state[i].v = Vec<D>{};
    }
    for (std::size_t s = 0; s < members.size(); ++s) {
        const double kT = temperature.at(s);
        if (members[s].empty() || kT == 0.0) continue;
        if (members[s].size() == 1) {
            spdlog::warn("species \"{}\" has a single particle: it starts at rest (temperature "
                         "0 instead of {}) so that the total momentum stays zero",
                         particles.table.species[s].name, kT);
            continue;
        }
        if (kind == "maxwell")
            maxwell(particles, members[s], kT, rng);
        else
            fixed_speed(particles, members[s], kT, rng);
    }
}

template void assign_velocities<2>(Particles<2>&, const std::string&, const std::vector<double>&,
                                   std::mt19937_64&);
template void assign_velocities<3>(Particles<3>&, const std::string&, const std::vector<double>&,
                                   std::mt19937_64&);

} // namespace choc
