"""The Local sandbox's service, begun before the rest of the app is loaded.

On a first run (the Local sandbox active and never connected to: no client id kept) what the
user waits for is the local service's start and its demo's first shipments, seconds, not the
window. The app begins that service as its very first step, before it loads Qt (`begin`), so
the service's start runs beside the window's on another core; the session's supervisor then
takes the process over (`take`, from `LocalService`) instead of starting one.

Later starts show the cached list first: a service starting beside the window would slow the
paint they are measured by. Their service is begun right after that paint (`begin_later`),
beside the rest of the app's loading (5 to 10 s at a load of 13), not after it: the list is
live that much sooner. Whether the service must give the app a new secret (`--rotate-client`:
none kept) is the session's rule (`ProfileStore.lost_local_secret`), told from the profiles
file and the secret's own file without loading or asking the keyring (a tenth of a second
quiet, half a second at a load of 13, on the GUI thread before the rest of the app loads).

Standard library only (and `lifetime`): this runs before anything else is loaded.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from freightdesk import lifetime
from freightdesk.service.profiles import Profile, ProfileKind, ProfileStore
from freightdesk.service.secrets import LOCAL_SECRET_FILE

log = logging.getLogger(__name__)

# How long a begun service not taken over is given to stop on SIGTERM before it is killed.
STOP_SECONDS = 5.0
# In the data directory: the port its service last listened on, asked for again next time.
PORT_FILE = "service.port"
# The client application `serve --rotate-client` gives the app's new secret (the demo's).
DESKTOP_CLIENT_NAME = "FreightDesk desktop"


def cli_command(python: str = sys.executable) -> list[str]:
    """How to run the `freightdesk` command line as a child process. In the desktop bundle
    (PyInstaller) the executable is FreightDesk itself, which runs the command line it is
    given: no interpreter, no -m."""
    frozen = getattr(sys, "frozen", False) and python == sys.executable
    return [python] if frozen else [python, "-m", "freightdesk.cli"]


def rotate_command(data_dir: Path, extra_args: Sequence[str] = ()) -> list[str]:
    """`freightdesk client rotate` as the app runs it when no secret is kept and the service
    already runs: the desktop client's new secret in `data_dir`'s database, printed as
    `client id <id>, client secret <secret>`."""
    return [
        *cli_command(),
        "client",
        "rotate",
        "--demo",
        DESKTOP_CLIENT_NAME,
        "--data-dir",
        str(data_dir),
        *extra_args,
    ]


def service_command(
    data_dir: Path,
    *,
    port: int = 0,
    demo: bool = True,
    simulate: bool = True,
    extra_args: Sequence[str] = (),
    python: str = sys.executable,
    parent_pipe: int | None = None,
) -> list[str]:
    """`freightdesk serve` as the app runs it for its Local sandbox on `data_dir`."""
    args = [
        *cli_command(python),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--log-level",
        "warning",
    ]
    if demo:
        args.append("--demo")
    if simulate:
        args.append("--simulate")
    if parent_pipe is not None:
        args += [lifetime.PARENT_PIPE_OPTION, str(parent_pipe)]
    return [*args, *extra_args]


@dataclass
class Begun:
    """A local service begun before the app's event loop ran, not yet taken over."""

    data_dir: Path
    port: int  # the one asked for (`port_to_ask`), 0 for any free one
    command: list[str]  # as `service_command` made it, without the parent pipe
    process: subprocess.Popen[bytes]  # stdout and stderr are pipes nobody reads yet
    parent_pipe: int | None  # the write end the app holds (see lifetime.watch_parent)

    def stop(self) -> None:
        """End the process (SIGTERM, then SIGKILL) and close what the app holds of it."""
        with contextlib.suppress(ProcessLookupError):
            self.process.terminate()
        try:
            self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.close_parent_pipe()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def close_parent_pipe(self) -> None:
        pipe, self.parent_pipe = self.parent_pipe, None
        if pipe is not None:
            os.close(pipe)


_begun: Begun | None = None


def is_first_run(profile: Profile) -> bool:
    """The Local sandbox, never connected to from this home (no client id kept)."""
    return profile.kind is ProfileKind.LOCAL and not profile.client_id


def begin(data_dir: Path, profile: Profile) -> Begun | None:
    """Begin the Local sandbox's service on `data_dir` when `profile` is a first run's (see
    the module's note), unless a service serves `data_dir` already (another window's, which
    the supervisor will use)."""
    if _begun is not None or not is_first_run(profile):
        return None
    return _start(data_dir)


def begin_later(data_dir: Path, profiles: ProfileStore) -> Begun | None:
    """On a later start of the Local sandbox (connected to before), begin its service on
    `data_dir` as the session's supervisor would start it: with `--rotate-client` when the
    app's secret is not kept (see the module's note). Nothing when another window's service
    serves `data_dir`; nothing begun when that fails (the supervisor starts one, and says
    why it cannot)."""
    profile = profiles.active
    if _begun is not None or profile.kind is not ProfileKind.LOCAL or is_first_run(profile):
        return None
    try:
        # Where the session keeps the secret without a keyring (AppSession), for the rule.
        profiles.keep_local_secret_in(data_dir / LOCAL_SECRET_FILE)
        lost = profiles.lost_local_secret(profile)
        return _start(data_dir, DESKTOP_CLIENT_NAME if lost else None)
    except Exception:
        log.exception("the local service could not be begun")
        return None


def _start(data_dir: Path, rotate_client: str | None = None) -> Begun | None:
    global _begun
    if lifetime.holder(data_dir, wait=0) is not None:
        return None
    data_dir.mkdir(parents=True, exist_ok=True)
    port = port_to_ask(data_dir)
    rotate = [] if rotate_client is None else ["--rotate-client", rotate_client]
    with lifetime.ChildPipe() as pipe:
        process = subprocess.Popen(
            service_command(data_dir, port=port, extra_args=rotate, parent_pipe=pipe.read),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=pipe.fds,
        )
    command = service_command(data_dir, port=port, extra_args=rotate)
    _begun = Begun(data_dir, port, command, process, pipe.write)
    return _begun


def port_to_ask(data_dir: Path) -> int:
    """The port the service on `data_dir` asks for: the one it listened on last, so that what
    the user copied of its address (a shipment's public link) keeps working on this computer;
    0 (any free one) the first time, or when another program listens there now. The one a
    begun service asked for while it is not taken over yet (the supervisor's command is the
    same)."""
    if _begun is not None and _begun.data_dir == data_dir:
        return _begun.port
    try:
        port = int((data_dir / PORT_FILE).read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return 0
    return port if 0 < port < 65536 and _free(port) else 0


def remember_port(data_dir: Path, port: int) -> None:
    """Keep the port the service on `data_dir` listens on for its next start."""
    try:
        (data_dir / PORT_FILE).write_text(f"{port}\n", encoding="utf-8")
    except OSError as exc:  # a read-only directory: the next start takes any free port
        log.warning("cannot keep the local service's port in %s: %s", data_dir, exc)


def _free(port: int) -> bool:
    """Whether the service could listen on the loopback `port`: bound as `serve` binds it
    (SO_REUSEADDR: the last run's closed connections do not keep it out)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def take(data_dir: Path) -> Begun | None:
    """The service `begin` started on `data_dir`, handed over once (None: none was)."""
    global _begun
    if _begun is None or _begun.data_dir != data_dir:
        return None
    begun, _begun = _begun, None
    return begun


def abandon() -> None:
    """Stop the service `begin` started if nothing took it over (the app ends first)."""
    global _begun
    begun, _begun = _begun, None
    if begun is not None:
        begun.stop()
