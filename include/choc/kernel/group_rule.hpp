// The group rule: new velocities for a group of bodies that collide at the same instant
// (a disc hitting two touching discs, lattice starts, piles), in D = 2 or 3.
//
// Bodies i have masses m_i (a wall is a body of infinite mass whose velocity is fixed)
// and velocities v_i. Contact k joins bodies a_k and b_k; its unit normal n_k points from
// b_k to a_k and is given by the caller (e.g. a minimum-image normal), never recomputed.
// The unknowns are the new velocities v_i' of the finite-mass bodies and one impulse
// vector J_k per contact (received by a_k; b_k receives -J_k). The equations are
//     momentum, per body, D rows:   m_i (v_i' - v_i) = sum_{k: a_k = i} J_k - sum_{k: b_k = i} J_k
//     no tangential impulse, D - 1: t_k,s . J_k = 0           (t_k,s: a basis of n_k's plane)
//     restitution, 1 row:           u_k' = n_k . (v_a' - v_b') = -e_k u_k
// with u_k = n_k . (v_a - v_b) < 0 for an approaching contact. That is D (N + K) square
// equations, solved by Gauss–Jordan elimination with full pivoting (gauss_jordan.hpp).
//
// Energy. Summing (v_i' + v_i)/2 . m_i (v_i' - v_i) over the bodies and regrouping by
// contacts, with J_k = lambda_k n_k:
//     dE = sum_k lambda_k (u_k + u_k') / 2 = - sum_k lambda_k (1 - e_k) |u_k| / 2  <= 0,
// so e = 1 conserves energy, and an admissible answer (lambda_k >= 0) never creates it.
//
// Admissibility: no normal impulse may pull (lambda_k >= 0) and no contact may be left
// approaching (u_k' >= 0). The iteration, and why it ends:
//  * A round starts from the current velocities; its active set is every contact that is
//    approaching or at rest (u_k <= tol). Separating contacts are left out: a restitution
//    law on them would pull them together.
//  * Within a round, the system is solved; every active contact with lambda_k < -tol
//    leaves the active set at once (all of them, so the answer does not depend on the
//    order contacts are listed) and the system is solved again. The active set shrinks
//    strictly, so a round takes at most K + 1 solves.
//  * After the round, a contact left out may now approach (a body pushed into a
//    neighbour it was leaving). Then another round starts from the new velocities: in a
//    sequential picture that neighbour is hit an instant later. Each round conserves
//    momentum and does not create energy (dE formula above, per round).
//  * Rounds are capped at 2 K + 4. A geometry can need infinitely many (a disc touching
//    two parallel walls with e = 1 bounces between them forever at zero distance), and
//    an inconsistent rank-deficient system has no solution at all. Then the answer is
//    the sequential plastic resolution (below), which does end.
// Singular systems: the contact normals are linearly dependent (a disc touching two walls
// at the same point, a closed hexagonal shell around a disc). If the system is still
// consistent (always, with one e for all contacts and walls at rest: with J the contact
// Jacobian, v' = v + M^-1 J^T lambda and J M^-1 J^T lambda = -(1 + e) J v, whose right-hand
// side lies in range(J) = range(J M^-1 J^T)), the velocities are unique — two impulse sets
// differ by a null vector of J^T, which changes no velocity — and the basic solution of
// Gauss–Jordan (unknowns without a pivot set to zero) gives them; only the split of the
// impulses among the dependent contacts is a choice. The result says `singular` so the
// caller can log it.
// Sequential plastic fallback: from the velocities before the group, repeatedly take the
// most approaching contact and stop it along its normal (binary rule with e = 0,
// lambda = -u / (1/m_a + 1/m_b) > 0). Each step conserves momentum, removes energy and
// pulls nothing; it is the projection (in the kinetic-energy metric) onto the half-space
// u_k' >= 0 of the most violated contact. With walls at rest the half-spaces intersect
// (v' = 0 lies in all), and projecting onto the most violated of finitely many
// half-spaces with a common point converges linearly (the relaxation method of Agmon,
// Motzkin and Schoenberg, 1954), so the worst approach speed falls below the tolerance
// after finitely many steps; a step cap guards what that argument does not cover
// (moving walls squeezing a body) and sets `unresolved`. The elastic part of
// those contacts is lost; the result says `fallback` so the caller can log it.
// A group of one contact takes the closed-form binary rule of collide.hpp.
//
// Large groups (a chain or a pile of touching bodies hit at once). The system above has
// D (N + K) unknowns, and the dense elimination costs its cube: 44 s for a chain of
// 1000 discs. From `GroupTolerances::sparse_from` active contacts on, a solve eliminates
// the velocities and tangential impulses first: with J_k = lambda_k n_k (the tangential
// rows) and v' = v + M^-1 J^T lambda (the momentum rows), the restitution rows become
//     A lambda = -(1 + e_k) u_k,   A = J M^-1 J^T,   A_kl = sum_i s_ki s_li n_k.n_l / m_i
// over the finite bodies i that contacts k and l share (s = +1 on a, -1 on b). A is the
// K x K Delassus matrix: symmetric, positive definite when the normals are independent,
// and as sparse as the contact graph (k and l couple only through a shared body). It is
// solved by sparse_ldlt.hpp (reverse Cuthill–McKee order, envelope LDL^T): O(K) for a
// chain or a tree. When the system has full rank the solution of the whole system is
// unique, so this is the same answer as the dense one up to rounding. A pivot that
// vanishes (dependent normals: a pile, where a hexagonal layer has three contacts per
// disc and two degrees of freedom) is dropped, and the solve gives the basic solution,
// with the impulse of each dependent contact 0, and checks that it solves the system, as
// the dense elimination does (sparse_ldlt.hpp). The velocities of one solve are the same
// as the dense answer's (unique when the system is consistent); the split of the
// impulses among dependent contacts can differ, and with it which contacts a round finds
// pulling and drops, so the two can end at different admissible answers (a squeezed pile
// of 36 discs: 5 solves against 7). Before, such groups went to the dense elimination: a
// pile of 1600 discs took 300 s; now 0.2 s.
#pragma once

#include "choc/kernel/collide.hpp"
#include "choc/kernel/gauss_jordan.hpp"
#include "choc/kernel/sparse_ldlt.hpp"
#include "choc/kernel/tolerances.hpp"
#include "choc/kernel/vec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace choc {

template <int D>
struct GroupBody {
    Vec<D> velocity;
    double mass = 1.0; // > 0; std::numeric_limits<double>::infinity() for a wall

    bool is_wall() const { return std::isinf(mass); }
    double inverse_mass() const { return is_wall() ? 0.0 : 1.0 / mass; }
};

template <int D>
struct GroupContact {
    std::uint32_t a = 0, b = 0; // indices into the group's bodies; not both walls
    Vec<D> normal;              // unit, from b to a
    double restitution = 1.0;   // e in [0, 1]
};

template <int D>
struct GroupResult {
    std::vector<Vec<D>> velocities; // per body; a wall keeps its velocity
    std::vector<Vec<D>> impulses;   // per contact: the momentum a received (b: minus it)
    double energy_change = 0.0;     // kinetic energy after - before (finite masses)
    bool singular = false;          // a rank-deficient system was met (see above)
    bool fallback = false;          // the sequential plastic resolution gave the answer
    bool unresolved = false;        // even that hit its step cap: something still approaches
    int solves = 0;                 // linear systems solved
    int sparse_solves = 0;          // of which by the sparse Delassus solve (see the top)
    int rounds = 0;
};

// Tolerances, relative to the group's own scales: V = the largest relative speed
// |v_a - v_b| over its contacts (Galilean invariant), P = V times the largest finite mass.
struct GroupTolerances {
    // u_k <= approach V counts as "at rest" (in the active set, and not approaching).
    // Far above the rounding of a solve (~n eps kappa, 1e-13 for the small, well
    // conditioned groups met in practice), far below any physical speed: a contact left
    // approaching at 1e-9 V is caught by the next pair prediction as a collision at once.
    double approach = group_approach_tolerance;
    // lambda_k < -impulse P counts as pulling; the same reasoning, for impulses.
    double impulse = group_impulse_tolerance;
    // Relative pivot tolerance of the elimination. Larger than default_rank_tolerance()
    // on purpose: the normals come from positions known only to the contact tolerance
    // (1e-9 of a diameter in `choc collide`, round-off in the engine), so a pivot below
    // ~1e-10 reflects a geometry that is singular up to that uncertainty, and solving it
    // as nonsingular would give huge opposite impulses (~1/pivot) that cancel to the
    // velocities with all digits lost.
    double rank = group_rank_tolerance;
    // Resolve one-contact groups with the closed-form binary rule (tests turn it off to
    // compare the linear system with it).
    bool pair_closed_form = true;
    // Solves with this many active contacts or more use the sparse Delassus solve (top
    // of the file); smaller ones the dense elimination, bit for bit as before. Measured
    // (bench/bench_group): the sparse solve is already faster at K = 4 (3 us against
    // 8 us), so the threshold is not a crossover; it keeps every group of a gas (a
    // handful of contacts) and the pinned golden runs on the dense path that decides
    // singular cases itself, at a cost of at most ~1 ms (2D) / ~5 ms (3D) for a chain
    // just below it, where the dense solve of n = D (N + K) unknowns costs ~n^3 / 3.
    std::size_t sparse_from = group_sparse_from;
    // A pivot of the sparse LDL^T at or below this fraction of its diagonal entry means
    // the active normals are dependent to within ~1e-6 in angle (the pivot is A_ii sin^2
    // of the angle between contact i's row and the span of the earlier ones, in the
    // M^-1 metric): far above its rounding (~K eps); that contact is then dependent and
    // gets no impulse of its own (sparse_ldlt.hpp).
    double sparse_pivot = group_sparse_pivot;
};

// Holds the solver workspace, so the engine can reuse one instance without allocating
// per group once it has seen its largest group.
template <int D>
class GroupSolver {
  public:
    GroupResult<D> resolve(std::span<const GroupBody<D>> bodies,
                           std::span<const GroupContact<D>> contacts,
                           const GroupTolerances& tolerances = {}) {
        check(bodies, contacts);
        GroupResult<D> out;
        out.velocities.resize(bodies.size());
        for (std::size_t i = 0; i < bodies.size(); ++i) out.velocities[i] = bodies[i].velocity;
        out.impulses.assign(contacts.size(), Vec<D>{});

        double speed = 0.0;
        for (const auto& c : contacts)
            speed = std::max(speed, norm(bodies[c.a].velocity - bodies[c.b].velocity));
        double heaviest = 0.0;
        for (const auto& body : bodies)
            if (!body.is_wall()) heaviest = std::max(heaviest, body.mass);
        approach_floor_ = tolerances.approach * speed;
        sparse_from_ = tolerances.sparse_from;
        sparse_pivot_ = tolerances.sparse_pivot;
        impulse_floor_ = tolerances.impulse * speed * heaviest;

        if (contacts.size() == 1 && tolerances.pair_closed_form) {
            resolve_pair(bodies, contacts[0], out);
        } else if (!resolve_in_rounds(bodies, contacts, tolerances.rank, out)) {
            resolve_sequentially(bodies, contacts, out);
        }
        // dE = sum m (v' - v).(v' + v) / 2: the difference form, without cancellation.
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            if (bodies[i].is_wall()) continue;
            const Vec<D>& v0 = bodies[i].velocity;
            const Vec<D>& v1 = out.velocities[i];
            out.energy_change += 0.5 * bodies[i].mass * dot(v1 - v0, v1 + v0);
        }
        return out;
    }

  private:
    static void check(std::span<const GroupBody<D>> bodies,
                      std::span<const GroupContact<D>> contacts) {
        for (const auto& body : bodies)
            if (!(body.mass > 0)) throw std::invalid_argument("group body with mass <= 0");
        for (const auto& c : contacts) {
            if (c.a >= bodies.size() || c.b >= bodies.size() || c.a == c.b)
                throw std::invalid_argument("group contact with a bad body index");
            if (bodies[c.a].is_wall() && bodies[c.b].is_wall())
                throw std::invalid_argument("group contact between two walls");
            if (!(std::abs(norm2(c.normal) - 1.0) <= unit_normal_tolerance))
                throw std::invalid_argument("group contact normal is not a unit vector");
        }
    }

    static double approach_speed(const std::vector<Vec<D>>& v, const GroupContact<D>& c) {
        return dot(v[c.a] - v[c.b], c.normal); // u < 0: approaching
    }

    // One contact: the closed forms of collide.hpp, in the frame of a wall if there is one.
    void resolve_pair(std::span<const GroupBody<D>> bodies, const GroupContact<D>& c,
                      GroupResult<D>& out) const {
        if (!(approach_speed(out.velocities, c) < 0.0)) return; // separating: nothing to do
        Vec<D>& va = out.velocities[c.a];
        Vec<D>& vb = out.velocities[c.b];
        if (bodies[c.a].is_wall() || bodies[c.b].is_wall()) {
            // Wall reflection about the normal pointing into the body, v' = v - (1+e)(v.n)n,
            // in the wall's rest frame.
            const bool a_is_wall = bodies[c.a].is_wall();
            const Vec<D>& w = a_is_wall ? va : vb;
            Vec<D>& v = a_is_wall ? vb : va;
            Wall<D> wall;
            wall.normal = a_is_wall ? -c.normal : c.normal;
            wall.restitution = c.restitution;
            Vec<D> relative = v - w;
            const Vec<D> dp =
                wall_collision(wall, relative, (a_is_wall ? bodies[c.b] : bodies[c.a]).mass);
            v = relative + w;
            out.impulses[0] = a_is_wall ? -dp : dp;
            return;
        }
        out.impulses[0] =
            binary_collision(c.normal, va, vb, bodies[c.a].mass, bodies[c.b].mass, c.restitution)
                .dp;
    }

    // The rounds of simultaneous solves described at the top. False when the answer must
    // come from the sequential fallback instead.
    bool resolve_in_rounds(std::span<const GroupBody<D>> bodies,
                           std::span<const GroupContact<D>> contacts, double rank_tolerance,
                           GroupResult<D>& out) {
        const int max_rounds = 2 * static_cast<int>(contacts.size()) + 4;
        for (; out.rounds < max_rounds; ++out.rounds) {
            bool approaching = false;
            active_.clear();
            for (std::uint32_t k = 0; k < contacts.size(); ++k) {
                const double u = approach_speed(out.velocities, contacts[k]);
                approaching = approaching || u < -approach_floor_;
                if (u <= approach_floor_) active_.push_back(k);
            }
            if (!approaching) return true;
            for (;;) {
                const GaussJordanResult solved =
                    solve_active(bodies, contacts, out.velocities, rank_tolerance);
                ++out.solves;
                if (!solved.consistent) return false;
                out.singular = out.singular || solved.rank < system_size_;
                out.sparse_solves += sparse_solved_ ? 1 : 0;
                // lambda = J.n of the p-th active contact.
                const auto pulls = [&](std::uint32_t p) {
                    return dot(impulse_of(p), contacts[active_[p]].normal) < -impulse_floor_;
                };
                const std::size_t before = active_.size();
                // Impulses are read by position in active_, so filter into a copy.
                kept_.clear();
                for (std::uint32_t p = 0; p < active_.size(); ++p)
                    if (!pulls(p)) kept_.push_back(active_[p]);
                if (kept_.size() == before) break;
                active_.swap(kept_);
            }
            // Progress needs an approaching contact among the active ones; without one the
            // next round would start from the same state.
            bool progress = false;
            for (std::uint32_t k : active_)
                progress =
                    progress || approach_speed(out.velocities, contacts[k]) < -approach_floor_;
            if (!progress) return false;
            for (std::size_t i = 0; i < bodies.size(); ++i)
                if (slot_[i] >= 0)
                    out.velocities[i] = velocity_of(static_cast<std::size_t>(slot_[i]));
            for (std::size_t p = 0; p < active_.size(); ++p)
                out.impulses[active_[p]] += impulse_of(static_cast<std::uint32_t>(p));
        }
        return false;
    }

    // Builds and solves the system for the contacts in active_, from velocities v.
    GaussJordanResult solve_active(std::span<const GroupBody<D>> bodies,
                                   std::span<const GroupContact<D>> contacts,
                                   const std::vector<Vec<D>>& v, double rank_tolerance) {
        // Unknowns: D per finite body that an active contact touches (its slot), then D
        // per active contact. The other bodies keep their velocities and stay out of the
        // system: a group found by contact (a pile, a tree of touching bodies) can hold
        // far more bodies than the contacts a round works on, and the dense elimination
        // costs the cube of the system's size (a tree of 400 discs took 3.7 s, almost
        // all of it on the identity rows of bodies no active contact touched). Impulses
        // are solved as j = J / m_ref with m_ref the lightest mass of the group, so that
        // every coefficient is at most 1 in size and the relative rank tolerance means
        // the same for any mass unit.
        constexpr int touched = -2;
        slot_.assign(bodies.size(), -1);
        for (std::uint32_t k : active_)
            for (std::uint32_t body : {contacts[k].a, contacts[k].b})
                if (!bodies[body].is_wall()) slot_[body] = touched;
        std::size_t finite = 0;
        m_ref_ = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            if (bodies[i].is_wall()) continue;
            m_ref_ = std::min(m_ref_, bodies[i].mass);
            if (slot_[i] == touched) slot_[i] = static_cast<int>(finite++);
        }
        impulse_column_ = D * finite;
        system_size_ = D * (finite + active_.size());
        sparse_solved_ = false;
        if (active_.size() >= sparse_from_) {
            sparse_solved_ = true;
            return solve_sparse(bodies, contacts, v, rank_tolerance);
        }
        gauss_jordan_.reset(system_size_);
        auto& gj = gauss_jordan_;

        // Momentum rows divided by m_i: v_i' - (m_ref / m_i) (sum_a j_k - sum_b j_k) = v_i.
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            if (slot_[i] < 0) continue;
            const std::size_t row = D * static_cast<std::size_t>(slot_[i]);
            for (int x = 0; x < D; ++x) {
                gj.a(row + x, row + x) = 1.0;
                gj.b(row + x) = v[i][x];
            }
        }
        for (std::size_t p = 0; p < active_.size(); ++p) {
            const GroupContact<D>& c = contacts[active_[p]];
            const std::size_t column = impulse_column_ + D * p;
            for (const auto& [body, sign] : {std::pair{c.a, -1.0}, std::pair{c.b, 1.0}}) {
                if (slot_[body] < 0) continue;
                const std::size_t row = D * static_cast<std::size_t>(slot_[body]);
                for (int x = 0; x < D; ++x)
                    gj.a(row + x, column + x) = sign * m_ref_ / bodies[body].mass;
            }
            // Restitution row: n.v_a' - n.v_b' = -e u; a wall's fixed velocity goes right.
            const std::size_t row = column;
            double rhs = -c.restitution * approach_speed(v, c);
            for (const auto& [body, sign] : {std::pair{c.a, 1.0}, std::pair{c.b, -1.0}}) {
                if (slot_[body] < 0) {
                    rhs -= sign * dot(v[body], c.normal);
                    continue;
                }
                const std::size_t col = D * static_cast<std::size_t>(slot_[body]);
                for (int x = 0; x < D; ++x) gj.a(row, col + x) = sign * c.normal[x];
            }
            gj.b(row) = rhs;
            // Tangential rows: t_s . j = 0.
            const auto tangents = tangent_basis(c.normal);
            for (int s = 0; s < D - 1; ++s)
                for (int x = 0; x < D; ++x) gj.a(row + 1 + s, column + x) = tangents[s][x];
        }
        return gj.solve(rank_tolerance);
    }

    // The Delassus form (top of the file) of the active contacts, scaled like the dense
    // system: A' = m_ref A (entries m_ref / m_i <= 1 per shared body) and lambda' =
    // lambda / m_ref, so A' lambda' = -(1 + e) u. Writes the unknowns in the dense
    // layout into solution_. With dependent normals (A singular) the solution is the
    // basic one (sparse_ldlt.hpp): the impulses of the dependent contacts are 0, and the
    // rank and consistency are reported as the dense elimination reports them.
    GaussJordanResult solve_sparse(std::span<const GroupBody<D>> bodies,
                                   std::span<const GroupContact<D>> contacts,
                                   const std::vector<Vec<D>>& v, double consistency) {
        const std::size_t k_active = active_.size();
        // The active contacts at each finite body, with the sign s of the body in them:
        // CSR lists incidence_[incidence_start_[slot] ...].
        incidence_start_.assign(impulse_column_ / D + 1, 0);
        for (std::uint32_t k : active_)
            for (std::uint32_t body : {contacts[k].a, contacts[k].b})
                if (slot_[body] >= 0) ++incidence_start_[static_cast<std::size_t>(slot_[body]) + 1];
        for (std::size_t s = 1; s < incidence_start_.size(); ++s)
            incidence_start_[s] += incidence_start_[s - 1];
        incidence_.resize(incidence_start_.back());
        fill_ = incidence_start_;
        for (std::size_t p = 0; p < k_active; ++p) {
            const GroupContact<D>& c = contacts[active_[p]];
            for (const auto& [body, sign] : {std::pair{c.a, 1.0}, std::pair{c.b, -1.0}})
                if (slot_[body] >= 0)
                    incidence_[fill_[static_cast<std::size_t>(slot_[body])]++] = {p, sign};
        }
        // Pattern: every pair of contacts at one body.
        pattern_.clear();
        for (std::size_t s = 0; s + 1 < incidence_start_.size(); ++s)
            for (std::size_t x = incidence_start_[s]; x < incidence_start_[s + 1]; ++x)
                for (std::size_t y = incidence_start_[s]; y < x; ++y)
                    pattern_.emplace_back(incidence_[x].first, incidence_[y].first);
        ldlt_.reset(k_active, pattern_);
        // A'_pq = sum over shared finite bodies i of s_p s_q (n_p . n_q) m_ref / m_i.
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            if (slot_[i] < 0) continue;
            const auto s = static_cast<std::size_t>(slot_[i]);
            const double w = m_ref_ / bodies[i].mass;
            for (std::size_t x = incidence_start_[s]; x < incidence_start_[s + 1]; ++x) {
                const auto [p, sp] = incidence_[x];
                const Vec<D>& np = contacts[active_[p]].normal;
                for (std::size_t y = incidence_start_[s]; y <= x; ++y) {
                    const auto [q, sq] = incidence_[y];
                    ldlt_.add(p, q, sp * sq * w * dot(np, contacts[active_[q]].normal));
                }
            }
        }
        const std::size_t rank = ldlt_.factorize(sparse_pivot_);
        rhs_.resize(k_active);
        for (std::size_t p = 0; p < k_active; ++p) {
            const GroupContact<D>& c = contacts[active_[p]];
            rhs_[p] = -(1.0 + c.restitution) * approach_speed(v, c);
        }
        const bool consistent = ldlt_.solve(rhs_, lambda_, consistency);
        // v_i' = v_i + (m_ref / m_i) sum_p s_p lambda'_p n_p; j_p = lambda'_p n_p.
        solution_.assign(system_size_, 0.0);
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            if (slot_[i] < 0) continue;
            const auto s = static_cast<std::size_t>(slot_[i]);
            Vec<D> dv{};
            for (std::size_t x = incidence_start_[s]; x < incidence_start_[s + 1]; ++x) {
                const auto [p, sp] = incidence_[x];
                dv += contacts[active_[p]].normal * (sp * lambda_[p]);
            }
            const Vec<D> vi = v[i] + dv * (m_ref_ / bodies[i].mass);
            for (int x = 0; x < D; ++x) solution_[D * s + x] = vi[x];
        }
        for (std::size_t p = 0; p < k_active; ++p)
            for (int x = 0; x < D; ++x)
                solution_[impulse_column_ + D * p + x] =
                    lambda_[p] * contacts[active_[p]].normal[x];
        // Each dependent contact (a dropped pivot) is one dependent row of the system.
        return {system_size_ - (k_active - rank), consistent};
    }

    double unknown(std::size_t u) const {
        return sparse_solved_ ? solution_[u] : gauss_jordan_.x(u);
    }
    Vec<D> velocity_of(std::size_t slot) const {
        Vec<D> v;
        for (int x = 0; x < D; ++x) v[x] = unknown(D * slot + x);
        return v;
    }
    // The impulse of the p-th active contact, back in mass units: J = m_ref j.
    Vec<D> impulse_of(std::uint32_t p) const {
        Vec<D> j;
        for (int x = 0; x < D; ++x) j[x] = m_ref_ * unknown(impulse_column_ + D * p + x);
        return j;
    }

    // D - 1 unit vectors orthogonal to n and to each other. 3D: the branch-free basis of
    // Duff et al., "Building an orthonormal basis, revisited" (JCGT 2017).
    static std::array<Vec<D>, D - 1> tangent_basis(const Vec<D>& n) {
        std::array<Vec<D>, D - 1> t;
        if constexpr (D == 2) {
            t[0] = Vec<2>{{-n[1], n[0]}};
        } else {
            const double sign = std::copysign(1.0, n[2]);
            const double a = -1.0 / (sign + n[2]);
            const double b = n[0] * n[1] * a;
            t[0] = Vec<3>{{1.0 + sign * n[0] * n[0] * a, sign * b, -sign * n[0]}};
            t[1] = Vec<3>{{b, sign + n[1] * n[1] * a, -n[1]}};
        }
        return t;
    }

    // The sequential plastic fallback described at the top, from the velocities before.
    // A step changes the velocities of two bodies only, so only the approach speeds of
    // the contacts at those bodies change: they are kept per contact, with a tournament
    // tree over them whose root is the most approaching contact (ties to the lowest
    // index, as a scan in index order would choose). A step costs O(d log K) for
    // contacts of degree d instead of a scan of all K: a pile of 1600 discs with random
    // masses between two walls needs millions of steps.
    void resolve_sequentially(std::span<const GroupBody<D>> bodies,
                              std::span<const GroupContact<D>> contacts,
                              GroupResult<D>& out) const {
        out.fallback = true;
        for (std::size_t i = 0; i < bodies.size(); ++i) out.velocities[i] = bodies[i].velocity;
        out.impulses.assign(contacts.size(), Vec<D>{});
        const std::size_t k_count = contacts.size();
        // The contacts at each finite body (CSR); a wall's velocity never changes.
        std::vector<std::size_t> start(bodies.size() + 1, 0);
        for (const GroupContact<D>& c : contacts)
            for (std::uint32_t body : {c.a, c.b})
                if (!bodies[body].is_wall()) ++start[body + 1];
        for (std::size_t i = 0; i < bodies.size(); ++i) start[i + 1] += start[i];
        std::vector<std::uint32_t> at(start.back());
        {
            std::vector<std::size_t> fill(start.begin(), start.end() - 1);
            for (std::uint32_t k = 0; k < k_count; ++k)
                for (std::uint32_t body : {contacts[k].a, contacts[k].b})
                    if (!bodies[body].is_wall()) at[fill[body]++] = k;
        }
        // u[k] for each contact, and u[k_count] = inf for the padding leaves. A NaN speed
        // counts as inf: it is never the most approaching (the scan's strict < skips it).
        std::vector<double> u(k_count + 1, std::numeric_limits<double>::infinity());
        const auto speed_of = [&](std::size_t k) {
            const double s = approach_speed(out.velocities, contacts[k]);
            return std::isnan(s) ? std::numeric_limits<double>::infinity() : s;
        };
        std::size_t leaves = 1;
        while (leaves < k_count) leaves *= 2;
        std::vector<std::uint32_t> tree(2 * leaves, static_cast<std::uint32_t>(k_count));
        // The left child holds the lower indices: preferring it on ties keeps the lowest.
        const auto better = [&](std::uint32_t left, std::uint32_t right) {
            return u[right] < u[left] ? right : left;
        };
        for (std::uint32_t k = 0; k < k_count; ++k) {
            u[k] = speed_of(k);
            tree[leaves + k] = k;
        }
        for (std::size_t n = leaves - 1; n >= 1; --n)
            tree[n] = better(tree[2 * n], tree[2 * n + 1]);
        const auto update = [&](std::uint32_t k) {
            u[k] = speed_of(k);
            for (std::size_t n = (leaves + k) / 2; n >= 1; n /= 2)
                tree[n] = better(tree[2 * n], tree[2 * n + 1]);
        };
        // Linear convergence makes this cap (each step O(d log K)) a safety net only.
        const std::size_t max_steps = fallback_steps_per_contact * k_count + fallback_steps_base;
        for (std::size_t step = 0;; ++step) {
            const std::uint32_t worst = tree[1]; // the root
            const double u_worst = u[worst];
            if (!(u_worst < -approach_floor_)) return;
            if (step == max_steps) {
                out.unresolved = true;
                return;
            }
            const GroupContact<D>& c = contacts[worst];
            const double inv_a = bodies[c.a].inverse_mass(), inv_b = bodies[c.b].inverse_mass();
            // e = 0 along n: u' = 0 needs lambda (1/m_a + 1/m_b) = -u.
            const Vec<D> impulse = c.normal * (-u_worst / (inv_a + inv_b));
            out.velocities[c.a] += impulse * inv_a;
            out.velocities[c.b] -= impulse * inv_b;
            out.impulses[worst] += impulse;
            for (std::uint32_t body : {c.a, c.b})
                if (!bodies[body].is_wall())
                    for (std::size_t p = start[body]; p < start[body + 1]; ++p) update(at[p]);
        }
    }

    GaussJordan gauss_jordan_;
    SparseLdlt ldlt_;
    std::vector<std::size_t> incidence_start_, fill_;
    std::vector<std::pair<std::size_t, double>> incidence_; // (active position, sign)
    std::vector<std::pair<std::size_t, std::size_t>> pattern_;
    std::vector<double> rhs_, lambda_, solution_;
    std::size_t system_size_ = 0, sparse_from_ = group_sparse_from;
    double sparse_pivot_ = group_sparse_pivot;
    bool sparse_solved_ = false;
    std::vector<int> slot_;
    std::vector<std::uint32_t> active_, kept_;
    std::size_t impulse_column_ = 0;
    double m_ref_ = 1.0;
    double approach_floor_ = 0.0, impulse_floor_ = 0.0;
};

// One group, with a solver of its own (the engine keeps a GroupSolver instead).
template <int D>
GroupResult<D> resolve_group(std::span<const GroupBody<D>> bodies,
                             std::span<const GroupContact<D>> contacts,
                             const GroupTolerances& tolerances = {}) {
    return GroupSolver<D>().resolve(bodies, contacts, tolerances);
}

// Compiled once, in lib/choc/kernel/kernel_groups.cpp (explicit instantiations), and linked:
// not again in every source that includes this header. Members defined in the class are
// still inlined where they are called.
extern template class GroupSolver<2>;
extern template class GroupSolver<3>;

} // namespace choc
