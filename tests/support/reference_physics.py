"""The reference physics of docs/PHYSICS.md, in reduced units sigma = m = kT = 1 unless given:
equations of state, Enskog collision rate, Maxwell-Boltzmann. Used by tests/validate/,
tests/cli/ and data/studies/ (plot.py, transport/plot.py); plain floats (numpy users wrap
them with numpy.vectorize).
"""

import math

# Hansen-Goos, J. Chem. Phys. 144, 164506 (2016):
#   Z = 8 ln(1 - eta) / eta + sum_{i=0..7} b_i eta^i / (1 - eta)^3
HG_B = [9.0, -19.0, 47.0 / 3.0, -2.635232, -1.265575, 0.041212, 0.248245, -0.096495]
# Kolafa & Rottner, Mol. Phys. 104, 3435 (2006): Z = sum_k c_k x^k, x = phi / (1 - phi)
KR_C = {0: 1.0, 1: 2.0, 2: 1.12801775, 3: 0.00181895291, 4: -0.0526134737,
        5: 0.0504960168, 6: -0.0325537792, 7: 0.0134578632, 8: 0.00140888182,
        9: -0.00834273601, 10: 0.00694127367, 11: -0.00262254723, 12: 0.000355746352,
        22: -5.24672938e-9, 57: 5.88054639e-23}


def hansen_goos(eta):
    """3D hard spheres, accurate to ~1e-4 in the fluid."""
    return 8.0 * math.log(1.0 - eta) / eta + sum(
        b * eta ** i for i, b in enumerate(HG_B)) / (1.0 - eta) ** 3


def carnahan_starling(eta):
    """3D, 0.1-0.3 % low for 0.2 <= eta <= 0.45."""
    return (1.0 + eta + eta ** 2 - eta ** 3) / (1.0 - eta) ** 3


def kolafa_rottner(phi):
    """2D hard discs, valid to phi ~ 0.70."""
    x = phi / (1.0 - phi)
    return sum(c * x ** k for k, c in KR_C.items())


def henderson(phi):
    """2D, 1 % high at phi = 0.6."""
    return (1.0 + phi ** 2 / 8.0) / (1.0 - phi) ** 2


def z_reference(d, fraction):
    """The accurate equation of state of docs/PHYSICS.md for dimension d."""
    return hansen_goos(fraction) if d == 3 else kolafa_rottner(fraction)


def number_density(d, fraction):
    """n from eta = pi n / 6 (3D) or phi = pi n / 4 (2D), sigma = 1."""
    return 6.0 * fraction / math.pi if d == 3 else 4.0 * fraction / math.pi


def contact_value(d, fraction, z):
    """g(sigma) from Z = 1 + 4 eta g (3D), Z = 1 + 2 phi g (2D)."""
    return (z - 1.0) / (4.0 * fraction if d == 3 else 2.0 * fraction)


def enskog_rate(d, fraction, z, kT=1.0):
    """Gamma_E = 4 n g sqrt(pi kT) (3D), 2 n g sqrt(pi kT) (2D), with the contact value g
    that the equation of state z implies (sigma = m = 1)."""
    n = number_density(d, fraction)
    return (4.0 if d == 3 else 2.0) * n * contact_value(d, fraction, z) * math.sqrt(math.pi * kT)


def enskog_transport(fraction, kT=1.0):
    """Enskog's shear viscosity and thermal conductivity of spheres of diameter 1 and mass
    1 (docs/PHYSICS.md, "Viscosity and heat conduction"), with g from Hansen-Goos."""
    g = contact_value(3, fraction, hansen_goos(fraction))
    b_rho = 4 * fraction
    eta0 = 5 / 16 * math.sqrt(kT / math.pi)
    lambda0 = 75 / 64 * math.sqrt(kT / math.pi)
    return (1.016 * eta0 * (1 / g + 0.8 * b_rho + 0.7614 * g * b_rho ** 2),
            1.025 * lambda0 * (1 / g + 1.2 * b_rho + 0.7575 * g * b_rho ** 2))


def maxwell_speed_density(d, v, kT=1.0, m=1.0):
    s = math.sqrt(kT / m)
    x = v / s
    if d == 3:
        return math.sqrt(2.0 / math.pi) * x * x * math.exp(-x * x / 2.0) / s
    return x * math.exp(-x * x / 2.0) / s


def maxwell_h(d, kT=1.0):
    """Boltzmann's H of Maxwell-Boltzmann (unit mass): -(d/2)(ln(2 pi kT) + 1)."""
    return -0.5 * d * (math.log(2.0 * math.pi * kT) + 1.0)
