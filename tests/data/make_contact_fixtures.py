"""Records contacts resolved by pymunk (Chipmunk2D) and pybullet (Bullet) into
tests/data/contact_pymunk.json and tests/data/contact_pybullet.json, for
tests/test_contact.py to compare `collide` with.

Run it where both are installed (they are not test requirements):

    python -m venv /tmp/refs && /tmp/refs/bin/pip install numpy pymunk pybullet
    /tmp/refs/bin/python tests/data/make_contact_fixtures.py

Each record holds what the engine saw at the contact, taken from the engine
itself during the step (body velocities, centers, masses and moments, the
contact normal and its point on each body, each shape's own restitution and
friction) and the bodies' velocities after the step. Gravity and damping are
off and the step is short, so the step changes velocities only through the
contact. The materials are stored per shape: the tests apply each engine's
combination rule. The scenes: a ball that can spin against a static box, a
translating and a rotating kinematic box (in pybullet a fixed-base multibody
given a base velocity), and two balls of different masses.
"""
import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).parent


def _floats(x):
    return [float(v) for v in x]


def pymunk_records(count=25, seed=1):
    import pymunk

    rng = np.random.default_rng(seed)
    records = []
    for scene in ("static box", "translating box", "rotating box", "two balls"):
        for _ in range(count):
            space = pymunk.Space()
            space.gravity = (0.0, 0.0)
            space.damping = 1.0
            space.iterations = 20
            radius, mass = rng.uniform(0.2, 1.0), rng.uniform(0.5, 3.0)
            ball = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0, radius))
            ball_shape = pymunk.Circle(ball, radius)
            ball_shape.elasticity, ball_shape.friction = rng.uniform(0, 1), rng.uniform(0, 1.5)
            if scene == "two balls":
                r2, m2 = rng.uniform(0.2, 1.0), rng.uniform(0.5, 8.0)
                other = pymunk.Body(m2, pymunk.moment_for_circle(m2, 0, r2))
                other_shape = pymunk.Circle(other, r2)
                direction = rng.normal(size=2)
                direction /= np.linalg.norm(direction)
                other.position = (0.0, 0.0)
                ball.position = tuple(direction * (radius + r2 - 1e-4))
                other.velocity = tuple(rng.normal(0, 3, 2) + direction * 2)
                other.angular_velocity = rng.normal(0, 5)
            else:
                kind = pymunk.Body.STATIC if scene == "static box" else pymunk.Body.KINEMATIC
                other = pymunk.Body(body_type=kind)
                other.angle = rng.uniform(-0.5, 0.5)
                other_shape = pymunk.Poly.create_box(other, (6.0, 1.0))
                if scene == "translating box":
                    other.velocity = tuple(rng.normal(0, 2, 2))
                if scene == "rotating box":
                    other.angular_velocity = rng.normal(0, 2)
                up = np.array([-np.sin(other.angle), np.cos(other.angle)])
                along = np.array([np.cos(other.angle), np.sin(other.angle)])
                direction = up
                ball.position = tuple(up * (0.5 + radius - 1e-4) + along * rng.uniform(-2, 2))
            other_shape.elasticity, other_shape.friction = rng.uniform(0, 1), rng.uniform(0, 1.5)
            ball.velocity = tuple(-direction * rng.uniform(0.5, 5) + rng.normal(0, 3, 2))
            ball.angular_velocity = rng.normal(0, 5)
            space.add(ball, ball_shape, other, other_shape)
            seen = {}

            def pre_solve(arbiter, space, data, seen=seen):
                a_shape, b_shape = arbiter.shapes
                points = arbiter.contact_point_set.points
                assert len(points) == 1
                seen.update(
                    a="ball" if a_shape is ball_shape else "other",
                    normal=_floats(arbiter.contact_point_set.normal),
                    point_a=_floats(points[0].point_a), point_b=_floats(points[0].point_b),
                    before={name: dict(velocity=_floats(b.velocity),
                                       angular_velocity=float(b.angular_velocity),
                                       center=_floats(b.position + b.center_of_gravity.rotated(b.angle)))
                            for name, b in (("ball", ball), ("other", other))})

            space.on_collision(pre_solve=pre_solve)
            space.step(1e-6)
            assert seen, "no contact"
            record = dict(scene=scene, normal_from="a to b", **seen)
            for name, body, shape in (("ball", ball, ball_shape), ("other", other, other_shape)):
                dynamic = body.body_type == pymunk.Body.DYNAMIC
                record[name] = dict(
                    inverse_mass=1.0 / body.mass if dynamic else 0.0,
                    inverse_moment=1.0 / body.moment if dynamic else 0.0,
                    restitution=shape.elasticity, friction=shape.friction,
                    after=dict(velocity=_floats(body.velocity),
                               angular_velocity=float(body.angular_velocity)))
            records.append(record)
    return dict(tool="pymunk", version=pymunk.version, chipmunk=pymunk.chipmunk_version,
                iterations=20, combination="restitution and friction: product of the shapes'",
                records=records)


def pybullet_records(count=25, seed=2):
    import pybullet as p

    rng = np.random.default_rng(seed)
    client = p.connect(p.DIRECT)
    records = []
    dt = 1e-4
    for scene in ("static box", "translating box", "rotating box", "two balls"):
        for _ in range(count):
            p.resetSimulation(physicsClientId=client)
            p.setGravity(0, 0, 0, physicsClientId=client)
            p.setTimeStep(dt, physicsClientId=client)
            # no penetration recovery (erp 0), so that velocities change by the
            # contact law only; the ball overlaps by more than Bullet's slop
            p.setPhysicsEngineParameter(numSolverIterations=50, restitutionVelocityThreshold=0.0,
                                        erp=0.0, contactERP=0.0, frictionERP=0.0,
                                        physicsClientId=client)
            radius, mass = rng.uniform(0.2, 1.0), rng.uniform(0.5, 3.0)
            ball = p.createMultiBody(mass, p.createCollisionShape(p.GEOM_SPHERE, radius=radius),
                                     basePosition=[0, 0, 0], useMaximalCoordinates=True)
            if scene == "two balls":
                r2, m2 = rng.uniform(0.2, 1.0), rng.uniform(0.5, 8.0)
                direction = rng.normal(size=3)
                direction /= np.linalg.norm(direction)
                other = p.createMultiBody(m2, p.createCollisionShape(p.GEOM_SPHERE, radius=r2),
                                          basePosition=[0, 0, 0], useMaximalCoordinates=True)
                p.resetBasePositionAndOrientation(ball, direction * (radius + r2 - 1e-4),
                                                  [0, 0, 0, 1])
                p.resetBaseVelocity(other, rng.normal(0, 3, 3) + direction * 2,
                                    rng.normal(0, 5, 3))
            else:
                # a fixed-base multibody keeps the base velocity it is given
                # and the solver uses it at the contact: a kinematic box
                other = p.createMultiBody(0, p.createCollisionShape(p.GEOM_BOX,
                                                                    halfExtents=[3, 3, 0.5]),
                                          basePosition=[0, 0, 0],
                                          useMaximalCoordinates=scene == "static box")
                if scene == "translating box":
                    p.resetBaseVelocity(other, rng.normal(0, 2, 3), [0, 0, 0])
                if scene == "rotating box":
                    p.resetBaseVelocity(other, [0, 0, 0], rng.normal(0, 2, 3))
                direction = np.array([0.0, 0.0, 1.0])
                p.resetBasePositionAndOrientation(
                    ball, [*rng.uniform(-2, 2, 2), 0.5 + radius - 1e-4], [0, 0, 0, 1])
            p.resetBaseVelocity(ball, -direction * rng.uniform(0.5, 5) + rng.normal(0, 3, 3),
                                rng.normal(0, 5, 3))
            materials = {}
            for name, body in (("ball", ball), ("other", other)):
                e, mu = rng.uniform(0, 1), rng.uniform(0, 1.5)
                p.changeDynamics(body, -1, restitution=e, lateralFriction=mu,
                                 rollingFriction=0, spinningFriction=0, linearDamping=0,
                                 angularDamping=0, frictionAnchor=0, physicsClientId=client)
                info = p.getDynamicsInfo(body, -1)
                inertia = info[2][0]
                materials[name] = dict(
                    inverse_mass=1.0 / info[0] if info[0] > 0 else 0.0,
                    inverse_moment=1.0 / inertia if info[0] > 0 else 0.0,
                    restitution=e, friction=mu)
            before = {}
            for name, body in (("ball", ball), ("other", other)):
                v, w = p.getBaseVelocity(body)
                before[name] = dict(velocity=_floats(v), angular_velocity=_floats(w),
                                    center=_floats(p.getBasePositionAndOrientation(body)[0]))
            p.stepSimulation()
            contacts = p.getContactPoints(ball, other)
            assert len(contacts) == 1, len(contacts)
            c = contacts[0]
            record = dict(scene=scene, a="ball", normal_from="b to a",
                          normal=_floats(c[7]), point_a=_floats(c[5]), point_b=_floats(c[6]),
                          distance=float(c[8]), before=before)
            for name, body in (("ball", ball), ("other", other)):
                v, w = p.getBaseVelocity(body)
                record[name] = dict(materials[name], after=dict(velocity=_floats(v),
                                                                angular_velocity=_floats(w)))
            records.append(record)
    p.disconnect(client)
    return dict(tool="pybullet", version=p.getAPIVersion(), numSolverIterations=50,
                restitutionVelocityThreshold=0.0, erp=0.0, contactERP=0.0, time_step=dt,
                combination="restitution and friction: product of the bodies'",
                records=records)


if __name__ == "__main__":
    from importlib.metadata import version
    for name, make in (("pymunk", pymunk_records), ("pybullet", pybullet_records)):
        data = make()
        data["package_version"] = version(name)
        path = HERE / f"contact_{name}.json"
        records = data.pop("records")
        lines = [json.dumps(r, separators=(",", ":")) for r in records]
        head = json.dumps(data, separators=(",", ":"))[:-1]
        path.write_text(head + ',"records":[\n' + ",\n".join(lines) + "]}\n")
        print(f"{path}: {len(records)} contacts from {name} {data['package_version']}")
