"""The command line: ``python -m animcore demo | bench``."""
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
