"""A request that cannot reach the Local sandbox's service is said as the local service's
trouble, never the network's, also in the moment after the service died and before its
supervisor heard of it; a request to another address (a remote connection tested from
Connections meanwhile) is still the network's. The real `freightdesk serve` child, killed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx

from freightdesk.api.errors import ConnectionFailed, transport_failure
from freightdesk.service.local_service import LocalService, ServiceState
from freightdesk.service.messages import (
    NOT_ANSWERING,
    RESTARTING,
    UNREACHABLE,
    explain,
    follow_local_service,
    passing,
)
from tests.support import free_port, wait_until


def _refused(url: str, seconds: float = 30.0) -> ConnectionFailed:
    """The client's error for a request to `url` once nothing listens there, raised as
    the client raises it. Blocking: the event loop, and the supervisor on it, does not run
    meanwhile."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            try:
                httpx.get(f"{url}/health", timeout=1.0)
            except httpx.ConnectError as exc:
                raise transport_failure("GET /health", exc) from exc
        except ConnectionFailed as failure:
            return failure
        assert time.monotonic() < deadline, f"{url} still answers"
        time.sleep(0.01)


async def test_a_local_service_not_reached_is_never_the_network(tmp_path: Path) -> None:
    service = LocalService(tmp_path / "data", demo=False, simulate=False, max_backoff=5.0)
    follow_local_service(service)
    url = await service.start()
    try:
        assert service.pid is not None
        os.kill(service.pid, signal.SIGKILL)
        # Its supervisor has not heard of its end yet: it is still said to run.
        failure = _refused(url)
        assert service.state is ServiceState.RUNNING
        assert explain(failure) == NOT_ANSWERING
        assert passing(explain(failure))
        elsewhere = _refused(f"http://127.0.0.1:{free_port()}")
        assert explain(elsewhere) == UNREACHABLE

        await wait_until(lambda: service.state is ServiceState.RESTARTING, seconds=10)
        assert explain(failure) == RESTARTING
        assert explain(elsewhere) == UNREACHABLE
    finally:
        await service.stop()
    # Stopped (another connection chosen): no longer this service's words.
    assert explain(failure) == UNREACHABLE
