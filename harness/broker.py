"""The local Kafka broker, driven through the project's ``deploy/local-kafka/kafka`` script.

- :class:`LocalKafka`: a KRaft broker in a directory (or, with ``racks``, one node
  per rack: node 1 broker and controller, the others brokers only); ``start()``
  (again: the same data and ports), ``stop()``, ``is_running()``, its
  ``bootstrap`` (and ``sasl_bootstrap``/``sasl_users`` when started with SASL), and
  Kafka's own ``kafka-consumer-groups`` against it;
- :func:`start_broker` / :func:`stop_broker`: the broker already running in a
  directory, or one started there; stopped only if this process started it;
- :func:`local_broker`: a benchmark's broker, the one given or a temporary one.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KAFKA_SCRIPT = REPO / "deploy" / "local-kafka" / "kafka"
START_TIMEOUT_S = 300
STOP_TIMEOUT_S = 120


def _script(
    *args: str, timeout_s: float, check: bool = True, heap_opts: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the broker script; a failure raises with the script's own message."""
    env = {**os.environ, "KAFKA_HEAP_OPTS": heap_opts} if heap_opts else None
    done = subprocess.run(
        [str(KAFKA_SCRIPT), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout_s,
        env=env,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"kafka {args[0]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done


@dataclass
class LocalKafka:
    """One broker in ``directory``; ``port`` 0 picks a free one, None keeps the script's.

    ``heap_opts`` is the broker JVM's ``KAFKA_HEAP_OPTS`` (the script's default if None);
    ``start_args`` are more arguments of the script's ``start`` (``--lagassign-url URL``,
    ``--set KEY=VALUE``, ...). ``racks`` (``("a", "b")``) starts one node per rack, node
    ids 1, 2, ... in that order, each with ``broker.rack`` set.
    """

    directory: Path
    sasl: bool = False
    port: int | None = 0
    heap_opts: str | None = None
    start_args: tuple[str, ...] = ()
    racks: tuple[str, ...] = ()
    started_here: bool = False
    state: dict[str, object] = field(default_factory=dict)

    @property
    def bootstrap(self) -> str:
        return str(self.state["bootstrap"])

    @property
    def sasl_bootstrap(self) -> str | None:
        value = self.state.get("sasl_bootstrap")
        return None if value is None else str(value)

    @property
    def sasl_users(self) -> dict[str, str]:
        users = self.state.get("sasl_users") or {}
        assert isinstance(users, dict)
        return {str(k): str(v) for k, v in users.items()}

    @property
    def node_racks(self) -> dict[int, str | None]:
        """Node id -> its ``broker.rack`` (None without racks)."""
        nodes = self.state.get("nodes") or []
        assert isinstance(nodes, list)
        return {int(n["node_id"]): n.get("rack") for n in nodes}

    @property
    def pid(self) -> int:
        return int(str(self.state["pid"]))

    def start(self, fresh: bool = False, timeout_s: float = 90.0) -> None:
        """Start (or start again) this broker and wait until it answers (``fresh``: wipe first).

        The broker is stopped when this process ends, even if it is killed.
        """
        command = ["start", "--dir", str(self.directory), "--timeout", str(timeout_s)]
        command += ["--stop-with", str(os.getpid())]
        if not self.state and self.port is not None:
            command += ["--port", str(self.port)]
        if self.sasl:
            command.append("--sasl")
        if self.racks:
            command += ["--racks", ",".join(self.racks)]
        if fresh:
            command.append("--fresh")
        command += self.start_args
        _script(*command, timeout_s=timeout_s + START_TIMEOUT_S, heap_opts=self.heap_opts)
        self.started_here = True
        self.read_state()

    def read_state(self) -> None:
        """Load ``broker.json`` (ports, pid, bootstrap addresses) written by the script."""
        self.state = json.loads((self.directory / "broker.json").read_text())

    def stop(self, timeout_s: float = 30.0) -> None:
        """Stop this broker (its own pid only; SIGKILL after ``timeout_s``) and wait for it."""
        command = ["stop", "--dir", str(self.directory), "--timeout", str(timeout_s)]
        _script(*command, timeout_s=timeout_s + STOP_TIMEOUT_S)

    def is_running(self) -> bool:
        return (
            _script("status", "--dir", str(self.directory), timeout_s=30, check=False).returncode
            == 0
        )

    def consumer_groups(self, *args: str) -> str:
        """Kafka's own ``kafka-consumer-groups`` against this broker; its stdout."""
        done = _script(
            "consumer-groups", "--bootstrap-server", self.bootstrap, *args, timeout_s=120
        )
        return done.stdout


def start_broker(
    directory: Path, port: int | None = None, start_args: tuple[str, ...] = ()
) -> LocalKafka:
    """The broker running in ``directory``, else one started there (on ``port`` if given).

    ``start_args`` are the script's further ``start`` arguments for a broker started here.
    """
    if not KAFKA_SCRIPT.is_file():
        raise SystemExit(f"{KAFKA_SCRIPT} is missing: run this from the lagassign source tree")
    broker = LocalKafka(directory, port=port, start_args=start_args)
    if broker.is_running():
        broker.read_state()
    else:
        broker.start()
    return broker


def stop_broker(broker: LocalKafka) -> None:
    """Stop ``broker`` if this process started it; leave a broker it found running."""
    if broker.started_here:
        broker.stop()


@contextmanager
def local_broker(
    bootstrap: str | None,
    directory: Path | None = None,
    *,
    heap_opts: str | None = None,
    prefix: str = "lagassign-bench-",
    start_args: tuple[str, ...] = (),
) -> Iterator[str]:
    """Yield ``bootstrap`` if given, else start a broker and stop it at the end.

    The broker runs in ``directory`` (wiped first) or in a temporary directory, started
    with the script's further ``start_args`` (``--lagassign-url URL``, ...).
    """
    if bootstrap:
        yield bootstrap
        return
    with contextlib.ExitStack() as stack:
        if directory is None:
            directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix)))
        broker = LocalKafka(directory, heap_opts=heap_opts, start_args=start_args)
        broker.start(fresh=True, timeout_s=180.0)
        stack.callback(broker.stop, 120.0)
        yield broker.bootstrap
