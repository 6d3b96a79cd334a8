// What a run asks of the engine: restitution, the simultaneous step's window and contact
// gap, the TC model, how often to maintain. Plain values with their defaults; the program
// fills them from a config (choc/run/settings_from_config.hpp).
#pragma once

#include "choc/kernel/tolerances.hpp"

#include <cstdint>
#include <vector>

namespace choc {

struct EngineSettings {
    double restitution = 1.0; // particle–particle normal restitution e
    // Events no more than `epsilon` apart in time are resolved together as one group
    // (docs/ARCHITECTURE.md, "Simultaneous collisions"). 0: classic binary EDMD, one pair
    // at a time.
    double epsilon = 0.0;
    // With epsilon > 0, a pair closer than (1 + contact_gap) times its contact distance
    // (a wall: its radius) that is not separating joins the group as a touching contact.
    double contact_gap = default_contact_gap;
    // The TC model (Luding & McNamara): a collision of a particle that collided less than
    // `tc` ago is elastic. 0: off. `tc_from_start` false: armed, switched on by enable_tc.
    double tc = 0.0;
    bool tc_from_start = true;
    // The rest model under gravity (resting.hpp): a particle slower than this after a
    // collision, held by its supports, is put to rest; an impact at least this fast wakes
    // it. A speed; 0: off (pure hard-sphere dynamics). Needs a field with gravity and
    // epsilon = 0.
    double rest_speed = 0.0;
    // Per pair of species: e of species a against b at [a * n + b] (n species, symmetric);
    // empty: `restitution` for every pair.
    std::vector<double> pair_restitution{};
    // Maintenance (renumbering, moving the time origin, the energy and momentum checks)
    // every this many events; 0: max(4 N, 65536). Tests make it frequent.
    std::uint64_t maintain_every = 0;
    // Species whose diameters differ by this factor or more get cell grids of their own
    // (cell_levels.hpp); 0: one grid for all, one largest diameter wide.
    double level_ratio = default_level_ratio;
    // The time-stepped engine's (step_engine.hpp; run.integrator = "timestep"): the step
    // and the most overlap passes in one step. The event-driven engine ignores them.
    double dt = 0.0;
    std::uint32_t passes = 1;
    // Sliding boundaries (box.shear_rate): the peculiar kT the engine's thermostat holds
    // (Engine::thermostat); 0: none, the viscous heat stays in the fluid.
    double shear_temperature = 0.0;
    // Seeds the draws of the thermal walls (thermal_wall.hpp); unused without them.
    std::uint64_t thermal_seed = 0;
};

} // namespace choc
