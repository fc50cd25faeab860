"""The command line: ``animcore demo | bench | bake | reduce`` (also ``python -m animcore ...``).

Each command is one ``_add_<command>`` function that declares its arguments and
sets ``run``, a function ``run(args, parser)`` called with the command's own
parser so that its usage errors show the command's usage.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import warnings


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} (must be an integer >= 1)")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} (must be a finite number > 0)")
    return value


def _add_demo(commands) -> None:
    demo = commands.add_parser(
        "demo", help="each domain's reference scenario next to the naive result",
        description="Prints, for each domain, a small scenario with the values animcore "
                    "computes and the value a common naive method gives instead.")
    demo.set_defaults(run=_run_demo)


def _run_demo(args, parser) -> None:
    from . import demo
    demo.run()


def _add_bench(commands) -> None:
    from .bench import CASES

    names = ", ".join(CASES)
    bench = commands.add_parser(
        "bench", help="time every kernel against its baseline",
        description="Times each kernel and a baseline doing the same job (plain NumPy, "
                    "scipy, a memory copy) in the same process and prints the medians "
                    f"and their ratio. Cases: {names}.")
    bench.add_argument("cases", nargs="*", metavar="CASE",
                       help=f"cases to run, among {names} (default: all)")
    bench.add_argument("--list", action="store_true", help="list the cases and exit")
    bench.add_argument("--repeats", type=_positive_int, default=5,
                       help="timed repeats per measurement, an integer >= 1 (default 5)")
    bench.add_argument("--scale", type=_positive_float, default=1.0,
                       help="problem size relative to the default sizes (1: about 10 million "
                            "elements per kernel; 0.01 for a quick run)")
    bench.set_defaults(run=_run_bench)


def _run_bench(args, parser) -> None:
    from . import bench

    if args.list:
        for name in bench.CASES:
            print(name)
        return
    try:
        bench.run(args.cases, scale=args.scale, repeats=args.repeats)
    except ValueError as error:
        parser.error(str(error))
    except MemoryError:
        parser.error(f"bench: not enough memory at --scale {args.scale:g}; use a smaller one")


def _add_bake(commands) -> None:
    bake = commands.add_parser(
        "bake", help="sample the animations of glTF, BVH, FBX or USD files on a frame grid and "
                     "save them (.npz or .csv)",
        description="Samples every channel of every clip (or of --clip) at frames 0, 1/fps, "
                    "... up to the clip's duration, the last frame exactly at its end (an FBX "
                    "clip: from its stack's start to its stop, in the file's time). "
                    ".npz: one (frames, width) array per channel keyed '<clip>/<node>/<path>' "
                    "plus '<clip>/time'. .csv: one row per frame, columns clip, frame, time, "
                    "then '<node>/<path>/<component>'. Without FILE the built-in sample is "
                    "used; without --out a summary is printed.")
    bake.add_argument("file", nargs="*", default=[],
                      help=".gltf, .glb, .bvh, .fbx or .usd/.usda/.usdc/.usdz files (read by "
                           "extension), glob patterns or folders (default: the built-in "
                           "sample); several bake in parallel into --out DIR with the same "
                           "options; a folder or pattern holding one file bakes as that file")
    bake.add_argument("--fps", type=float, default=30.0, help="frames per second (default 30)")
    bake.add_argument("--clip", default=None, help="bake only the clip of this name")
    bake.add_argument("--out", default=None,
                      help="output file, .npz or .csv (default: print a summary); a folder "
                           "for several inputs: one folder per input (placed as the inputs "
                           "are) with one file per clip, manifest.csv and keys.csv")
    bake.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                      help="progress bar on stderr (auto: on a terminal, for long jobs; a "
                           "tqdm bar when tqdm is installed)")
    bake.add_argument("--max-frames", type=int, default=None, metavar="N",
                      help="frames per clip beyond which a clip is refused (default "
                           "1,000,000, or four per key of a clip with more keys)")
    bake.add_argument("--workers", type=int, default=None, metavar="N",
                      help="bake the files in N local processes (no Dask needed)")
    bake.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help="bake the files on a running Dask cluster (tcp://host:8786; "
                           "needs animcore[dask])")
    from .bake import add_rig_options
    add_rig_options(bake)
    bake.add_argument("--reduce", type=_positive_float, default=None, metavar="TOL",
                      help="reduce every clip with reduce_clip to TOL (scene units, shell "
                           "0.03) before sampling, as the reduce command does, and print the "
                           "keys kept")
    bake.set_defaults(run=_run_bake)


def _message(text: str) -> str:
    """A library message as the command says it: without the leading ``bake: ``
    that names the function (the prefix ``animcore bake: error:`` names it)."""
    return text[len("bake: "):] if text.startswith("bake: ") else text


def _usage_error(parser):
    """Reports an argument error: the command's usage, then the message (exit 2)."""
    return lambda text: parser.error(_message(text))


def _data_error(parser):
    """Reports an error of the data (a file, a clip, a node): the message
    alone, ``animcore bake: error: ...`` (exit 1); the usage would not help."""
    def error(text):
        sys.stderr.write(f"{parser.prog}: error: {_message(text)}\n")
        sys.exit(1)
    return error


def _run_bake(args, parser) -> int:
    from . import bake
    fail, error = _usage_error(parser), _data_error(parser)
    if not args.file and any(os.path.isfile(n) for n in args.nodes or ()):
        # (--nodes takes every word after it: `--nodes 0 walk.glb` has no FILE)
        fail("bake: FILE was read as a --nodes name: give the files before --nodes")
    if bake.is_many(args.file, args.workers, args.scheduler, args.out):
        if args.reduce is not None:
            fail("bake: --reduce bakes one file at a time")
        from . import dask  # imports only animcore's part; the dask package when it runs
        return bake.run_many(args.file, args.fps, args.clip, args.out, args.progress,
                             fail, workers=args.workers, scheduler=args.scheduler,
                             world=args.world, nodes=args.nodes,
                             root_motion=args.root_motion, strict=args.strict,
                             bake_many=dask.bake_many, max_frames=args.max_frames,
                             error=error)
    # one file, named as such or the only file a folder or pattern holds
    file = bake.expand_inputs(args.file)[0] if args.file else None
    return bake.run(file, args.fps, args.clip, args.out, args.progress, fail,
                    world=args.world, nodes=args.nodes, root_motion=args.root_motion,
                    strict=args.strict, max_frames=args.max_frames, error=error,
                    reduce=args.reduce)


# -- reduce --------------------------------------------------------------------

def _add_reduce(commands) -> None:
    reduce = commands.add_parser(
        "reduce", help="reduce the keys of every clip of a glTF, BVH, FBX or USD file within a "
                       "tolerance and write glTF",
        description="Reads IN (animcore.load), reduces every clip with reduce_clip so that "
                    "ACL's object-space error (virtual points --shell from each node) stays "
                    "within --tolerance on a dense check, writes OUT as glTF (animcore.save) "
                    "and prints, per clip, the keys before and after and the largest error. "
                    "An FBX file is reduced in the form glTF holds (FbxScene.for_gltf at 30 "
                    "fps), whose largest world position deviation from the FBX scene is "
                    "printed too. Lengths are in the file's units as loaded (glTF and FBX: "
                    "metres; BVH: the file's own, often centimetres: scale --tolerance and "
                    "--shell).")
    reduce.add_argument("input", metavar="IN", help=".gltf, .glb, .bvh, .fbx or USD file")
    reduce.add_argument("output", metavar="OUT", help=".gltf or .glb file to write")
    reduce.add_argument("--tolerance", type=_positive_float, default=1e-4,
                        help="largest error in scene units (default 1e-4: 0.1 mm in metres)")
    reduce.add_argument("--shell", type=_positive_float, default=0.03,
                        help="distance of the virtual points in scene units (default 0.03)")
    reduce.set_defaults(run=_run_reduce)


def _run_reduce(args, parser) -> int:
    from . import reduce
    from .bake import write_atomic
    from .files import load, save

    error = _data_error(parser)
    if not args.output.lower().endswith((".gltf", ".glb")):
        parser.error(f"OUT must end in .gltf or .glb, got {args.output!r}")
    try:
        scene = load(args.input)
    except (ValueError, OSError, ImportError) as failure:
        error(str(failure))
    try:
        report, scene, clips = reduce.reduce_report(scene, args.tolerance, args.shell)
    except (ValueError, OverflowError) as failure:
        error(str(failure))
    if not clips:
        error(f"{args.input} has no animated channels to reduce")
    for line in report:
        print(line)
    try:  # (renamed into place once whole; save reads the format off the suffix)
        write_atomic(args.output, lambda temporary: save(temporary, scene, clips), "reduce",
                     suffix=os.path.splitext(args.output)[1])
    except (ValueError, OSError) as failure:
        error(f"cannot write {args.output!r} ({failure})")
    return 0


# The commands, in the order `--help` lists them.
COMMANDS = [_add_demo, _add_bench, _add_bake, _add_reduce]


def _prog() -> str:
    """How the user called us: ``animcore`` (the console script) or its path's name."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if name.lower().endswith(".exe"):  # the console script on Windows
        name = name[:-4]
    return "python -m animcore" if name in ("", "__main__.py", "-c") else name


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog=prog or _prog(),
                                     description="Game-animation math, correct and fast.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(commands)
    for subparser in commands.choices.values():
        subparser.set_defaults(parser=subparser)
    return parser


def main(argv=None, prog: str | None = None) -> int:
    parser = build_parser(prog)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command they were given to, with its usage
        args.parser.error(f"unrecognized arguments: {' '.join(unknown)}")

    def show(message, category, filename, lineno, file=None, line=None):
        # one line, as the commands print their own warnings (Python's form adds
        # the file and the source line that raised it, of no use to a command's user)
        print(f"{args.command}: warning: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show
            status = args.run(args, args.parser)
        sys.stdout.flush()  # a closed pipe shows here rather than at exit
    except BrokenPipeError:
        # The reader went away (`animcore demo | head`): stop quietly, as the
        # Python documentation recommends, with stdout pointed at devnull so
        # that the flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status or 0  # a command's exit status (bake: 1 when a file failed)


if __name__ == "__main__":
    sys.exit(main())
