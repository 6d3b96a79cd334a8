// The two panels of `choc contact --plot` with Cairo, written to memory and then to the
// file atomically, as the collision plot is.
#include "choc/contact/contact_plot.hpp"

#include "choc/plot/image_file.hpp"

#include <cairo.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace choc {
// Named, not anonymous: the two plots' layouts share names and may be compiled in one
// unity file.
namespace contact_drawing {

constexpr double panel = 480.0; // px, each of the two square panels
constexpr double title = 40.0;  // px, the band above them
constexpr double width = 2 * panel, height = panel + title;
constexpr double margin_left = 64, margin_right = 16, margin_top = 16, margin_bottom = 48;

// Okabe and Ito's colour-blind-safe palette, one colour per method (the exact curve black).
constexpr std::array<std::array<double, 3>, 5> palette = {{{0.90, 0.62, 0.00},
                                                           {0.00, 0.45, 0.70},
                                                           {0.00, 0.62, 0.45},
                                                           {0.84, 0.37, 0.00},
                                                           {0.80, 0.47, 0.65}}};

// Data (x, y) to device pixels of one panel's plotting area.
struct Axes {
    double left, x0, x1, y0, y1; // left edge of the panel; data ranges
    double px(double x) const {
        return left + margin_left + (x - x0) / (x1 - x0) * (panel - margin_left - margin_right);
    }
    double py(double y) const {
        return title + panel - margin_bottom -
               (y - y0) / (y1 - y0) * (panel - margin_top - margin_bottom);
    }
};

class Drawing {
  public:
    Drawing(const ContactReport& r, cairo_t* cr) : r_(r), cr_(cr) {}

    void draw() {
        cairo_set_source_rgb(cr_, 1, 1, 1);
        cairo_paint(cr_);
        cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                               CAIRO_FONT_WEIGHT_NORMAL);
        overlap_panel();
        error_panel();
    }

  private:
    void text(double x, double y, const std::string& s, double size, double align_x,
              double align_y = 0.5) {
        cairo_set_font_size(cr_, size);
        cairo_text_extents_t e;
        cairo_text_extents(cr_, s.c_str(), &e);
        cairo_move_to(cr_, x - align_x * e.width - e.x_bearing,
                      y - align_y * e.height - e.y_bearing);
        cairo_show_text(cr_, s.c_str());
    }

    void colour(std::size_t i) {
        const auto& c = palette[i % palette.size()];
        cairo_set_source_rgb(cr_, c[0], c[1], c[2]);
    }

    void frame(const Axes& a, const std::string& heading, const std::string& x_label,
               const std::string& y_label) {
        cairo_set_source_rgb(cr_, 0, 0, 0);
        cairo_set_line_width(cr_, 1.0);
        cairo_rectangle(cr_, a.px(a.x0), a.py(a.y1), a.px(a.x1) - a.px(a.x0),
                        a.py(a.y0) - a.py(a.y1));
        cairo_stroke(cr_);
        cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
        text(a.left + panel / 2, title / 2, heading, 14, 0.5);
        cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                               CAIRO_FONT_WEIGHT_NORMAL);
        text(0.5 * (a.px(a.x0) + a.px(a.x1)), title + panel - 14, x_label, 12, 0.5);
        cairo_save(cr_);
        cairo_translate(cr_, a.left + 14, 0.5 * (a.py(a.y0) + a.py(a.y1)));
        cairo_rotate(cr_, -M_PI / 2);
        text(0, 0, y_label, 12, 0.5);
        cairo_restore(cr_);
    }

    void tick(const Axes& a, double x, double y, const std::string& label, bool on_x) {
        cairo_set_source_rgb(cr_, 0, 0, 0);
        if (on_x) {
            cairo_move_to(cr_, a.px(x), a.py(a.y0));
            cairo_line_to(cr_, a.px(x), a.py(a.y0) - 5);
            cairo_stroke(cr_);
            text(a.px(x), a.py(a.y0) + 12, label, 11, 0.5);
        } else {
            cairo_move_to(cr_, a.px(a.x0), a.py(y));
            cairo_line_to(cr_, a.px(a.x0) + 5, a.py(y));
            cairo_stroke(cr_);
            text(a.px(a.x0) - 6, a.py(y), label, 11, 1.0);
        }
    }

    void legend(double x, double y, std::size_t i, const std::string& label, bool exact) {
        if (exact)
            cairo_set_source_rgb(cr_, 0, 0, 0);
        else
            colour(i);
        cairo_set_line_width(cr_, 2.0);
        cairo_move_to(cr_, x, y);
        cairo_line_to(cr_, x + 22, y);
        cairo_stroke(cr_);
        cairo_set_source_rgb(cr_, 0, 0, 0);
        text(x + 28, y, label, 11, 0.0);
    }

    // delta / delta_max against t / t_c: the exact curve and each method's steps.
    void overlap_panel() {
        const SpringDashpot& m = r_.model;
        const double tc = m.contact_time(), dmax = m.max_overlap();
        double hi = 1.0, lo = 0.0, t_end = 1.0;
        for (const MethodStudy& s : r_.methods)
            for (const ContactState& p : s.plot_steps) {
                hi = std::max(hi, p.overlap / dmax);
                lo = std::min(lo, p.overlap / dmax);
                t_end = std::max(t_end, p.time / tc);
            }
        const Axes a{0.0, 0.0, std::ceil(t_end * 10) / 10, std::min(lo, -0.1), hi * 1.08};
        // A thinned series (contact_study.hpp, max_plot_points) says so in the heading.
        std::size_t stride = 1;
        for (const MethodStudy& s : r_.methods) stride = std::max(stride, s.plot_stride);
        const std::string thinned = stride > 1 ? fmt::format(", 1 step in {} drawn", stride) : "";
        frame(a, fmt::format("overlap at dt = t_c / {}{}", r_.file.plot_steps, thinned), "t / t_c",
              "delta / delta_max");
        for (double x = 0; x <= a.x1 + 1e-9; x += 0.2)
            tick(a, x, 0, fmt::format("{:.1f}", x), true);
        for (double y = 0; y <= a.y1; y += 0.25) tick(a, 0, y, fmt::format("{:.2f}", y), false);
        cairo_save(cr_);
        cairo_rectangle(cr_, a.px(a.x0), a.py(a.y1), a.px(a.x1) - a.px(a.x0),
                        a.py(a.y0) - a.py(a.y1));
        cairo_clip(cr_);
        cairo_set_source_rgb(cr_, 0.6, 0.6, 0.6);
        cairo_set_line_width(cr_, 0.8);
        cairo_move_to(cr_, a.px(a.x0), a.py(0));
        cairo_line_to(cr_, a.px(a.x1), a.py(0));
        cairo_stroke(cr_);
        // The exact curve, sampled finely.
        cairo_set_source_rgb(cr_, 0, 0, 0);
        cairo_set_line_width(cr_, 2.0);
        for (int i = 0; i <= 400; ++i) {
            const double x = a.x1 * i / 400.0;
            const double y = m.overlap(x * tc) / dmax;
            if (i == 0)
                cairo_move_to(cr_, a.px(x), a.py(y));
            else
                cairo_line_to(cr_, a.px(x), a.py(y));
        }
        cairo_stroke(cr_);
        for (std::size_t k = 0; k < r_.methods.size(); ++k) {
            colour(k);
            cairo_set_line_width(cr_, 1.5);
            const auto& steps = r_.methods[k].plot_steps;
            for (std::size_t i = 0; i < steps.size(); ++i) {
                const double x = a.px(steps[i].time / tc), y = a.py(steps[i].overlap / dmax);
                if (i == 0)
                    cairo_move_to(cr_, x, y);
                else
                    cairo_line_to(cr_, x, y);
            }
            cairo_stroke(cr_);
            // A marker stands for a step: none on a thinned series, whose points are not
            // the steps (and would merge into a band anyway).
            if (r_.methods[k].plot_stride > 1) continue;
            for (const ContactState& p : steps) {
                cairo_arc(cr_, a.px(p.time / tc), a.py(p.overlap / dmax), 3.0, 0, 2 * M_PI);
                cairo_fill(cr_);
            }
        }
        cairo_restore(cr_);
        double y = a.py(a.y1) + 14;
        legend(a.px(a.x1) - 150, y, 0, "exact", true);
        for (std::size_t k = 0; k < r_.methods.size(); ++k)
            legend(a.px(a.x1) - 150, y += 16, k, std::string(info(r_.methods[k].method).name),
                   false);
    }

    // log10 of the largest overlap error / delta_max against log10(dt / t_c), with the
    // least-squares line over the fit range and its slope.
    void error_panel() {
        const SpringDashpot& m = r_.model;
        const double tc = m.contact_time(), dmax = m.max_overlap();
        double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
        for (const MethodStudy& s : r_.methods)
            for (const ContactRun& run : s.runs) {
                const double x = std::log10(run.dt / tc);
                x0 = std::min(x0, x), x1 = std::max(x1, x);
                if (run.max_error_overlap > 0) {
                    const double y = std::log10(run.max_error_overlap / dmax);
                    y0 = std::min(y0, y), y1 = std::max(y1, y);
                }
            }
        if (!(y1 >= y0)) y0 = -1, y1 = 0;
        const Axes a{panel, std::floor(x0 * 10) / 10 - 0.05, std::ceil(x1 * 10) / 10 + 0.05,
                     std::floor(y0), std::ceil(y1 + 0.3)};
        frame(a, "largest overlap error", "dt / t_c", "max |delta error| / delta_max");
        for (int d = static_cast<int>(std::ceil(a.y0)); d <= a.y1; ++d)
            tick(a, a.x0, d, fmt::format("1e{}", d), false);
        for (double n : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0}) {
            const double x = std::log10(1.0 / n);
            if (x >= a.x0 && x <= a.x1) tick(a, x, a.y0, fmt::format("1/{:g}", n), true);
        }
        cairo_save(cr_);
        cairo_rectangle(cr_, a.px(a.x0), a.py(a.y1), a.px(a.x1) - a.px(a.x0),
                        a.py(a.y0) - a.py(a.y1));
        cairo_clip(cr_);
        for (std::size_t k = 0; k < r_.methods.size(); ++k) {
            const MethodStudy& s = r_.methods[k];
            colour(k);
            for (const ContactRun& run : s.runs) {
                if (!(run.max_error_overlap > 0)) continue;
                cairo_arc(cr_, a.px(std::log10(run.dt / tc)),
                          a.py(std::log10(run.max_error_overlap / dmax)), 3.5, 0, 2 * M_PI);
                cairo_fill(cr_);
            }
            if (!s.order_overlap) continue;
            // The fitted line: through the mean of the fitted points, slope p.
            double mx = 0, my = 0, count = 0;
            for (const ContactRun& run : s.runs)
                if (std::find(s.fit_steps.begin(), s.fit_steps.end(), run.steps_per_contact) !=
                    s.fit_steps.end()) {
                    mx += std::log10(run.dt / tc);
                    my += std::log10(run.max_error_overlap / dmax);
                    ++count;
                }
            mx /= count, my /= count;
            cairo_set_line_width(cr_, 1.5);
            cairo_move_to(cr_, a.px(a.x0), a.py(my + *s.order_overlap * (a.x0 - mx)));
            cairo_line_to(cr_, a.px(a.x1), a.py(my + *s.order_overlap * (a.x1 - mx)));
            cairo_stroke(cr_);
        }
        cairo_restore(cr_);
        // Top left: the small dt and large error corner, which the lines leave empty.
        double y = a.py(a.y1) - 2;
        for (std::size_t k = 0; k < r_.methods.size(); ++k) {
            const MethodStudy& s = r_.methods[k];
            const std::string slope =
                s.order_overlap ? fmt::format("slope {:.2f}", *s.order_overlap) : "no fit";
            legend(a.px(a.x0) + 10, y += 16, k, std::string(info(s.method).name) + ": " + slope,
                   false);
        }
    }

    const ContactReport& r_;
    cairo_t* cr_;
};

} // namespace contact_drawing

void write_contact_plot(const ContactReport& report, const std::string& path) {
    using namespace contact_drawing;
    write_image(path, width, height, [&](cairo_t* cr) { Drawing(report, cr).draw(); });
}

} // namespace choc
