// Enskog's transport coefficients of a one-size fluid of hard spheres (3D) or hard discs
// (2D): the references the summary sets beside what a run measures (docs/PHYSICS.md,
// "Transport coefficients"). Enskog's theory is Boltzmann's dilute-gas result with two
// dense-fluid corrections: collisions are more frequent by the contact value g(sigma) of
// the pair distribution, and momentum and energy also jump across the contact distance
// at each collision (the collisional transfer). It ignores correlated motion, which is
// why dense hard spheres depart from it by tens of percent.
#pragma once

namespace choc::enskog {

// The state Enskog's values depend on: number density n (per volume, or area in 2D),
// diameter sigma, mass m and temperature kT.
struct Fluid {
    int dimension = 3;
    double n = 0.0, sigma = 1.0, mass = 1.0, kT = 1.0;
};

// Packing (3D, pi n sigma^3 / 6) or area (2D, pi n sigma^2 / 4) fraction.
double fraction(const Fluid& f);
// Compressibility factor Z of the reference equations of state: Hansen-Goos (3D, J. Chem.
// Phys. 144, 164506, 2016) and Kolafa-Rottner (2D, Mol. Phys. 104, 3435, 2006).
double compressibility(int dimension, double fraction);
// g(sigma) from Z = 1 + 4 eta g (3D) or Z = 1 + 2 phi g (2D).
double contact_value(int dimension, double fraction);

// Self-diffusion D_E = D_0 / g, D_0 Boltzmann's first Sonine value.
double diffusion(const Fluid& f);
// Shear viscosity and thermal conductivity (k_B = 1), with their collisional transfer.
double shear_viscosity(const Fluid& f);
double thermal_conductivity(const Fluid& f);

// The finite-size correction of D in a periodic cube of edge L (Yeh & Hummer, J. Phys.
// Chem. B 108, 15873, 2004): the infinite system's D is D_L + xi kT / (6 pi eta L), with
// xi = 2.837297 and eta the shear viscosity.
double yeh_hummer(double kT, double shear_viscosity, double edge);

} // namespace choc::enskog
