"""Two FreightDesk windows on one profile share one local service: the second uses the one
the first started (never a second service, never a second simulator), leaves it running when
it quits, and starts its own on the same address once the first window's has ended."""

from __future__ import annotations

from pathlib import Path

import httpx

from freightdesk import lifetime
from freightdesk.service.local_service import LocalService, ServiceState
from tests.processes import alive
from tests.support import wait_until


def _window(data_dir: Path) -> LocalService:
    return LocalService(data_dir, demo=False, simulate=False, max_backoff=0.5)


async def _answers(url: str) -> bool:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        return (await http.get("/health")).status_code == 200


async def test_a_second_window_uses_the_running_service(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    first, second, third = _window(data_dir), _window(data_dir), _window(data_dir)
    try:
        url = await first.start()
        service_pid = first.pid
        assert service_pid is not None

        assert await second.start() == url
        assert second.state is ServiceState.RUNNING
        assert second.pid is None  # not its own
        assert second.attached_to == lifetime.Holder(pid=service_pid, url=url)
        assert lifetime.holder(data_dir) == lifetime.Holder(pid=service_pid, url=url)

        # The second window quits: the first one's service serves on.
        await second.stop()
        assert alive(service_pid) and await _answers(url)
        assert first.pid == service_pid

        # A third window uses it too; then the first window quits, and with it its service:
        # the third starts its own, at the same address, so its client keeps working.
        assert await third.start() == url
        await first.stop()
        assert not alive(service_pid)
        await wait_until(lambda: third.pid is not None, seconds=120)
        await wait_until(lambda: third.state is ServiceState.RUNNING, seconds=120)
        assert third.url == url and third.attached_to is None
        assert await _answers(url)
        assert lifetime.holder(data_dir) == lifetime.Holder(pid=third.pid, url=url)  # type: ignore[arg-type]
    finally:
        for window in (second, third, first):
            await window.stop()
    assert lifetime.holder(data_dir) is None
