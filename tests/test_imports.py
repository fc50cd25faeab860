"""animcore's modules import each other without a circle, counting every import
(at module level and inside functions), so the layering reads off the imports:
_core and the private helpers, then the numeric domains, then the data model,
then the file formats and the operations on scenes."""
import ast
import functools
import os

import animcore

PACKAGE = os.path.dirname(os.path.abspath(animcore.__file__))


@functools.lru_cache(maxsize=None)  # (parsing every module is most of these tests' time)
def _parsed_graph():
    return _module_graph()


def module_graph():
    """{module: set of animcore modules it imports}, a copy the caller may change."""
    return {module: set(targets) for module, targets in _parsed_graph().items()}


def _module_graph():
    """{module: set of animcore modules it imports}, from the source with ast."""
    sources = {name[:-3] for name in os.listdir(PACKAGE) if name.endswith(".py")}
    modules = sources | {"_core"}  # the C extension: imports nothing of animcore
    graph = {"_core": set()}
    for module in sorted(sources):
        with open(os.path.join(PACKAGE, module + ".py"), encoding="utf-8") as stream:
            tree = ast.parse(stream.read())
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == "animcore":
                        targets.add(parts[1] if len(parts) > 1 else "__init__")
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    parts = (node.module or "").split(".")
                    if parts[0] != "animcore":
                        continue
                elif node.level == 1:
                    parts = ["animcore"] + (node.module.split(".") if node.module else [])
                else:  # nothing above the package
                    continue
                if len(parts) > 1:
                    targets.add(parts[1])
                else:  # "from . import x, y" or "from animcore import x"
                    for alias in node.names:
                        targets.add(alias.name if alias.name in modules else "__init__")
        graph[module] = {t for t in targets if t in modules and t != module}
    from animcore import files  # its readers are imported by name, from a table

    graph["files"] |= {module for module, _ in files.READERS.values()}
    return graph


def cycle(graph):
    """One import circle as a list of modules, or None."""
    state, stack = {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_graph_sees_imports_inside_functions():
    graph = module_graph()
    assert "model" in graph["bake"] and "gltf" in graph["bake"]  # one at the top, one inside
    assert {"curves", "rotations", "skeleton"} <= graph["model"]


def test_no_module_imports_itself_back():
    graph = module_graph()
    assert cycle(graph) is None, " -> ".join(cycle(graph))


def test_the_model_and_the_formats_are_layered():
    graph = module_graph()
    formats = {"gltf", "bvh", "usd"}

    def reach(module, seen=None):
        seen = set() if seen is None else seen
        for target in graph[module]:
            if target not in seen:
                seen.add(target)
                reach(target, seen)
        return seen

    assert not reach("model") & (formats | {"bake", "dask", "cli", "files"})
    assert graph["plotting"] <= {"_core", "_arrays", "_options", "_objects"}  # arrays in
    for name in formats:
        assert not graph[name] & (formats - {name}), name
