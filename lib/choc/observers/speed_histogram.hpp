// Histograms of one snapshot's velocities beside Maxwell–Boltzmann at the snapshot's
// temperature: the speeds (output.histogram) and the x component (output.velocity_histogram).
#pragma once

#include "choc/observers/velocity_distribution.hpp"

#include <string>
#include <vector>

namespace choc {

// The number of bins of a histogram of n particles, final state or series alike:
// clamp(sqrt(n) / 2, 10, 100).
std::size_t histogram_bins(std::size_t n);

// CSV text, one row per bin: `speed_low,speed_high,speed,density,maxwell_boltzmann`, and for
// more than one species `density_<name>,maxwell_boltzmann_<name>` per species. Speeds are
// the particles' own (not mass-scaled); `density` is the fraction of particles in the bin
// divided by its width, and the reference for all particles is the mixture
// sum_s x_s f_MB(v; m_s, kT), with kT the snapshot's temperature sum m v^2 / (d N).
// The bins split [0, largest speed] into clamp(sqrt(N) / 2, 10, 100) equal parts.
std::string speed_histogram_csv(const SpeedSample& sample, const std::vector<std::string>& names);

// The same for the x component of the velocities, `vx_low,vx_high,vx,density,
// maxwell_boltzmann` ..., over [-largest |vx|, largest |vx|], against the Gaussian
// sqrt(m / 2 pi kT) exp(-m vx^2 / 2 kT) (mixed over species like the speeds).
std::string component_histogram_csv(const SpeedSample& sample,
                                    const std::vector<std::string>& names);

} // namespace choc
