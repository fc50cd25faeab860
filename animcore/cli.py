"""The command line: ``python -m animcore demo | bench | bake``."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m animcore",
                                     description="Game-animation math, correct and fast.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="each domain's reference scenario and its figures, "
                                     "next to the naive result")
    bench = commands.add_parser("bench", help="time every kernel against its baseline")
    bench.add_argument("cases", nargs="*", help="cases to run (default: all)")
    bench.add_argument("--repeats", type=int, default=5, help="timed repeats per measurement")
    bench.add_argument("--scale", type=float, default=1.0,
                       help="problem size relative to the issue's figures (e.g. 0.01 for a quick run)")
    # bake: glTF animation to frames
    bake = commands.add_parser(
        "bake", help="sample the animations of a glTF file on a frame grid and save them "
                     "(.npz or .csv)",
        description="Samples every channel of every clip (or of --clip) at frames 0, 1/fps, "
                    "... up to the clip's duration, the last frame exactly at its end. "
                    ".npz: one (frames, width) array per channel keyed '<clip>/<node>/<path>' "
                    "plus '<clip>/time'. .csv: one row per frame, columns clip, frame, time, "
                    "then '<node>/<path>/<component>'. Without FILE the built-in sample is "
                    "used; without --out a summary is printed.")
    bake.add_argument("file", nargs="*", default=[],
                      help=".gltf or .glb files, glob patterns or folders (default: the "
                           "built-in sample); several bake in parallel into --out DIR, one "
                           ".npz per clip plus manifest.csv")
    bake.add_argument("--fps", type=float, default=30.0, help="frames per second (default 30)")
    bake.add_argument("--clip", default=None, help="bake only the clip of this name")
    bake.add_argument("--out", default=None,
                      help="output file, .npz or .csv (default: print a summary); a folder "
                           "for several inputs")
    bake.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                      help="progress bar on stderr (auto: on a terminal, for long jobs)")
    bake.add_argument("--workers", type=int, default=None, metavar="N",
                      help="bake the files in N local processes (no Dask needed)")
    bake.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help="bake the files on a running Dask cluster (tcp://host:8786; "
                           "needs animcore[dask])")
    args = parser.parse_args(argv)

    if args.command == "demo":
        from . import demo
        demo.run()
    elif args.command == "bench":
        from . import bench as bench_module
        try:
            bench_module.run(args.cases, scale=args.scale, repeats=args.repeats)
        except ValueError as error:
            parser.error(str(error))
    elif args.command == "bake":
        from . import bake as bake_module
        if bake_module.is_many(args.file, args.workers, args.scheduler):
            return bake_module.run_many(args.file, args.fps, args.clip, args.out, args.progress,
                                        parser.error, workers=args.workers,
                                        scheduler=args.scheduler)
        bake_module.run(args.file[0] if args.file else None, args.fps, args.clip, args.out,
                        args.progress, parser.error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
