// A fingerprint of a state for bit-identity checks: FNV-1a over the bit patterns of every
// position and velocity, in the order given (two states hash alike only if every double
// is the same to the bit, barring a 2^-64 accident).
#pragma once

#include <choc/kernel/particles.hpp>

#include <bit>
#include <cstdint>

template <int D>
std::uint64_t state_hash(const choc::Particles<D>& p) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    auto mix = [&h](double value) {
        const auto bits = std::bit_cast<std::uint64_t>(value);
        for (int b = 0; b < 64; b += 8) {
            h ^= (bits >> b) & 0xffu;
            h *= 0x100000001b3ull;
        }
    };
    for (const auto& s : p.state)
        for (int a = 0; a < D; ++a) mix(s.x[a]), mix(s.v[a]);
    return h;
}
