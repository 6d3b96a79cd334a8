#include "contact_command.hpp"

#include "choc/contact/contact_file.hpp"
#include "choc/contact/contact_output.hpp"
#include "choc/contact/contact_plot.hpp"
#include "choc/contact/contact_study.hpp"
#include "choc/errors.hpp"
#include "choc/plot/plot_path.hpp"

#include <algorithm>
#include <exception>
#include <iostream>

namespace choc {

const char* const contact_footer = R"(
The contact file is TOML; every key has a default (docs/REFERENCE.md, "choc contact"):
  geometry = "wall" | "pair"   a sphere on a flat wall, or two equal spheres
  radius = R, velocity = v0    m and m/s (defaults 0.005 and 0.1)
  restitution = e              0 < e <= 1 (default 0.9), or damping = lambda (kg/s)
  stiffness = { overlap = f }  k from a largest overlap f R (default f = 0.01), or
              { material = true } (k = E R* / (3 (1 - nu))) or { value = k } (N/m)
  [material]                   preset = "steel" | "glass", or youngs_modulus,
                               poisson_ratio, density (SI)
  [integration]                steps_per_contact = [5, 10, 15, 20, 30, 40, 50],
                               methods = ["euler", "rk2", "rk3", "verlet"] (also
                               "verlet_implicit"), plot_steps = 10
The linear spring-dashpot contact m delta'' + lambda delta' + k delta = 0 from
delta = 0, delta' = v0, integrated by each method at dt = t_c / n against the exact
solution: the largest errors on delta and delta', the measured order, the restitution
each method gives and its cost. --plot draws delta(t) at n = plot_steps and the errors.
Exit status: 0 done, 2 bad input (one `choc: error:` line naming the key or file),
1 internal failure.)";

namespace {

int fail(const std::string& prefix, std::string message, int status) {
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::cerr << "choc: " << prefix << message << std::endl;
    return status;
}

} // namespace

int contact_command(const ContactArguments& args, const std::function<void()>& release_log) {
    try {
        const ContactFile file = load_contact_file(args.contact_path);
        if (args.plot_path) check_plot_path(*args.plot_path, "--plot");
        const ContactReport report = study_contact(file);
        if (args.plot_path) write_contact_plot(report, *args.plot_path);
        release_log();
        std::cout << (args.json ? contact_json(report) + "\n" : contact_table(report))
                  << std::flush;
        return 0;
    } catch (const InputError& e) {
        return fail("error: ", e.what(), 2);
    } catch (const std::exception& e) {
        release_log();
        return fail("internal error: ", e.what(), 1);
    }
}

} // namespace choc
