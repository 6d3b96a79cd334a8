// The physics of a run's summary (run/summary.hpp): what the measured phase's sums, blocks
// and observers give, turned into the summary's quantities, beside Enskog's references.
// The run (live_run.hpp) fills the plain counts and calls these; each observer of the
// measured phase (run/phase/) calls the part that reads its own measurements.
#pragma once

#include "choc/kernel/ball_volume.hpp"
#include "choc/kernel/box.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/wall.hpp"
#include "choc/observers/axial_profile.hpp"
#include "choc/observers/diffusion_windows.hpp"
#include "choc/observers/displacement.hpp"
#include "choc/observers/enskog.hpp"
#include "choc/observers/gap_fit.hpp"
#include "choc/observers/pressure.hpp"
#include "choc/observers/sliding_shear.hpp"
#include "choc/observers/transport_windows.hpp"
#include "choc/observers/window_ladder.hpp"
#include "choc/run/config.hpp"
#include "choc/run/summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace choc {

// What every part of the summary reads: the config, the box, the particles now (a copy, the
// run's final state so far) and how many of each species there are.
template <int D>
struct SummaryContext {
    const Config& config;
    const Box<D>& box;
    const Particles<D>& final;
    const std::vector<std::uint64_t>& counts; // particles per species
    double time;                              // the engine's clock now
    bool has_walls;                           // planes, segments or triangles
};

// Every collision elastic and no field: a fluid in equilibrium.
inline bool elastic_without_field(const Config& config) {
    const bool elastic = config.restitution == 1.0 &&
                         std::all_of(config.pair_restitution.begin(), config.pair_restitution.end(),
                                     [](const PairRestitution& p) { return p.restitution == 1.0; });
    const bool field =
        config.drag != 0.0 || std::any_of(config.gravity.begin(), config.gravity.end(),
                                          [](double g) { return g != 0.0; });
    return elastic && !field;
}

// The fluid Enskog's values describe (observers/enskog.hpp): one species present (of these
// counts per species), every collision elastic, no field; at temperature kT. Otherwise none.
template <int D>
std::optional<enskog::Fluid> enskog_fluid(const SummaryContext<D>& c, double kT) {
    const auto& counts = c.counts;
    const auto& species = c.final.table.species;
    if (std::count_if(counts.begin(), counts.end(), [](auto n) { return n > 0; }) != 1)
        return std::nullopt;
    if (!elastic_without_field(c.config) || !(kT > 0.0)) return std::nullopt;
    const auto& s = species[static_cast<std::size_t>(
        std::find_if(counts.begin(), counts.end(), [](auto n) { return n > 0; }) - counts.begin())];
    double volume = 1.0;
    for (int a = 0; a < D; ++a) volume *= c.box.length[a];
    return enskog::Fluid{D, static_cast<double>(c.final.size()) / volume, 2.0 * s.radius, s.mass,
                         kT};
}

// The edge of a cubic box (Yeh-Hummer's correction is for a periodic cube); none else.
template <int D>
std::optional<double> cube_edge(const Box<D>& box) {
    for (int a = 1; a < D; ++a)
        if (box.length[a] != box.length[0]) return std::nullopt;
    return box.length[0];
}

// The lag a transport coefficient from windows is read at: the shortest lag of at least
// `shortest` with enough pairs from which the next such lag rises by no more than its own
// error, so that the coefficient has stopped growing beyond its noise (`plateau`). Short lags
// read it low: by about (t_c / tau) exp(-tau / t_c) for a flux correlated over t_c, and in a
// dense fluid, whose stress correlations decay slowly, for longer (the viscosity at
// eta >= 0.45 still rises by 4 % past ten mean free times); the error grows as sqrt(tau), so
// the first lag of the plateau is the most precise one that is not biased beyond its noise.
// If each lag rises to the next by more (the run is too short to show the plateau): the
// longest such lag, `plateau` false. None without a lag of at least `shortest` with enough
// pairs.
struct PlateauLag {
    std::optional<WindowLag> lag;
    bool plateau = false;
};
inline PlateauLag plateau_lag(const std::vector<WindowLag>& lags, double shortest) {
    std::vector<WindowLag> usable;
    for (const WindowLag& l : lags)
        if (l.lag >= shortest && l.pairs >= WindowLadder<double>::least_pairs) usable.push_back(l);
    if (usable.empty()) return {};
    for (std::size_t k = 0; k + 1 < usable.size(); ++k) {
        const WindowLag& next = usable[k + 1];
        if (next.error && next.value - usable[k].value <= *next.error) return {usable[k], true};
    }
    return {usable.back(), false};
}

// A window ladder's lags as the summary gives them.
template <class Lag>
std::vector<WindowLag> window_lags(const std::vector<Lag>& lags) {
    std::vector<WindowLag> out;
    for (const auto& l : lags) out.push_back({l.lag, l.pairs, l.value, l.error});
    return out;
}

// The counts, temperatures and collision rates of the run so far: `time` of measured
// phase, `kinetic(k)` and `kinetic_integral(k)` species k's kinetic energy now and its
// integral over the phase.
template <int D, class Tally, class Kinetic, class KineticIntegral>
void particle_summary(Summary& s, const SummaryContext<D>& c, const Tally& t, Kinetic&& kinetic,
                      KineticIntegral&& kinetic_integral) {
    const auto& species = c.final.table.species;
    const auto& counts = c.counts;
    const std::size_t n = c.final.size();
    // Temperatures: kT = 2 KE / (d N), time-averaged; at sim_time 0 the instantaneous one.
    double kinetic_total = 0.0;
    for (std::uint32_t k = 0; k < species.size(); ++k) {
        const double mean_kinetic = s.sim_time > 0 ? kinetic_integral(k) / s.sim_time : kinetic(k);
        kinetic_total += mean_kinetic;
        s.species.push_back(
            {species[k].name,
             counts[k],
             counts[k] ? std::optional(temperature(mean_kinetic, static_cast<double>(counts[k]), D))
                       : std::nullopt,
             {},
             std::nullopt});
    }
    s.temperature = temperature(kinetic_total, static_cast<double>(n), D);

    if (s.sim_time > 0 && t.collisions > 0) {
        s.collision_rate =
            2.0 * static_cast<double>(t.collisions) / (static_cast<double>(n) * s.sim_time);
        s.mean_free_time = 1.0 / *s.collision_rate;
    }
    // Per species a and partner b: collisions of an a with a b per a per unit time. A
    // collision of two a's counts for both, so the rates of a sum to its collisions
    // per particle per unit time, and the counts' mean over species is collision_rate.
    if (s.sim_time > 0 && t.pair_collisions.size() == species.size() * species.size())
        for (std::size_t a = 0; a < species.size(); ++a) {
            if (counts[a] == 0) continue;
            auto& sp = s.species[a];
            sp.collision_rate = 0.0;
            for (std::size_t b = 0; b < species.size(); ++b) {
                const auto col =
                    t.pair_collisions[std::min(a, b) * species.size() + std::max(a, b)];
                const double rate = static_cast<double>(col) * (a == b ? 2.0 : 1.0) /
                                    (static_cast<double>(counts[a]) * s.sim_time);
                sp.collision_rates.push_back(rate);
                *sp.collision_rate += rate;
            }
        }
}

// D's lags, and `windows`: the longest lag with enough pairs, if it is at least five mean
// free times (docs/PHYSICS.md, "Self-diffusion": shorter lags still carry the ballistic
// start).
template <int D>
void diffusion_lags(Summary& s, const std::vector<typename DiffusionWindows<D>::Lag>& lags) {
    s.diffusion_lags = window_lags(lags);
    const auto longest = DiffusionWindows<D>::longest(lags);
    if (longest && s.mean_free_time && longest->lag >= 5.0 * *s.mean_free_time)
        s.diffusion_windows = window_lags(std::vector{*longest}).front();
}

// Self-diffusion from the displacement (one origin, 3D) and the windows (many origins, their
// lags): a bulk property of 3D; in 2D the velocity autocorrelation decays as 1/t and D does
// not exist (docs/PHYSICS.md, "Self-diffusion"), so only the lags are reported, each a
// finite-time value; walls confine the walk.
template <int D>
void diffusion_summary(Summary& s, const SummaryContext<D>& c,
                       const DisplacementSamples& displacement,
                       const std::vector<typename DiffusionWindows<D>::Lag>& windows) {
    const auto& species = c.final.table.species;
    if (D == 2 && !c.has_walls && !windows.empty()) {
        diffusion_lags<D>(s, windows);
        if (const auto fluid = enskog_fluid(c, s.temperature))
            s.D_enskog = enskog::diffusion(*fluid);
    }
    if (D == 3 && !c.has_walls && !c.box.sheared())
        if (auto diffusion = displacement.diffusion()) {
            s.D = diffusion->mean;
            s.D_err = diffusion->error;
            diffusion_lags<D>(s, windows);
            for (std::uint32_t k = 0; k < species.size(); ++k) {
                if (c.counts[k] == 0) continue;
                const auto own = displacement.diffusion(k);
                s.species_diffusion.push_back({species[k].name,
                                               own ? std::optional(own->mean) : std::nullopt,
                                               own ? own->error : std::nullopt});
            }
            if (const auto fluid = enskog_fluid(c, s.temperature))
                s.D_enskog = enskog::diffusion(*fluid);
        }
}

// D at infinite size, once every observer has given its keys (it needs D's and the
// viscosity's): a periodic cube lowers D by Yeh and Hummer's xi kT / (6 pi eta L), since a
// particle drags its images' flow along. Added to D from many time origins (`windows`, whose
// error shrinks with the run, unlike the one origin's; D from the one origin if the run is
// too short for windows), with the shear viscosity the run measures where it does (Enskog's
// is 25 % low at eta = 0.45, which made the correction 35 % too large), else Enskog's. The
// error adds the viscosity's share, correction x (eta_err / eta), in quadrature.
template <int D>
void finite_size_diffusion(Summary& s, const SummaryContext<D>& c) {
    if (D != 3 || !s.D) return;
    const auto edge = cube_edge(c.box);
    const auto fluid = enskog_fluid(c, s.temperature);
    if (!edge || !fluid) return;
    const auto& measured = s.shear_viscosity;
    const bool viscosity = measured && measured->value;
    const double eta = viscosity ? *measured->value : enskog::shear_viscosity(*fluid);
    const bool windows = s.diffusion_windows.has_value();
    const double correction = enskog::yeh_hummer(fluid->kT, eta, *edge);
    s.D_infinite = (windows ? s.diffusion_windows->value : *s.D) + correction;
    const auto error = windows ? s.diffusion_windows->error : s.D_err;
    if (error)
        s.D_infinite_err = viscosity && measured->error
                               ? std::hypot(*error, correction * *measured->error / eta)
                               : *error;
    s.finite_size = Summary::FiniteSize{correction, windows, viscosity};
}

// Shear viscosity, heat conduction and the pressure tensor of a bulk fluid from the
// transport windows and the flux moments now (the engine keeps them: event-driven, every
// axis periodic, no walls, no field). The coefficients need every collision elastic (an
// equilibrium to fluctuate about); the conductivity also one species
// (transport_windows.hpp). Their `windows` entry is the shortest lag of at least ten mean
// free times with enough pairs from which the coefficient no longer rises beyond its noise
// (plateau_lag). It gives the value, except in 2D, where the coefficients grow with the lag
// without limit (docs/PHYSICS.md).
template <int D>
void transport_summary(Summary& s, const SummaryContext<D>& c, const TransportWindows<D>& transport,
                       const FluxMoments<D>& moments) {
    if (!(s.sim_time > 0.0)) return;
    double volume = 1.0;
    for (int a = 0; a < D; ++a) volume *= c.box.length[a];
    // the pressure tensor over the measured phase, beside Z
    if (s.Z) {
        const auto p = transport.pressure(moments, c.time, volume);
        const auto e = transport.pressure_error(volume);
        constexpr auto ab = FluxTally<D>::axes();
        s.pressure_tensor.assign(D, std::vector<double>(D, 0.0));
        if (e) s.pressure_tensor_err = s.pressure_tensor;
        for (std::size_t k = 0; k < ab.size(); ++k) {
            const auto [a, b] = ab[k];
            s.pressure_tensor[a][b] = s.pressure_tensor[b][a] = p[k];
            if (e) s.pressure_tensor_err[a][b] = s.pressure_tensor_err[b][a] = (*e)[k];
        }
    }
    if (!elastic_without_field(c.config) || !(s.temperature > 0.0)) return;
    const auto fluid = enskog_fluid(c, s.temperature);
    auto coefficient = [&](const std::vector<WindowLag>& lags, std::optional<double> enskog) {
        TransportCoefficient tc;
        tc.lags = lags;
        if (s.mean_free_time) {
            const PlateauLag chosen = plateau_lag(lags, 10.0 * *s.mean_free_time);
            tc.windows = chosen.lag;
            tc.plateau = chosen.plateau;
        }
        if (D == 3 && tc.windows) {
            tc.value = tc.windows->value;
            tc.error = tc.windows->error;
        }
        tc.enskog = enskog;
        return tc;
    };
    s.shear_viscosity =
        coefficient(window_lags(transport.viscosity(volume, s.temperature)),
                    fluid ? std::optional(enskog::shear_viscosity(*fluid)) : std::nullopt);
    if (std::count_if(c.counts.begin(), c.counts.end(), [](auto n) { return n > 0; }) == 1)
        s.thermal_conductivity =
            coefficient(window_lags(transport.conductivity(volume, s.temperature)),
                        fluid ? std::optional(enskog::thermal_conductivity(*fluid)) : std::nullopt);
}

// One coefficient between two thermal walls: the fit, and Enskog's value at the fitted
// slabs' state (one species, elastic pairs, no field).
template <int D>
std::optional<GapTransport> gap_transport(const SummaryContext<D>& c,
                                          const AxialProfile<D>& profile, GapSetup<D> setup,
                                          bool shear) {
    const auto& total = profile.total();
    const double time_area = total.samples * profile.step() * profile.area();
    const auto given = setup.given(total.scalars);
    const auto fit = GapFit<D>(profile, std::move(setup)).result();
    if (!fit) return std::nullopt;
    GapTransport g;
    g.given = {given[0] / time_area, given[1] / time_area};
    g.flux = fit->value.flux;
    g.gradient = fit->value.gradient;
    g.coefficient = fit->value.coefficient;
    g.temperature = fit->value.temperature;
    g.packing_fraction = fit->value.packing;
    if (fit->error) {
        g.flux_err = fit->error->flux;
        g.gradient_err = fit->error->gradient;
        g.coefficient_err = fit->error->coefficient;
        g.temperature_err = fit->error->temperature;
        g.packing_fraction_err = fit->error->packing;
    }
    g.blocks = fit->blocks;
    g.fit_from = fit->fit_from;
    g.fit_to = fit->fit_to;
    if (const auto fluid = enskog_fluid(c, g.temperature)) {
        const enskog::Fluid here{D, g.packing_fraction / ball_volume<D>(fluid->sigma / 2.0),
                                 fluid->sigma, fluid->mass, g.temperature};
        g.enskog = shear ? enskog::shear_viscosity(here) : enskog::thermal_conductivity(here);
    }
    return g;
}

// Fourier's and Newton's laws between two thermal walls (observers/gap_fit.hpp) from the
// slab profile: the box has exactly two, facing each other across the profile's axis. Heat
// conduction when their temperatures differ, shear flow when their velocities do (both
// may). The profile's scalars are each wall's heat, then its momentum, three entries per
// wall (phase/profile.hpp).
template <int D>
void gap_summaries(Summary& s, const SummaryContext<D>& c, const AxialProfile<D>& profile) {
    const auto& walls = c.box.walls;
    const int axis = profile.axis();
    std::optional<std::size_t> low, high;
    std::size_t thermal = 0;
    for (std::size_t w = 0; w < walls.size(); ++w) {
        if (!walls[w].thermal()) continue;
        ++thermal;
        if (walls[w].normal[axis] == 1.0) low = w;
        if (walls[w].normal[axis] == -1.0) high = w;
    }
    if (thermal != 2 || !low || !high) return;
    const Wall<D>& lw = walls[*low];
    const Wall<D>& hw = walls[*high];
    const double from = lw.offset, to = -hw.offset; // the planes' positions on the axis
    if (!(from < to)) return;
    const std::size_t momentum = walls.size();
    if (lw.temperature != hw.temperature) {
        GapSetup<D> setup{from, to,
                          [&](const std::vector<double>& q) {
                              return std::array<double, 2>{q[*low], q[*high]};
                          },
                          [](const auto& row) { return row.temperature; }};
        s.heat_conduction = gap_transport(c, profile, std::move(setup), false);
    }
    const Vec<D> du = hw.velocity - lw.velocity;
    if (norm(du) > 0.0) {
        const Vec<D> e = du * (1.0 / norm(du));
        const auto along = [&](const std::vector<double>& q, std::size_t w) {
            double p = 0.0;
            for (int a = 0; a < D; ++a) p += q[momentum + 3 * w + a] * e[a];
            return p;
        };
        GapSetup<D> setup{
            from, to,
            [&](const std::vector<double>& q) {
                return std::array<double, 2>{along(q, *low), along(q, *high)};
            },
            [e](const auto& row) -> std::optional<double> { return dot(row.velocity, e); }};
        s.shear_flow = gap_transport(c, profile, std::move(setup), true);
        if (s.shear_flow) {
            const auto entries = [](const Vec<D>& v) {
                std::vector<double> out;
                for (int a = 0; a < D; ++a) out.push_back(v[a]);
                return out;
            };
            s.shear_flow->direction = entries(e);
            s.shear_flow->wall_velocity = {entries(lw.velocity), entries(hw.velocity)};
        }
    }
    for (auto* g : {&s.heat_conduction, &s.shear_flow})
        if (*g) {
            (*g)->axis = axis;
            (*g)->wall_temperature = {lw.temperature, hw.temperature};
        }
}

// Steady shear between sliding boundaries (box.shear_rate): the stress from the shear
// moment of Z's blocks, the viscosity from it and the heating, beside Enskog's at the mean
// peculiar temperature (observers/sliding_shear.hpp).
template <int D>
void sliding_summary(Summary& s, const SummaryContext<D>& c,
                     const std::vector<VirialBlock>& z_blocks) {
    const Box<D>& box = c.box;
    if (!box.sheared()) return;
    std::vector<ShearBlock> blocks;
    for (const auto& b : z_blocks) blocks.push_back({b.shear, b.kinetic - b.drift, b.time});
    double mass = 0.0, volume = box.volume(), filled = 0.0;
    const auto& species = c.final.table.species;
    for (std::size_t k = 0; k < species.size(); ++k) {
        mass += static_cast<double>(c.counts[k]) * species[k].mass;
        filled += static_cast<double>(c.counts[k]) * ball_volume<D>(species[k].radius);
    }
    const auto r = sliding_shear(blocks, ShearSetup{D, box.shear_rate, volume, box.length[1], mass,
                                                    static_cast<double>(c.final.size())});
    if (!r) return;
    ShearSummary h;
    h.shear_rate = box.shear_rate;
    h.stress = r->stress.mean, h.stress_err = r->stress.error;
    h.eta = r->eta.mean, h.eta_err = r->eta.error;
    h.temperature = r->temperature;
    h.temperature_first = r->temperature_first, h.temperature_last = r->temperature_last;
    h.heating = r->heating;
    h.packing_fraction = filled / volume;
    h.blocks = r->blocks;
    if (const auto fluid = enskog_fluid(c, r->temperature))
        h.enskog = enskog::shear_viscosity(*fluid);
    s.sliding_shear = h;
}

} // namespace choc
