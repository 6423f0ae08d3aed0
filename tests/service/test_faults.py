"""Faults as the service layer words them and waits them out, through the faulty proxy: a
web server's error page is named by its title, never shown as markup; a 429's Retry-After
holds the next poll back; a 5xx while the client asks for the service's extensions is not
remembered as "no extensions" (which would turn the shipment list's sync slow for good).
The UI side of each fault: tests/ui/test_faults.py."""

from __future__ import annotations

import httpx
import pytest

from freightdesk.api.client import EXTENSIONS_PATH, ApiClient
from freightdesk.api.errors import PermissionDenied, RateLimited, ServerError, TimedOut
from freightdesk.api.transport import NO_RETRY
from freightdesk.service.messages import explain
from tests.proxy import Fault, FaultyProxy
from tests.service.test_coordinator import _coordinator, proxied

__all__ = ["proxied"]

GROUPS = "/api/v4/capacityprovideraccountgroups"
FORBIDDEN_PAGE = (
    b"<html>\n<head><title>403 Forbidden</title></head>\n<body>\n"
    b"<center><h1>403 Forbidden</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>"
)


@pytest.fixture
def unretried(proxied: tuple[ApiClient, FaultyProxy]) -> tuple[ApiClient, FaultyProxy]:
    """The client through the proxy trying each request once (no retry waits out a fault)."""
    api, _proxy = proxied
    api.retry = NO_RETRY
    return proxied


async def test_an_html_error_page_is_named_by_its_title(
    proxied: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = proxied
    headers = {"content-type": "text/html"}
    proxy.inject(Fault(status=403, body=FORBIDDEN_PAGE, headers=headers, forward=False))
    with pytest.raises(PermissionDenied) as refused:
        await api.account_groups.list()
    assert explain(refused.value) == "Not allowed: 403 Forbidden"


async def test_a_poll_refused_with_retry_after_waits_as_long_as_asked(
    unretried: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = unretried
    coordinator = _coordinator(api, interval=1.0)
    try:
        assert await coordinator.fetch_now()
        proxy.inject(Fault(status=429, headers={"Retry-After": "120"}, path_prefix=GROUPS))
        assert not await coordinator.fetch_now()
        error = coordinator.status.last_error
        assert isinstance(error, RateLimited)
        assert explain(error) == (
            "The freight service is busy (too many requests) and asked to wait 120 s."
        )
        coordinator.max_backoff = 300.0
        assert coordinator.next_delay() == 120.0  # not the 0.5-1 s of its own backoff
        coordinator.max_backoff = 60.0
        assert coordinator.next_delay() == 60.0  # capped as any backoff
        assert coordinator.data is not None  # the last good list stays
    finally:
        await coordinator.aclose()


async def test_a_failing_service_is_not_taken_for_one_without_extensions(
    unretried: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = unretried
    proxy.inject(Fault(status=500, path_prefix=EXTENSIONS_PATH))
    with pytest.raises(ServerError):
        await api.tracking.has_search()
    assert await api.tracking.has_search()  # asked again once the service is well
    assert proxy.count("GET", EXTENSIONS_PATH) == 2


async def test_a_failing_service_is_not_taken_for_one_without_extensions_by_its_document(
    unretried: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = unretried
    # A service without the list (an older FreightDesk): the client reads the document.
    proxy.inject(Fault(status=404, forward=False, path_prefix=EXTENSIONS_PATH), times=2)
    proxy.inject(Fault(status=500, path_prefix="/openapi.json"))
    with pytest.raises(ServerError):
        await api.tracking.has_search()
    assert await api.tracking.has_search()
    assert proxy.count("GET", "/openapi.json") == 2


async def test_a_service_that_does_not_answer_is_reported_after_one_wait(
    proxied: tuple[ApiClient, FaultyProxy],
) -> None:
    api, proxy = proxied  # a client that retries what may be retried
    coordinator = _coordinator(api, interval=1.0)
    try:
        assert await coordinator.fetch_now()
        # Short only now: at load 10 the good fetch itself may take longer.
        api.http.timeout = httpx.Timeout(0.5)
        proxy.inject(Fault(delay=30.0, path_prefix=GROUPS), times=4)
        assert not await coordinator.fetch_now()
        error = coordinator.status.last_error
        assert isinstance(error, TimedOut)
        assert explain(error) == "The freight service did not answer within 0.5 s."
        assert proxy.count("GET", GROUPS) == 2  # the good fetch and one wait
        # The held answer never reached the client: it gave up, not waited the 30 s.
        assert proxy.answered("GET", GROUPS) == 1
    finally:
        await coordinator.aclose()
