// Lees-Edwards sliding periodic boundaries: the geometry of a box periodic on every axis
// whose images above and below slide along the flow axis (x) at the velocity difference
// of a steady shear with rate gamma across the gradient axis (y).
//
// The image of the box one period up (y + L_y) is displaced along x by
//     delta(t) = gamma L_y t   (taken modulo L_x)
// and moves at +gamma L_y along x relative to the box; the image one period down by
// -delta(t) and -gamma L_y. A particle j seen through k periods up therefore sits at
//     x_j + k (delta(t), L_y, 0),   with velocity v_j + k (gamma L_y, 0, 0).
// delta is linear in t, so the image of a straight flight is a straight flight: a pair
// seen across the sliding face has its exact contact time from the separation and the
// relative velocity at one instant, as any other pair (predict.hpp).
//
// A particle that leaves through the top re-enters at the bottom as its own image one
// period down: y - L_y, x - delta(t), v_x - gamma L_y. Its separation from every other
// particle's nearest image, and its relative velocity to it, are unchanged by the move;
// its kinetic energy and x-momentum are not, which is the work the sliding boundary does
// on the fluid (Lees & Edwards, J. Phys. C 5, 1921, 1972).
#pragma once

#include "choc/kernel/vec.hpp"

#include <cmath>

namespace choc {

template <int D>
struct LeesEdwards {
    static_assert(D == 2 || D == 3);
    static constexpr int flow = 0;     // x: the direction of the sliding
    static constexpr int gradient = 1; // y: the axis across which the images slide

    Vec<D> length;     // the box's edges, periodic on every axis
    double rate = 0.0; // gamma: d u_x / d y of the steady shear
    // The offset is start_column column widths at time `origin` (0 and 0 at the start: the
    // images aligned); anchor_at_tick moves both to a recent tick, so that the clock's
    // round-off stays that of a recent time on a long run.
    double origin = 0.0;
    double start_offset = 0.0;
    int start_column = 0;

    // The relative velocity of the image one period up: gamma L_y.
    double sliding_speed() const { return rate * length[gradient]; }

    // delta(t) in [0, L_x): how far the image one period up is displaced along x.
    double offset(double t) const {
        double d = std::fmod(start_offset + sliding_speed() * (t - origin), length[flow]);
        if (d < 0.0) d += length[flow];
        return d;
    }

    // The displacement and the velocity of the image k periods up (k may be negative).
    Vec<D> image_shift(int k, double t) const {
        Vec<D> s{};
        s[flow] = k * offset(t);
        s[gradient] = k * length[gradient];
        return s;
    }
    Vec<D> image_velocity(int k) const {
        Vec<D> u{};
        u[flow] = k * sliding_speed();
        return u;
    }

    // The separation r = x_i - (x_j's nearest image) of two positions inside the box at
    // time t, and in `k` how many periods up that image is (0, +1 or -1): the pair's
    // relative velocity is v_i - v_j - image_velocity(k). The y period is taken first,
    // since it decides how far the image slid along x.
    Vec<D> minimum_image(Vec<D> r, double t, int& k) const {
        k = 0;
        const double ly = length[gradient];
        if (r[gradient] > 0.5 * ly)
            k = 1;
        else if (r[gradient] < -0.5 * ly)
            k = -1;
        if (k != 0) r -= image_shift(k, t);
        for (int a = 0; a < D; ++a) r[a] -= length[a] * std::nearbyint(r[a] / length[a]);
        return r;
    }

    // --- The cells across the sliding face ---------------------------------------------
    // Along x the box has n columns of cells of width w = L_x / n, w at least the contact
    // distance of any pair. Tick k is the k-th time from the origin at which the offset is a
    // whole number of columns; between ticks k and k + 1 the offset lies in [q w, (q+1) w)
    // with q = k (mod n) when the images slide forward (gamma > 0), q = -k - 1 backward.
    // Counting ticks in integers keeps q exact: no round-off of the offset decides it.
    double tick_time(long k, double w) const {
        return origin + static_cast<double>(k) * (w / std::abs(sliding_speed()));
    }
    // The tick at or before t (the start of the interval holding t).
    long tick_before(double t, double w) const {
        return static_cast<long>(std::floor((t - origin) * std::abs(sliding_speed()) / w));
    }

    // A particle in column c of the top row (dir = +1) meets, across the face, partners of
    // the bottom row whose images are slid by +delta: |x_i - x_j - delta| < w puts x_j in
    // columns c - q - 2 .. c - q + 1. In the bottom row (dir = -1), images slid by -delta,
    // columns c + q - 1 .. c + q + 2. Both are widened by one column on each side, so that
    // an offset a round-off outside [q w, (q+1) w) near a tick misses no one: the window is
    // `window_columns` consecutive columns from window_first(), taken modulo n, column u
    // being column u mod n seen (u - u mod n) / n periods along x. It holds every partner
    // from tick k until tick k + 1.
    static constexpr int window_columns = 6;
    int window_first(int c, int dir, long k, int n) const {
        const int q = column_offset(k, n);
        return dir > 0 ? c - q - 3 : c + q - 2;
    }
    // The offset at t in tick interval k, measured from q w, so that it agrees with the
    // window: in [q w, (q+1) w] up to round-off, never near L_x where offset() may put
    // an offset near 0, a whole period away from the window's images.
    double offset_in(long k, double t, double w, int n) const {
        const double from = column_offset(k, n) * w;
        const double since = t - tick_time(k, w);
        return rate >= 0.0 ? from + sliding_speed() * since : from + w + sliding_speed() * since;
    }

    // Counts ticks from tick k from now on (tick k becomes tick 0), with the same offsets
    // and windows: at tick k the offset is (start_column + k) columns, or (start_column - k)
    // backward, exactly.
    void anchor_at_tick(long k, double w, int n) {
        origin = tick_time(k, w);
        const long c = rate >= 0.0 ? start_column + k : start_column - k;
        start_column = static_cast<int>(((c % n) + n) % n);
        start_offset = start_column * w;
    }

  private:
    int column_offset(long k, int n) const {
        const long q = rate >= 0.0 ? start_column + k : start_column - k - 1;
        return static_cast<int>(((q % n) + n) % n);
    }

  public:
    // Moves a particle at x (velocity v), just out through the top (dir = +1) or the
    // bottom (dir = -1) of the gradient axis at time t, to its image inside the box.
    void reenter(Vec<D>& x, Vec<D>& v, int dir, double t) const {
        x -= image_shift(dir, t);
        v -= image_velocity(dir);
        x[flow] -= length[flow] * std::floor(x[flow] / length[flow]);
        if (x[flow] >= length[flow]) x[flow] = 0.0; // (-tiny) folded up to L_x by round-off
    }
};

} // namespace choc
