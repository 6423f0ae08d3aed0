"""What whoever has a shipment's public link sees (`getPublicShipment`, read without
credentials): the Sharing tab's "Preview as the recipient sees it".

The public view is a tracked shipment without its owner's business data, by the rule the
local service answers the link with (`models.public_link`), and (being a shipment, not a
history) no states, positions or exceptions. Where the shipment is and what comes next are read from
its events with the Overview's own rules (`service.overview`), so the preview and the
Overview never disagree on the same events.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from freightdesk.models.code_words import code_text
from freightdesk.models.public_link import withheld_words
from freightdesk.models.tracking import (
    RouteStop,
    TrackedShipment,
    TrackedShipmentEvent,
    TrackingHistory,
)
from freightdesk.service.messages import explain
from freightdesk.service.overview import Overview, overview_of

if TYPE_CHECKING:
    from freightdesk.api.client import ApiClient

# A share token as the service makes them (URL-safe base64); anything else is no link of
# this service, and is never sent.
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
WITHHELD = withheld_words()
GONE = (
    "Nobody can open this link any more: the service answers that it shows no shipment "
    "(tracking was stopped and the shipment deleted, or the link is not one of this "
    "service's)."
)
NOT_A_LINK = "This is not a public link of this service: it does not end with a share token."
# Beside a public link that names this computer (the Local sandbox's service).
THIS_COMPUTER_ONLY = "Works on this computer only: partners need a link from your team server."


class PreviewRefused(Exception):
    """The link shows nothing: the reason in words (`str(error)`)."""


@dataclass(frozen=True)
class PublicView:
    """The public view of one shipment, as facts the app words with its clock."""

    link: str
    name: str
    identifiers: tuple[str, ...]  # "Bill of lading: 123"-style, as the recipient reads them
    stops: tuple[RouteStop, ...]
    events: tuple[TrackedShipmentEvent, ...]  # oldest first
    overview: Overview
    last_modified: datetime | None
    read_at: datetime  # a snapshot: the link read again shows what came since


def share_token(link: str) -> str | None:
    """The token a public link ends with, or None when it is not one."""
    tail = link.strip().rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
    return tail if _TOKEN.fullmatch(tail) else None


def this_computer_only(link: str) -> bool:
    """Whether a public link names a loopback host: whoever opens it elsewhere reaches their
    own computer, not this service (the Local sandbox's links; a team server's name itself)."""
    host = urlsplit(link.strip()).hostname
    if host is None:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: the team server's, reachable from wherever it is resolved


def public_view_of(link: str, shipment: TrackedShipment, now: datetime) -> PublicView:
    """The preview of `shipment` as the public read answered it, at `now` (aware)."""
    stops = tuple(shipment.route_info.stops) if shipment.route_info else ()
    events = tuple(sorted(shipment.events, key=lambda e: (e.date_time is None, e.date_time or now)))
    history = TrackingHistory(shipment=shipment, events=list(shipment.events))
    first = shipment.identifiers[0].value if shipment.identifiers else str(shipment.id)
    return PublicView(
        link=link,
        name=first,
        identifiers=tuple(f"{code_text(i.type)}: {i.value}" for i in shipment.identifiers),
        stops=stops,
        events=events,
        overview=overview_of(history, now),
        last_modified=shipment.last_modified_date_time,
        read_at=now,
    )


async def read_public_view(client: ApiClient, link: str, now: datetime) -> PublicView:
    """Read the link as its recipient does (no credentials, from this service only: the
    token is taken from the link, so a link naming another host is never followed)."""
    from freightdesk.api.errors import NotFound

    token = share_token(link)
    if token is None:
        raise PreviewRefused(NOT_A_LINK)
    try:
        shipment = await client.tracking.public_shipment(token)
    except NotFound as exc:
        raise PreviewRefused(GONE) from exc
    return public_view_of(link, shipment, now)


def preview_problem(error: BaseException) -> str:
    """Why the preview shows nothing, in words."""
    if isinstance(error, PreviewRefused):
        return str(error)
    return f"The preview could not be read. {explain(error)}"
