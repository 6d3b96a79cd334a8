// Particles in structure-of-arrays form, split by how often they are touched.
//
// The hot record is what a prediction against a neighbour reads: with delayed states a
// particle is stored at its own time stamp t and advanced only when it is touched, so
// position(now) = x + v (now - t). In 3D the record is exactly one 64-byte cache line.
#pragma once

#include "choc/kernel/huge_pages.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace choc {

// The time stamp of a particle at rest (resting.hpp): it has no flight, only a position.
// Minus infinity is never a real stamp and survives the engine's origin moves (t - shift).
inline constexpr double rest_stamp = -std::numeric_limits<double>::infinity();

// The top bits of a particle's count: the glide it is on (resting.hpp), 0 when none. A
// glide is a flight along a support, pressed onto it by the field: it feels the field's
// part along the support only, one acceleration per slot of the engine's glide table
// (Field::glides). The count's other 26 bits count its velocity changes, wrapping round: a
// prediction is taken for fresh only if its partner changed a multiple of 2^26 (67
// million) times meanwhile, and the contact check (audit.hpp) would then stop the run.
inline constexpr int glide_shift = 26;
inline constexpr std::uint32_t glide_mask = ~std::uint32_t{0} << glide_shift;
inline constexpr std::uint32_t glide_slots = std::uint32_t{1} << (32 - glide_shift); // 0: none

template <int D>
struct alignas(D == 3 ? 64 : 16) ParticleState {
    Vec<D> x;       // position at time t
    Vec<D> v;       // velocity
    double t = 0.0; // the particle's own time stamp
    // Velocity changes so far (the low 26 bits, wrapping round) and the glide slot: a
    // prediction naming the particle is stale once either changes.
    std::uint32_t count = 0;
    std::uint32_t species = 0;

    // Always inlined: the prediction loop calls it once per neighbour, and GCC left it
    // out of line in the large scan loop (measured: +16 % instructions there).
    [[gnu::always_inline]] Vec<D> position_at(double now) const { return x + v * (now - t); }
    // At rest (resting.hpp): v is zero and x is where it lies, whatever the time. Only
    // under a field (the straight-line paths never meet one).
    bool resting() const { return t == rest_stamp; }
    // Gliding along a support (resting.hpp): its flight feels the field's part along the
    // support only (Field::position), the support takes the rest.
    bool gliding() const { return (count & glide_mask) != 0; }
    std::uint32_t glide_slot() const { return count >> glide_shift; }
    void set_glide(std::uint32_t slot) { count = (count & ~glide_mask) | (slot << glide_shift); }
    // One more velocity change (the glide slot kept).
    void bump() { count = (count & glide_mask) | ((count + 1) & ~glide_mask); }
};

static_assert(sizeof(ParticleState<3>) == 64, "3D hot record should be one cache line");
static_assert(sizeof(ParticleState<2>) == 48, "2D hot record should stay 48 bytes");

struct Species {
    std::string name;
    double radius = 0.5;
    double mass = 1.0;
};

// Per-species properties and the pair tables derived from them (small: stays in L1).
struct SpeciesTable {
    std::vector<Species> species;
    std::vector<double> sigma;  // contact distance r_a + r_b, indexed [a * n + b]
    std::vector<double> sigma2; // its square

    explicit SpeciesTable(std::vector<Species> s = {}) : species(std::move(s)) {
        const std::size_t n = species.size();
        sigma.resize(n * n);
        sigma2.resize(n * n);
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b) {
                sigma[a * n + b] = species[a].radius + species[b].radius;
                sigma2[a * n + b] = sigma[a * n + b] * sigma[a * n + b];
            }
    }
    std::size_t size() const { return species.size(); }
    double pair_sigma(std::uint32_t a, std::uint32_t b) const { return sigma[a * size() + b]; }
    double pair_sigma2(std::uint32_t a, std::uint32_t b) const { return sigma2[a * size() + b]; }
    double largest_diameter() const {
        double d = 0.0;
        for (const auto& s : species) d = std::max(d, 2.0 * s.radius);
        return d;
    }
};

template <int D>
struct Particles {
    SpeciesTable table;
    FastVector<ParticleState<D>> state; // hot: read by every prediction

    std::size_t size() const { return state.size(); }
    double radius(std::uint32_t i) const { return table.species[state[i].species].radius; }
    double mass(std::uint32_t i) const { return table.species[state[i].species].mass; }

    void add(const Vec<D>& x, const Vec<D>& v, std::uint32_t species) {
        state.push_back(ParticleState<D>{x, v, 0.0, 0, species});
    }
};

} // namespace choc
