"""``python -m paimon_lens.synth OUT_TABLE_DIR --rows N --files N ...``: the ``synth`` subcommand alone."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .cli import add_synth_parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` as ``paimon-lens synth`` arguments and run it."""
    parser = argparse.ArgumentParser(prog="python -m paimon_lens.synth")
    sub = parser.add_subparsers(dest="command")
    add_synth_parser(sub)
    args = parser.parse_args(["synth", *(sys.argv[1:] if argv is None else argv)])
    code: int = args.func(args, sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
