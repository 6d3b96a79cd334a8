#include "choc/plot/image_file.hpp"

#include "choc/errors.hpp"
#include "choc/io/atomic_file.hpp"
#include "choc/plot/plot_path.hpp"

#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>

namespace choc {
namespace {

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using Context = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

void draw_on(cairo_surface_t* surface, const std::function<void(cairo_t*)>& draw) {
    Context cr(cairo_create(surface), cairo_destroy);
    draw(cr.get());
    if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cairo: ") +
                                 cairo_status_to_string(cairo_status(cr.get())));
}

// The path in lower case, for its extension.
std::string lower_case(const std::string& path) {
    std::string lower = path;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

} // namespace

bool is_svg_path(const std::string& path) {
    return lower_case(path).ends_with(".svg");
}

void check_plot_path(const std::string& path, const std::string& key) {
    const std::string lower = lower_case(path);
    if (!lower.ends_with(".png") && !lower.ends_with(".svg"))
        throw InputError(key + ": \"" + path +
                         "\": unknown image format; give a file name ending in .png or .svg");
    check_writable(path, key);
}

void write_image(const std::string& path, double width, double height,
                 const std::function<void(cairo_t*)>& draw) {
    std::string bytes;
    if (is_svg_path(path)) {
        Surface surface(cairo_svg_surface_create_for_stream(append, &bytes, width, height),
                        cairo_surface_destroy);
        draw_on(surface.get(), draw);
        cairo_surface_finish(surface.get()); // flushes the SVG text into `bytes`
    } else {
        Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(width),
                                                   static_cast<int>(height)),
                        cairo_surface_destroy);
        draw_on(surface.get(), draw);
        if (cairo_surface_write_to_png_stream(surface.get(), append, &bytes) !=
            CAIRO_STATUS_SUCCESS)
            throw std::runtime_error("cairo: cannot encode the PNG");
    }
    // Cairo and fontconfig keep font caches for the life of the process; release them now
    // that every surface is gone, so that a leak checker sees a clean exit (the cairo test
    // suite does the same). A later plot would simply load them again.
    cairo_debug_reset_static_data();
    FcFini();
    write_file_atomically(path, bytes);
}

} // namespace choc
