"""Data files shipped with animcore: the built-in glTF sample (sample.gltf).

A package, so that ``importlib.resources.files("animcore.data")`` finds it on
every supported Python (3.9 reads no resources of a namespace package)."""
