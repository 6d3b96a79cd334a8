// `choc contact --plot PATH`: the overlap delta(t) of every method at one dt beside the exact
// curve, and the log-log plot of the largest overlap error against dt with the fitted
// slopes; drawn with Cairo as PNG or SVG (by the extension), in the library choc_plot.
// The path is checked beforehand with check_plot_path (plot/plot_path.hpp).
#pragma once

#include "choc/contact/contact_study.hpp"

#include <string>

namespace choc {

// Draws the plot and writes it atomically (whole or not at all).
void write_contact_plot(const ContactReport& report, const std::string& path);

} // namespace choc
