// The before/after plot of a collision group with Cairo: one image surface (PNG) or SVG
// surface, written to memory and then to the file atomically.
#include "choc/collide/collision_plot.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/plot/image_file.hpp"

#include <cairo.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>

namespace choc {
// Named, not anonymous: the two plots' layouts share names and may be compiled in one
// unity file.
namespace collision_drawing {

constexpr double panel = 480.0; // px, each of the two square panels
constexpr double title = 40.0;  // px, the band above them
constexpr double width = 2 * panel, height = panel + title;

// Colour-blind-safe qualitative palette (Okabe and Ito), cycled over the bodies.
constexpr std::array<std::array<double, 3>, 7> palette = {{{0.00, 0.45, 0.70},
                                                           {0.90, 0.62, 0.00},
                                                           {0.00, 0.62, 0.45},
                                                           {0.80, 0.47, 0.65},
                                                           {0.34, 0.71, 0.91},
                                                           {0.84, 0.37, 0.00},
                                                           {0.94, 0.89, 0.26}}};

struct Point {
    double x, y;
};

// World (x-y plane of the group) to device pixels of one panel: uniform scale, y up.
struct View {
    double x0, y0, scale, left;
    Point operator()(double x, double y) const {
        return {left + (x - x0) * scale, title + panel - (y - y0) * scale};
    }
};

class Drawing {
  public:
    Drawing(const CollisionReport& r, cairo_t* cr) : r_(r), cr_(cr) {
        // Arrows: the fastest body's arrow is one largest diameter long.
        double fastest = 0.0, largest = 0.0;
        for (const auto& b : r.bodies) {
            fastest = std::max({fastest, speed(b.velocity_before), speed(b.velocity_after)});
            largest = std::max(largest, b.radius);
        }
        arrow_ = fastest > 0 ? 2.0 * largest / fastest : 0.0;
        // Bounds: every disc and every arrow tip of both panels, with a margin.
        double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
        for (const auto& b : r.bodies) {
            const double x = b.position[0], y = b.position[1];
            lo_x = std::min(lo_x, x - b.radius), hi_x = std::max(hi_x, x + b.radius);
            lo_y = std::min(lo_y, y - b.radius), hi_y = std::max(hi_y, y + b.radius);
            for (const auto* v : {&b.velocity_before, &b.velocity_after}) {
                lo_x = std::min(lo_x, x + arrow_ * (*v)[0]),
                hi_x = std::max(hi_x, x + arrow_ * (*v)[0]);
                lo_y = std::min(lo_y, y + arrow_ * (*v)[1]),
                hi_y = std::max(hi_y, y + arrow_ * (*v)[1]);
            }
        }
        const double span = std::max(hi_x - lo_x, hi_y - lo_y) * 1.15;
        const double cx = 0.5 * (lo_x + hi_x), cy = 0.5 * (lo_y + hi_y);
        span_ = span;
        x0_ = cx - 0.5 * span;
        y0_ = cy - 0.5 * span;
    }

    void draw() {
        cairo_set_source_rgb(cr_, 1, 1, 1);
        cairo_paint(cr_);
        for (int p = 0; p < 2; ++p) draw_panel(View{x0_, y0_, panel / span_, p * panel}, p == 1);
        cairo_set_source_rgb(cr_, 0.6, 0.6, 0.6);
        cairo_set_line_width(cr_, 1.0);
        cairo_move_to(cr_, panel, title);
        cairo_line_to(cr_, panel, height);
        cairo_stroke(cr_);
    }

  private:
    static double speed(const std::vector<double>& v) { return std::hypot(v[0], v[1]); }

    void text(double x, double y, const std::string& s, double size, bool centred) {
        cairo_set_font_size(cr_, size);
        cairo_text_extents_t extents;
        cairo_text_extents(cr_, s.c_str(), &extents);
        cairo_move_to(cr_, centred ? x - extents.width / 2 - extents.x_bearing : x,
                      centred ? y - extents.height / 2 - extents.y_bearing : y);
        cairo_show_text(cr_, s.c_str());
    }

    void draw_panel(const View& view, bool after) {
        cairo_save(cr_);
        cairo_rectangle(cr_, view.left, title, panel, panel);
        cairo_clip(cr_);
        for (const auto& wall : r_.walls) draw_wall(view, wall);
        for (std::size_t i = 0; i < r_.bodies.size(); ++i) draw_body(view, i, after);
        // Contact points: on body a's surface, towards b.
        cairo_set_source_rgb(cr_, 0, 0, 0);
        for (const auto& c : r_.contacts) {
            const auto& a = r_.bodies[c.a];
            const Point q = view(a.position[0] - a.radius * c.normal[0],
                                 a.position[1] - a.radius * c.normal[1]);
            cairo_new_path(cr_);
            cairo_arc(cr_, q.x, q.y, 2.5, 0, 2 * std::numbers::pi);
            cairo_fill(cr_);
        }
        cairo_restore(cr_);

        cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
        cairo_set_source_rgb(cr_, 0, 0, 0);
        std::string heading = after ? "after" : "before";
        if (r_.dimension == 3) heading += " (x-y projection)";
        text(view.left + panel / 2, title / 2, heading, 16, true);
    }

    void draw_wall(const View& view, const GroupFileWall& wall) {
        // The plane's trace in the x-y plane; a wall parallel to that plane has none.
        const double nx = wall.normal[0], ny = wall.normal[1];
        const double n = std::hypot(nx, ny);
        if (n < 1e-12) return;
        const double ux = nx / n, uy = ny / n, tx = -uy, ty = ux;
        // 3D: the trace of the plane in z = 0, n_x x + n_y y = n . p, through the point
        // nearest the wall's point: (p_x, p_y) + s u with s = n_z p_z / |n_xy|.
        const double shift = wall.normal.size() == 3 ? wall.normal[2] * wall.point[2] / n : 0.0;
        const double px = wall.point[0] + shift * ux, py = wall.point[1] + shift * uy;
        const double far = 10 * span_;
        // The forbidden side, shaded; the plane, a thick line.
        const Point corners[4] = {view(px + far * tx, py + far * ty),
                                  view(px - far * tx, py - far * ty),
                                  view(px - far * tx - far * ux, py - far * ty - far * uy),
                                  view(px + far * tx - far * ux, py + far * ty - far * uy)};
        cairo_move_to(cr_, corners[0].x, corners[0].y);
        for (int k = 1; k < 4; ++k) cairo_line_to(cr_, corners[k].x, corners[k].y);
        cairo_close_path(cr_);
        cairo_set_source_rgb(cr_, 0.88, 0.88, 0.88);
        cairo_fill(cr_);
        cairo_move_to(cr_, corners[0].x, corners[0].y);
        cairo_line_to(cr_, corners[1].x, corners[1].y);
        cairo_set_source_rgb(cr_, 0.3, 0.3, 0.3);
        cairo_set_line_width(cr_, 3.0);
        cairo_stroke(cr_);
    }

    void draw_body(const View& view, std::size_t i, bool after) {
        const auto& b = r_.bodies[i];
        const auto& colour = palette[i % palette.size()];
        const Point c = view(b.position[0], b.position[1]);
        cairo_new_path(cr_); // text leaves a current point that arc would join with a line
        cairo_arc(cr_, c.x, c.y, b.radius * view.scale, 0, 2 * std::numbers::pi);
        cairo_set_source_rgba(cr_, colour[0], colour[1], colour[2], 0.25);
        cairo_fill_preserve(cr_);
        cairo_set_source_rgb(cr_, colour[0], colour[1], colour[2]);
        cairo_set_line_width(cr_, 1.5);
        cairo_stroke(cr_);

        const auto& v = after ? b.velocity_after : b.velocity_before;
        const Point tip = view(b.position[0] + arrow_ * v[0], b.position[1] + arrow_ * v[1]);
        const double length = std::hypot(tip.x - c.x, tip.y - c.y);
        if (length > 1.0) {
            const double dx = (tip.x - c.x) / length, dy = (tip.y - c.y) / length;
            const double head = std::min(10.0, 0.4 * length);
            cairo_set_source_rgb(cr_, 0.1, 0.1, 0.1);
            cairo_set_line_width(cr_, 2.0);
            cairo_move_to(cr_, c.x, c.y);
            cairo_line_to(cr_, tip.x - head * dx, tip.y - head * dy);
            cairo_stroke(cr_);
            cairo_move_to(cr_, tip.x, tip.y);
            cairo_line_to(cr_, tip.x - head * dx - 0.5 * head * dy,
                          tip.y - head * dy + 0.5 * head * dx);
            cairo_line_to(cr_, tip.x - head * dx + 0.5 * head * dy,
                          tip.y - head * dy - 0.5 * head * dx);
            cairo_close_path(cr_);
            cairo_fill(cr_);
        }
        cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                               CAIRO_FONT_WEIGHT_NORMAL);
        cairo_set_source_rgb(cr_, colour[0] * 0.6, colour[1] * 0.6, colour[2] * 0.6);
        text(c.x, c.y + std::min(0.5 * b.radius * view.scale, 18.0), std::to_string(i), 12, true);
    }

    const CollisionReport& r_;
    cairo_t* cr_;
    double arrow_ = 0.0, span_ = 1.0, x0_ = 0.0, y0_ = 0.0;
};

} // namespace collision_drawing

void write_collision_plot(const CollisionReport& report, const std::string& path) {
    using namespace collision_drawing;
    write_image(path, width, height, [&](cairo_t* cr) { Drawing(report, cr).draw(); });
}

} // namespace choc
