"""The ``lagassign`` command line.

lagassign assign [--input FILE] [--strategy NAME]
    Read one POST /assign request (JSON) from FILE or stdin, print the
    response JSON on stdout (in the request's answer_form). A bad request
    prints the error JSON on stderr and exits 2. The service's limits
    apply (lagassign.limits, and the LAGASSIGN_MAX_MEMBERS, _MAX_PARTITIONS
    and _MAX_BODY_BYTES variables): at most LAGASSIGN_MAX_BODY_BYTES are read.

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
from collections.abc import Mapping, Sequence
from typing import BinaryIO, TextIO

from lagassign import __version__
from lagassign.assign.collector import collector_paused
from lagassign.assign.lag_sources import request_lag_source
from lagassign.assign.rebalance import answer_and_body
from lagassign.assign.request import check_request_limits, parse_assign_request
from lagassign.core.strategies import DEFAULT_STRATEGY, STRATEGIES
from lagassign.errors import BadRequest, LagassignError, TooLarge
from lagassign.limits import RequestLimits
from lagassign.settings import Settings, SettingsError

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lagassign",
        description="Lag-aware partition assignment for Kafka consumer groups.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__}",
        help="print the version (the same as lagassign_build_info's) and exit",
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


def read_bounded(source: BinaryIO | TextIO, limit: int) -> bytes:
    """At most ``limit`` bytes of ``source``; TooLarge when there is more."""
    chunk = source.read(limit + 1)
    raw = chunk.encode() if isinstance(chunk, str) else chunk
    if len(raw) > limit:
        raise TooLarge(f"the input exceeds the limit of {limit} bytes (LAGASSIGN_MAX_BODY_BYTES)")
    return raw


def request_limits(environ: Mapping[str, str]) -> RequestLimits:
    """The service's limits, from the same LAGASSIGN_* variables; BadRequest if refused."""
    try:
        return Settings.from_environ(environ).request_limits
    except SettingsError as exc:
        raise BadRequest(str(exc), exc.problems) from None


def run_assign(
    args: argparse.Namespace, stdin: TextIO, stdout: TextIO, limits: RequestLimits
) -> None:
    if args.input:
        try:
            with open(args.input, "rb") as handle:
                raw = read_bounded(handle, limits.max_body_bytes)
        except OSError as exc:
            raise BadRequest(f"cannot read {args.input}: {exc.strerror}") from None
    else:
        raw = read_bounded(getattr(stdin, "buffer", stdin), limits.max_body_bytes)
    with collector_paused():
        # the request's objects are freed when answer_bytes returns, inside the pause
        body = answer_bytes(raw, args.strategy or DEFAULT_STRATEGY, limits)
    out = getattr(stdout, "buffer", None)
    if out is not None:
        stdout.flush()
        out.write(body + b"\n")
        out.flush()
    else:
        stdout.write(body.decode() + "\n")


def answer_bytes(raw: bytes, strategy: str, limits: RequestLimits) -> bytes:
    """The answer's JSON for the request body ``raw``, its lags from the request."""
    request = parse_assign_request(raw, limits)  # counted before it is decoded
    check_request_limits(request, limits)
    return answer_and_body(request, request_lag_source(request), strategy)[1]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "assign":
            run_assign(args, sys.stdin, sys.stdout, request_limits(os.environ))
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
