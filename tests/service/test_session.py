"""The session's services: made when first asked for, closed only when made."""

from __future__ import annotations

from pathlib import Path

from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import MemorySecretStore
from freightdesk.service.session import AppSession


def _session(tmp_path: Path) -> AppSession:
    paths = AppPaths.under(tmp_path / "home")
    return AppSession(paths, ProfileStore(paths.profiles_file, MemorySecretStore()))


async def test_services_are_made_on_first_use_over_the_open_cache(tmp_path: Path) -> None:
    session = _session(tmp_path)
    assert session.documents is None and session.bookings is None  # no cache open yet
    session.open_cache(session.profiles.active)
    assert session.shipments is not None
    bookings = session.bookings
    assert bookings is not None and session.bookings is bookings  # made once
    uploads = session.uploads  # needs the documents service, made with it
    assert uploads is not None and session.documents is not None
    for name in ("stop_locations", "webhooks", "account_groups", "rating", "packages"):
        assert getattr(session, name) is not None, name
    await session.close()
    assert session.bookings is None and session.uploads is None and session.cache is None
