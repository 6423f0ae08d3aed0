"""Demo data for a fresh local service (`freightdesk serve --demo`)."""

from __future__ import annotations

from dataclasses import dataclass

from freightdesk.server.context import ServiceContext


@dataclass(frozen=True)
class DemoCredentials:
    client_id: str
    client_secret: str


def seed_demo(context: ServiceContext, seed: int = 7) -> DemoCredentials | None:
    """Fill an empty database with demo data; None when the database already had some."""
    return None
