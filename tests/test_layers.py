"""LayerStack against Blender's NLA (tests/data/nla_blender.json, recorded from
bpy by tests/fixtures/record_nla.py), and the stack's own rules."""
import json
import os
from types import SimpleNamespace

import numpy as np
import pytest

from animcore.layers import Layer, LayerStack, Track, layers_from_nla

DATA = os.path.join(os.path.dirname(__file__), "data", "nla_blender.json")


def namespace(value, fcurves_api="layers"):
    """bpy-like attribute objects from the recorded description."""
    if isinstance(value, dict):
        if "fcurves" in value and "name" in value and "frame_start" not in value:
            # an action: Blender 5's channel bags or the older fcurves list
            curves = [namespace(f) for f in value["fcurves"]]
            if fcurves_api == "layers":
                bag = SimpleNamespace(fcurves=curves)
                strip = SimpleNamespace(channelbags=[bag])
                return SimpleNamespace(name=value["name"],
                                       layers=[SimpleNamespace(strips=[strip])])
            return SimpleNamespace(name=value["name"], fcurves=curves)
        return SimpleNamespace(**{k: namespace(v, fcurves_api) for k, v in value.items()})
    if isinstance(value, list):
        return [namespace(v, fcurves_api) for v in value]
    return value


with open(DATA) as _f:
    RECORDED = json.load(_f)


@pytest.mark.parametrize("case", range(len(RECORDED["cases"])))
def test_matches_blender(case):
    data = RECORDED["cases"][case]
    frames = np.array(RECORDED["frames"])
    ad = namespace(data["animation_data"], "layers" if case % 2 else "fcurves")
    stack = layers_from_nla(ad)
    for path, values in data["values"].items():
        expected = np.array(values)
        for index in range(expected.shape[1]):
            if not stack.animates(path, index):  # Blender leaves the value as it was
                np.testing.assert_allclose(expected[:, index], RECORDED["static"][path][index],
                                           rtol=1e-7)
                continue
            got = stack.evaluate(path, index, frames)
            span = max(np.ptp(expected[:, index]), 1.0)
            bad = np.flatnonzero(np.abs(got - expected[:, index]) > 1e-5 * span)
            assert bad.size == 0, (path, index, frames[bad[:5]], got[bad[:5]],
                                   expected[bad[:5], index])
