"""Independent references for the tests, written in plain NumPy.

They derive the expected values by other routes than the kernels (Bezier
control points instead of the Hermite basis, analytic polynomials, piecewise
integration) so that a shared mistake cannot pass unnoticed.
"""
import numpy as np


def hermite_bezier(p0, p1, v0, v1, duration, elapsed):
    """Hermite segment via its Bezier form and de Casteljau's algorithm.

    Per-second velocities v become control points p0 + v*T/3 and p1 - v*T/3;
    the derivative of a cubic Bezier is 3 * (quadratic Bezier of differences),
    divided by T to go from d/du to d/dt.
    """
    p0, p1, v0, v1, T, t = np.broadcast_arrays(*map(np.asarray, (p0, p1, v0, v1, duration, elapsed)))
    c = [p0, p0 + v0 * T / 3.0, p1 - v1 * T / 3.0, p1]
    u = t / T
    lerp = lambda a, b: a + (b - a) * u  # noqa: E731
    q = [lerp(c[0], c[1]), lerp(c[1], c[2]), lerp(c[2], c[3])]
    r = [lerp(q[0], q[1]), lerp(q[1], q[2])]
    position = lerp(r[0], r[1])
    velocity = 3.0 * (r[1] - r[0]) / T
    return position, velocity


def cubic(a, b, t):
    """f(t) = a t^3 + b t^2 + 2 t - 3 and its derivative (article 000's sweep)."""
    return a * t**3 + b * t**2 + 2 * t - 3, 3 * a * t**2 + 2 * b * t + 2


# ---- contact ----

def bounce_components(v, u, n, e, friction=0.0, threshold=0.0):
    """Contact response by splitting the relative velocity into its normal and
    tangential parts, scaling each, and adding the surface velocity back:
    w = v - u, w_n = (w . n) n, w_t = w - w_n; an approaching contact
    (w . n < 0) gets w' = -e' w_n + w_t * max(0, 1 - mu (1 + e') |w . n| / |w_t|),
    e' = e when the approach speed exceeds the threshold, else 0; v' = u + w'."""
    v, u, n = (np.asarray(x, dtype=float) for x in (v, u, n))
    e, friction, threshold = (np.asarray(x, dtype=float)[..., None] for x in (e, friction, threshold))
    w = v - u
    wn_len = np.sum(w * n, axis=-1, keepdims=True)
    w_n = wn_len * n
    w_t = w - w_n
    e_eff = np.where(-wn_len > threshold, e, 0.0)
    normal_change = (1.0 + e_eff) * np.abs(wn_len)
    t_len = np.sqrt(np.sum(w_t * w_t, axis=-1, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.where(t_len > 0, np.clip(1.0 - friction * normal_change / t_len, 0.0, 1.0), 0.0)
    w_after = -e_eff * w_n + keep * w_t
    return np.where(wn_len < 0, u + w_after, v)


def cross_point_velocity(linear, angular, offset):
    """v + omega x r with np.cross; 2-D vectors are embedded in the xy-plane."""
    linear, angular, offset = (np.asarray(x, dtype=float) for x in (linear, angular, offset))
    if offset.shape[-1] == 2:
        w3 = np.zeros(angular.shape + (3,))
        w3[..., 2] = angular
        r3 = np.concatenate([offset, np.zeros(offset.shape[:-1] + (1,))], axis=-1)
        return linear + np.cross(w3, r3)[..., :2]
    return linear + np.cross(angular, offset)


def small_step_projectiles(position, velocity, radius, dt, plane_point, plane_normal,
                           plane_velocity, restitution, friction=0.0, substeps=20000):
    """Spheres against moving planes by brute-force time stepping: move every
    sphere by dt / substeps, then bounce it off any plane it started in front
    of, now touches (distance <= radius) and approaches. First-order accurate:
    positions are off by about speed * dt / substeps per contact."""
    p = np.array(position, dtype=float)
    v = np.array(velocity, dtype=float)
    q0 = np.asarray(plane_point, dtype=float)
    nrm = np.asarray(plane_normal, dtype=float)
    u = np.asarray(plane_velocity, dtype=float)
    h = dt / substeps
    front = np.einsum("ik,jk->ij", p, nrm) - np.sum(q0 * nrm, axis=1) >= 0
    bounces = np.zeros(len(p), dtype=int)
    for step in range(1, substeps + 1):
        p = p + v * h
        q = q0 + u * (step * h)
        dist = np.einsum("ik,jk->ij", p, nrm) - np.sum(q * nrm, axis=1)
        approach = np.einsum("ik,jk->ij", v, nrm) - np.sum(u * nrm, axis=1)
        touching = front & (dist <= radius) & (approach < 0)
        for j in range(len(nrm)):
            hit = touching[:, j]
            if hit.any():
                v[hit] = bounce_components(v[hit], u[j], nrm[j], restitution, friction)
                bounces[hit] += 1
                # re-evaluate approach for the remaining planes of this step
                touching[hit] &= (np.einsum("ik,jk->ij", v[hit], nrm)
                                  - np.sum(u * nrm, axis=1)) < 0
    return p, v, bounces
