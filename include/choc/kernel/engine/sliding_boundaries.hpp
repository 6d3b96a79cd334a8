// Lees-Edwards sliding boundaries, a part of the engine (docs/ARCHITECTURE.md, "The
// engine's parts"): the geometry on the engine's clock (lees_edwards.hpp), the ticks at
// which the windows across the sliding face move on, the particles that re-enter through
// the face, the thermostat of a sheared fluid, and the accounts of the shear moment and
// the drift. It keeps its own state and reaches the rest of the engine through the
// engine's Kernel (engine/kernel.hpp): the particles, the cells and the clock, and the
// prediction of pairs.
//
// The stencils stop at the y face (cells.hpp); a particle in a cell row along it meets
// the particles of the opposite row through their sliding images, in the window of
// columns that holds every partner until the next tick (the offset passing a column
// width). At a tick the windows move on: every particle of the two rows looks across
// again (slide). A pair candidate found through an image is an ordinary candidate: its
// time is exact, and the engine's pair rule finds the same image again (geometry()).
#pragma once

#include "choc/kernel/box.hpp"
#include "choc/kernel/cells.hpp"
#include "choc/kernel/engine/obstacles.hpp"
#include "choc/kernel/engine_settings.hpp"
#include "choc/kernel/kinetic.hpp"
#include "choc/kernel/lees_edwards.hpp"
#include "choc/kernel/particles.hpp"
#include "choc/kernel/tolerances.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>

namespace choc {

template <int D>
class SlidingBoundaries {
  public:
    static constexpr int flow = LeesEdwards<D>::flow, across = LeesEdwards<D>::gradient;

    // Whether the box slides (box.sheared()); nothing below is called otherwise.
    bool on() const { return on_; }
    const LeesEdwards<D>& geometry() const { return le_; }

    // Switches them on for `box` at local time `now`, its cells of level 0 `cells` the only
    // grid (`grids`), on straight flights (`straight`). Throws std::invalid_argument for what
    // they cannot have.
    void set_up(const Box<D>& box, const Cells<D>& cells, std::size_t grids, bool straight,
                const EngineSettings& settings, double now) {
        if (!straight)
            throw std::invalid_argument("Engine: sliding boundaries need straight flights");
        const bool periodic =
            std::all_of(box.periodic.begin(), box.periodic.end(), [](bool p) { return p; });
        if (!periodic || Obstacles<D>::count(box) != 0) // (plane walls or other obstacles)
            throw std::invalid_argument(
                "Engine: sliding boundaries need a box periodic on every axis, without walls");
        if (grids != 1)
            throw std::invalid_argument("Engine: sliding boundaries need one cell grid");
        if (settings.epsilon > 0.0)
            throw std::invalid_argument("Engine: sliding boundaries need epsilon = 0");
        on_ = true;
        le_.length = box.length;
        le_.rate = box.shear_rate;
        le_.origin = now; // the images aligned at the start
        tick_width_ = cells.width()[flow];
        tick_ = 0;
        thermostat_temperature_ = settings.shear_temperature;
    }

    // --- Ticks --------------------------------------------------------------------------

    // The local time at which the sliding images next pass a column width.
    double next_tick() const { return le_.tick_time(tick_ + 1, tick_width_); }

    // A tick (the engine's clock at it): the windows across the face have moved on by a
    // column, so every particle of the two rows along the face looks across again.
    template <class Kernel>
    void tick(Kernel k) {
        ++tick_;
        const Cells<D>& cells = k.cells();
        const auto& n = cells.counts();
        for (const int row : {0, n[across] - 1}) {
            std::array<int, D> q{};
            q[across] = row;
            const int layers = D == 3 ? n[D - 1] : 1;
            for (int z = 0; z < layers; ++z) {
                if constexpr (D == 3) q[2] = z;
                for (q[flow] = 0; q[flow] < n[flow]; ++q[flow]) {
                    const std::uint32_t cell = cells.flat(q);
                    for (const std::uint32_t* i = cells.begin(cell); i != cells.end(cell); ++i) {
                        scan(k, *i);
                        k.reschedule(*i);
                    }
                }
            }
        }
    }

    // Improves i's pair candidates with the particles across the sliding face, if i is in
    // a row along it: through the image one period up from the top row (dir = +1), one
    // period down from the bottom row.
    template <class Kernel>
    void scan(Kernel k, std::uint32_t i) {
        const Cells<D>& cells = k.cells();
        const auto& n = cells.counts();
        const auto c = cells.coords(cells.cell_of(i));
        const int dir = c[across] == n[across] - 1 ? 1 : c[across] == 0 ? -1 : 0;
        if (dir == 0) return;
        const double now = k.now();
        const Particles<D>& particles = k.particles();
        const Vec<D>& length = le_.length;
        const double offset = le_.offset_in(tick_, now, tick_width_, n[flow]);
        const int first = le_.window_first(c[flow], dir, tick_, n[flow]);
        const Vec<D> u = le_.image_velocity(dir);
        const auto& pi = particles.state[i];
        const Vec<D> xi = pi.position_at(now);
        const double* sigma2 = &particles.table.sigma2[pi.species * particles.table.size()];
        std::array<int, D> q{};
        q[across] = dir > 0 ? 0 : n[across] - 1;
        Vec<D> shift{};
        shift[across] = dir * length[across];
        for (int m = first; m < first + LeesEdwards<D>::window_columns; ++m) {
            q[flow] = ((m % n[flow]) + n[flow]) % n[flow];
            shift[flow] = (m - q[flow]) / n[flow] * length[flow] + dir * offset;
            for (int dz = D == 3 ? -1 : 0; dz <= (D == 3 ? 1 : 0); ++dz) {
                if constexpr (D == 3) {
                    const int z = c[2] + dz;
                    q[2] = z < 0 ? z + n[2] : z >= n[2] ? z - n[2] : z;
                    shift[2] = z < 0 ? -length[2] : z >= n[2] ? length[2] : 0.0;
                }
                const std::uint32_t cell = cells.flat(q);
                for (const std::uint32_t* j = cells.begin(cell); j != cells.end(cell); ++j) {
                    const auto& pj = particles.state[*j];
                    const Vec<D> r = xi - (pj.position_at(now) + shift);
                    const Vec<D> v = pi.v - (pj.v + u);
                    const double s2 = sigma2[pj.species];
                    if (norm2(r) - s2 < -k.overlap_c() * s2) [[unlikely]]
                        k.overlap_across_face(i, *j, norm(r), std::sqrt(s2));
                    ++k.tally().pair_predictions;
                    const double dt = k.motion().pair_time(r, v, s2, k.pair_horizon(i));
                    k.take_earliest(i, j, &dt, 1);
                }
            }
        }
    }

    // --- Particles through the face -----------------------------------------------------

    // i leaves through the top (dir = +1) or the bottom of the y axis: it goes on as its
    // image one period down (up), slid and with the sliding velocity taken off. Its motion
    // relative to every other particle is as it was; its velocity changed, so its
    // predictions are renewed, and the kinetic energy it gains or loses is the boundary's
    // work, booked like a collision's so that the energy ledger holds.
    template <class Kernel>
    void reenter(Kernel k, std::uint32_t i, int dir) {
        ++k.tally().crossings;
        k.advance(i);
        auto& p = k.particles().state[i];
        const double m = k.particles().mass(i);
        Vec<D> v = p.v;
        le_.reenter(p.x, v, dir, k.now());
        drift_change((v - p.v) * m, k.now());
        kick(k, i, v);
        crossed_ += dir * 0.5 * m * le_.length[across] * le_.length[across];
        k.cells().move(i, k.cells().cell_at(p.x));
        k.predict_all(i);
    }

    // --- The thermostat of a sheared fluid ----------------------------------------------

    // Whether the thermostat is due, with `collisions` pair collisions counted now
    // (settings.shear_temperature > 0): every 10 N pair collisions. Every velocity changes
    // at a thermostat, so every prediction is made again (an O(N) pass, about as costly as
    // N / 2 collisions: about 20 collisions per particle, over which a shear rate small
    // against the collision rate heats the fluid by a fraction of a per cent).
    bool thermostat_due(std::uint64_t collisions, std::size_t n) const {
        return thermostat_temperature_ > 0.0 &&
               collisions - thermostat_from_ >= thermostat_collisions_per_particle * n;
    }
    // The collision count restarts (the measured phase): the thermostat's with it.
    void restart_thermostat() { thermostat_from_ = 0; }

    // The velocities relative to the flow,
    //     c_i = v_i - gamma (y_i - L_y / 2) e_x - U   (U: their mass-weighted mean),
    // are scaled by one factor that makes sum m c^2 = d N kT. The flow is kept, and U but
    // for its x part: the drift of the whole fluid along the flow, a random walk that the
    // crossings of the y face drive (drift_integral), is taken off. The energy taken off
    // is booked as the boundary's work is.
    template <class Kernel>
    void thermostat(Kernel k) {
        thermostat_from_ = k.tally().collisions;
        Particles<D>& particles = k.particles();
        const auto n = static_cast<std::uint32_t>(particles.size());
        const double half = 0.5 * le_.length[across];
        double mass = 0.0, sum2 = 0.0;
        Vec<D> momentum{};
        auto flow_at = [&](std::uint32_t i) {
            Vec<D> u{};
            u[flow] = le_.rate * (particles.state[i].x[across] - half);
            return u;
        };
        for (std::uint32_t i = 0; i < n; ++i) {
            k.advance(i);
            mass += particles.mass(i);
            momentum += (particles.state[i].v - flow_at(i)) * particles.mass(i);
        }
        const Vec<D> mean = momentum * (1.0 / mass);
        for (std::uint32_t i = 0; i < n; ++i)
            sum2 += particles.mass(i) * norm2(particles.state[i].v - flow_at(i) - mean);
        if (!(sum2 > 0.0)) return;
        const double scale = std::sqrt(D * n * thermostat_temperature_ / sum2);
        Vec<D> kept = mean;
        kept[flow] = 0.0;
        Vec<D> momentum_now{};
        for (std::uint32_t i = 0; i < n; ++i) {
            const Vec<D> v = flow_at(i) + kept + (particles.state[i].v - flow_at(i) - mean) * scale;
            momentum_now += v * particles.mass(i);
            kick(k, i, v);
        }
        // (the sum anew: no round-off carried over)
        drift_change(momentum_now - drift_, k.now());
        // The flow's part of a relative velocity is not scaled: a pair that has just
        // collided may approach now. Straight lines meet twice across a rescaling, so the
        // just-collided exclusion (take_earliest) ends here.
        k.forget_last_partners();
        for (std::uint32_t i = 0; i < n; ++i) k.predict_all(i);
    }

    // --- Accounts: the shear moment and the drift ---------------------------------------

    // The accounts from zero at `now` (the flux integrals' reset): the total mass and
    // momentum, sum m y^2 / 2 and the y momentum.
    void reset_accounts(const Particles<D>& particles, double now) {
        drift_time_ = 0.0, drift_since_ = now, mass_ = 0.0, drift_ = Vec<D>{};
        for (std::uint32_t i = 0; i < particles.size(); ++i) {
            mass_ += particles.mass(i);
            drift_ += particles.state[i].v * particles.mass(i);
        }
        crossed_ = 0.0, since_ = now, y2_start_ = half_m_y2(particles, now), py_ = drift_[across];
    }

    // The xy moment of the momentum flux in the frame of the shear flow
    // u_x = gamma (y - L_y / 2), from the last reset_accounts to now,
    //     M(t) = integral sum_i m (v_ix - u_x(y_i)) v_iy dt + sum_contacts r_x dp_y,
    // from its lab-frame value `lab` (the flux tally's xy moment). The streaming sums hold
    // lab velocities (flux_tally.hpp); the flow's share, gamma integral sum_i m y_i v_iy dt,
    // is taken off exactly: on each straight flight m y v_y dt integrates to m (y^2 / 2) at
    // its ends, and a crossing of the y face (y = L_y to 0, or back) adds m L_y^2 / 2 (or
    // takes it off) to what the ends say; the flow's offset adds gamma (L_y / 2) sum m v_y,
    // constant (the y momentum is conserved: zero from a generated start).
    double shear_moment(double lab, const Particles<D>& particles, double now) const {
        const double offset = 0.5 * le_.length[across] * py_ * (now - since_);
        return lab - le_.rate * (half_m_y2(particles, now) - y2_start_ + crossed_ - offset);
    }

    // The time integral of the kinetic energy of the fluid's drift, |P|^2 / (2 M), from the
    // last reset_accounts to now. The sliding changes P_x at every crossing of the y face
    // (by -+ m gamma L_y), a random walk the peculiar temperature must not count
    // (sliding_shear.hpp).
    double drift_integral(double now) const {
        return drift_time_ + drift_energy() * (now - drift_since_);
    }

    // The engine's clock moves its origin by `shift` (Engine::rebase): ticks are counted
    // from the last one, on the new clock.
    void rebase(double shift, int columns) {
        le_.anchor_at_tick(tick_, tick_width_, columns);
        le_.origin -= shift;
        since_ -= shift;
        drift_since_ -= shift;
        tick_ = 0;
    }

    // Its checkpoint (archive.hpp). (Set-up gives the rest back.)
    template <class Archive>
    void fields(Archive& ar) {
        ar(le_.origin, le_.start_offset, le_.start_column, tick_, crossed_, y2_start_, py_, since_,
           thermostat_from_, drift_time_, drift_since_, mass_, drift_);
    }

  private:
    // Particle i, advanced to now, is given velocity v by the sliding boundary or the
    // thermostat: an external force, so no contact term in the fluxes; its counter moves
    // and its kinetic energy's change is booked, so that the energy ledger holds.
    template <class Kernel>
    void kick(Kernel k, std::uint32_t i, const Vec<D>& v) {
        auto& p = k.particles().state[i];
        const double m = k.particles().mass(i), before = kinetic_energy(m, p.v);
        k.flux_leave(i);
        p.v = v;
        k.flux_enter(i);
        p.bump();
        k.kinetic_change(p.species, kinetic_energy(m, p.v) - before);
    }

    double drift_energy() const { return mass_ > 0.0 ? 0.5 * norm2(drift_) / mass_ : 0.0; }
    // The momentum is about to change by dp at `now`: the drift's integral up to now first.
    void drift_change(const Vec<D>& dp, double now) {
        drift_time_ += drift_energy() * (now - drift_since_);
        drift_since_ = now;
        drift_ += dp;
    }
    // sum_i m_i y_i^2 / 2 at `now`
    static double half_m_y2(const Particles<D>& particles, double now) {
        double sum = 0.0;
        for (std::uint32_t i = 0; i < particles.size(); ++i) {
            const double y = particles.state[i].position_at(now)[across];
            sum += 0.5 * particles.mass(i) * y * y;
        }
        return sum;
    }

    bool on_ = false;
    // The geometry on the local clock, the tick interval the clock is in, and the column
    // width.
    LeesEdwards<D> le_;
    long tick_ = 0;
    double tick_width_ = 0.0;
    double thermostat_temperature_ = 0.0; // settings.shear_temperature (0: none)
    // shear_moment's account: m L_y^2 / 2 per crossing of the y face (up +, down -) and
    // sum m y^2 / 2, the y momentum and the local time at the last reset_accounts
    double crossed_ = 0.0, y2_start_ = 0.0, py_ = 0.0, since_ = 0.0;
    std::uint64_t thermostat_from_ = 0; // the pair collisions counted at the last thermostat
    // drift_integral's account: the momentum, the total mass, the integral so far and when
    double drift_time_ = 0.0, drift_since_ = 0.0, mass_ = 0.0;
    Vec<D> drift_{};
};

} // namespace choc
