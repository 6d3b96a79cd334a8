// Bounds on the field and the thermostat that come from the clock (issue 41: gravity 1e50
// with TC and drag with gravity 1e40 crawled for ever, shear_temperature = 1e50 broke the
// contact invariant). The clock is a double: near time T its readings are ulp(T) apart,
// ulp(T) = 2^-52 T at most.
//
// Gravity. A particle of radius a at rest falls its own radius in
//     t_g = sqrt(2 a / g),
// and with drag (x'' = g - gamma x') no sooner than in max(t_g, a gamma / g) (the fall
// x(t) = (g/gamma) (t - (1 - exp(-gamma t)) / gamma) is below both g t^2 / 2 and g t / gamma).
// A particle that rests on a floor or on others, as every particle of a pile does, collides
// again within about that time, so a run to T takes at least T / t_g events a particle.
// When t_g < ulp(T), that is more than 2^52 (4.5e15) events a particle: years at the
// engine's 1e6-1e7 events a second, and the clock near T cannot tell one bounce from the
// next. (Measured: 50 discs at g = 1e40 with TC reached t = 5e-16 of 10 in 5 s.)
//
// Drag. Velocities relax as exp(-gamma t): when 1 / gamma < ulp(T) the clock near T cannot
// hold a step as short as the relaxation, and the engine's flights, which evaluate
// (1 - exp(-gamma t)) / gamma, cannot be resolved; every motion is over within one tick.
// (Measured: drag 1e40 with gravity 1e40 stalled at a wall contact with TC's collapse
// message, or without end.)
//
// The thermostat of a sheared fluid (box.shear_temperature). It scales every velocity
// relative to the flow by sqrt(kT_s / kT) at once, the first time after 10 N collisions. A
// position is x0 + v (t - t0) on the engine's clock, whose round-off was set by the time
// run at the start temperature; at speeds s times larger the same round-off moves a
// contact s times further. Measured on the sheared example (200 spheres): a ratio of 1e12
// (s = 1e6) put a collision 1.0e-9 of a diameter off contact, the invariant's tolerance
// (invariant_tolerance), 1e20 put it 2e-7 off and 1e30 or more 0.15 off. A ratio of at most
// 1e6 (s = 1e3) leaves contacts within ~1e-12, a thousandth of the tolerance: the
// thermostat's temperature is at most a million times the lowest start temperature. (A
// fluid thermostatted far above its start warms in one step: start it near kT_s.)
#include "choc/run/config_scales.hpp"

#include "choc/message_text.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace choc {
namespace {

constexpr double max_thermostat_ratio = 1e6;

// The spacing of doubles at t > 0: the clock's resolution there.
double clock_resolution(double t) {
    return std::nextafter(t, std::numeric_limits<double>::infinity()) - t;
}

void check_field(const Section& root, const Config& config) {
    // Only a run to a time has an end whose clock we know (init.from's start time is not
    // read here: it only moves the end later).
    if (!config.run_time) return;
    const double end = *config.run_time + equilibration_time(config);
    const double tick = clock_resolution(end);
    const std::string at_end = "the clock's resolution at the run's end, " + number_text(tick) +
                               " (at t = " + number_text(end) + ", run.equilibrate + run.time)";
    if (config.drag > 0.0 && 1.0 / config.drag < tick)
        root.fail("field.drag", "velocities relax in 1 / drag = " + number_text(1.0 / config.drag) +
                                    ", less than " + at_end +
                                    ": the run cannot resolve its motion; use a smaller drag "
                                    "or a shorter run");
    double g2 = 0.0;
    for (const double g : config.gravity) g2 += g * g;
    if (g2 == 0.0) return;
    const double g = std::sqrt(g2);
    double a = std::numeric_limits<double>::infinity();
    for (const auto& s : config.species) a = std::min(a, s.radius);
    const double fall = std::max(std::sqrt(2.0 * a / g), a * config.drag / g);
    if (fall < tick)
        root.fail("field.gravity",
                  "a particle of radius " + number_text(a) + " falls its radius in " +
                      number_text(fall) + ", less than " + at_end +
                      ": the run would need more than 2^52 events a particle and cannot "
                      "resolve a bounce; use a weaker gravity or a shorter run");
}

void check_thermostat(const Section& root, const Config& config) {
    if (!config.shear_temperature || config.from) return; // (a snapshot's kT is not known)
    double start = config.temperature;
    for (const auto& s : config.species) start = std::min(start, s.temperature.value_or(start));
    const double ratio = *config.shear_temperature / start;
    if (ratio > max_thermostat_ratio)
        root.fail("box.shear_temperature",
                  number_text(*config.shear_temperature) + " is " + number_text(ratio) +
                      " times the start temperature " + number_text(start) +
                      " (init.temperature or a species' temperature), more than " +
                      number_text(max_thermostat_ratio) +
                      ": the thermostat would scale every velocity by sqrt(" + number_text(ratio) +
                      ") at once, and the clock's round-off would then put collisions off "
                      "contact; start the fluid nearer its thermostat's temperature");
}

} // namespace

void check_time_scales(const Section& root, const Config& config) {
    check_field(root, config);
    check_thermostat(root, config);
}

} // namespace choc
