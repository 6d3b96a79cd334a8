// What every kind of obstacle (engine/obstacles.hpp) is told about the particle whose
// first contact with it is predicted, and the candidate it improves: the engine's part of
// the contract between the event loop and the obstacles.
#pragma once

#include "choc/kernel/particles.hpp"
#include "choc/kernel/vec.hpp"

#include <array>
#include <cstdint>

namespace choc {

// Particle i's flight as the obstacles see it. A centre stays in its cell until its
// crossing, so an obstacle out of reach of the cell is skipped, and curved flights are
// searched no further than the crossing, which looks again (Engine::cross).
template <int D, class M>
struct ObstacleFlight {
    const ParticleState<D>& q; // the flight from now (position and velocity now, stamp 0)
    const M& motion;           // the motion of that flight (a glide's, or the field's)
    double a;                  // the particle's radius
    std::uint32_t cell;        // its cell in the grid of level 0
    double now;                // the local clock
    double crossing;           // its next cell crossing (local time)
    // The obstacle numbers (obstacle.hpp) of the faces it glides on, else none: passed by,
    // its flight being along them to round-off (the rest model's glides).
    std::array<std::uint32_t, 2> support;
};

// Particle i's earliest obstacle contact so far: its local time and obstacle number
// (obstacle.hpp). A kind replaces it with an earlier contact of its own.
struct ObstacleCandidate {
    double& time;
    std::uint32_t& number;
    void offer(double t, std::uint32_t w) {
        if (t < time) time = t, number = w;
    }
};

} // namespace choc
