// A small fixed-size vector in D = 2 or 3 dimensions: a value type, no heap.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>

namespace choc {

template <int D>
struct Vec {
    static_assert(D == 2 || D == 3, "choc simulates discs (D = 2) and spheres (D = 3)");
    std::array<double, D> c{};

    constexpr double& operator[](std::size_t a) { return c[a]; }
    constexpr double operator[](std::size_t a) const { return c[a]; }

    constexpr Vec& operator+=(const Vec& o) {
        for (int a = 0; a < D; ++a) c[a] += o.c[a];
        return *this;
    }
    constexpr Vec& operator-=(const Vec& o) {
        for (int a = 0; a < D; ++a) c[a] -= o.c[a];
        return *this;
    }
    constexpr Vec& operator*=(double s) {
        for (int a = 0; a < D; ++a) c[a] *= s;
        return *this;
    }
    friend constexpr Vec operator+(Vec l, const Vec& r) { return l += r; }
    friend constexpr Vec operator-(Vec l, const Vec& r) { return l -= r; }
    friend constexpr Vec operator*(Vec l, double s) { return l *= s; }
    friend constexpr Vec operator*(double s, Vec r) { return r *= s; }
    friend constexpr Vec operator-(Vec r) { return r *= -1.0; }
    friend constexpr bool operator==(const Vec&, const Vec&) = default;
};

template <int D>
constexpr double dot(const Vec<D>& l, const Vec<D>& r) {
    double s = 0.0;
    for (int a = 0; a < D; ++a) s += l[a] * r[a];
    return s;
}

template <int D>
constexpr double norm2(const Vec<D>& v) {
    return dot(v, v);
}

template <int D>
inline double norm(const Vec<D>& v) {
    return std::sqrt(norm2(v));
}

// The cross product (3D only): a x b, perpendicular to both, |a||b| sin θ long.
constexpr Vec<3> cross(const Vec<3>& a, const Vec<3>& b) {
    return Vec<3>{
        {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}};
}

} // namespace choc
