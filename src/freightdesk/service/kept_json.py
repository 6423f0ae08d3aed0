"""A service's last answer kept as JSON in the profile cache's meta table, to open with (and
show, with its age, while the service is away). Read and written in a worker thread, so the
event loop never waits on the disk; a pane without an open cache keeps nothing."""

from __future__ import annotations

import asyncio
import json

from freightdesk.service.cache import Cache


async def keep_json(cache: Cache | None, key: str, value: object) -> None:
    """`value` (plain JSON data) kept under `key`; nothing without a cache."""
    if cache is not None:
        await asyncio.to_thread(cache.set_meta, key, json.dumps(value))


async def kept_json(cache: Cache | None, key: str) -> object:
    """What `keep_json` kept under `key`: None when nothing is, or there is no cache."""
    text = None if cache is None else await asyncio.to_thread(cache.meta, key)
    return json.loads(text) if text else None
