"""A network namespace of the test's own, for a service that listens on an address that is not
loopback: the address lives on the namespace's loopback device, so no traffic leaves this
machine (the workplace allows only loopback and the test's own namespaces as targets)."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from tests.support import missing

T = TypeVar("T")

_CLONE_NEWNET = 0x40000000
SERVICE_ADDRESS = "10.213.0.1"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@pytest.fixture
def namespace() -> Iterator[str]:
    """A network namespace with its loopback up and 10.213.0.1/32 on it; deleted after."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        missing("needs root and iproute2 to make a network namespace")
    name = f"fd-targets-{uuid.uuid4().hex[:8]}"
    try:
        _ip("netns", "add", name)
    except subprocess.CalledProcessError as exc:
        missing(f"cannot make a network namespace here: {exc.stderr.decode().strip()}")
    try:
        _ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        _ip("netns", "exec", name, "ip", "addr", "add", f"{SERVICE_ADDRESS}/32", "dev", "lo")
        yield name
    finally:
        _ip("netns", "del", name)


def inside(name: str, work: Callable[[], T]) -> T:
    """`work` run in a thread of its own that entered the namespace (threads it starts are in
    it too); the thread ends with it."""
    libc = ctypes.CDLL(None, use_errno=True)
    outcome: list[Any] = []

    def run() -> None:
        try:
            fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
            try:
                if libc.setns(fd, _CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns failed")
            finally:
                os.close(fd)
            outcome.append(work())
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    thread = threading.Thread(target=run, name=f"in-{name}")
    thread.start()
    thread.join(120)
    assert not thread.is_alive(), "the work in the namespace did not end"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    result: T = outcome[0]
    return result
