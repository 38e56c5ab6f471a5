"""The ``lagassign`` command line.

lagassign assign [--input FILE] [--strategy NAME]
    Read one POST /assign request (JSON) from FILE or stdin, print the
    response JSON on stdout. A bad request prints the error JSON on stderr
    and exits 2.

lagassign serve
    Run the sidecar (uvicorn, one worker) with the settings of the
    LAGASSIGN_* environment variables. Settings it refuses are printed on
    stderr, with exit 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from lagassign.assign.answer import compute_answer
from lagassign.assign.lag_sources import request_lag_source
from lagassign.assign.request import parse_assign_request
from lagassign.core.strategies import DEFAULT_STRATEGY, STRATEGIES
from lagassign.errors import BadRequest, LagassignError

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lagassign",
        description="Lag-aware partition assignment for Kafka consumer groups.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    assign = commands.add_parser(
        "assign",
        help="compute one assignment from a POST /assign request (JSON on stdin or --input)",
        description="Read a POST /assign request and print the response JSON.",
    )
    assign.add_argument("--input", metavar="FILE", help="read the request from FILE, not stdin")
    assign.add_argument(
        "--strategy",
        choices=list(STRATEGIES),
        help=f"strategy when the request names none (default: {DEFAULT_STRATEGY})",
    )
    commands.add_parser(
        "serve",
        help="run the sidecar HTTP service (settings from LAGASSIGN_* variables)",
        description="Run the sidecar on LAGASSIGN_HOST:LAGASSIGN_PORT with one worker.",
    )
    return parser


def run_assign(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> None:
    if args.input:
        try:
            with open(args.input, "rb") as handle:
                raw = handle.read()
        except OSError as exc:
            raise BadRequest(f"cannot read {args.input}: {exc.strerror}") from None
    else:
        raw = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read().encode()
    request = parse_assign_request(raw)
    answer = compute_answer(request, request_lag_source(request), args.strategy or DEFAULT_STRATEGY)
    json.dump(answer.to_json(), stdout, separators=(",", ":"))
    stdout.write("\n")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "assign":
            run_assign(args, sys.stdin, sys.stdout)
        elif args.command == "serve":
            from lagassign.serve import serve  # imported here: `assign` needs no uvicorn

            return serve(os.environ, sys.stderr)
    except LagassignError as exc:
        json.dump(exc.body(), sys.stderr)
        sys.stderr.write("\n")
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
