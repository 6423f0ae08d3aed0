"""The demo's partner company: a freight broker the demo shipper works with, so that sharing
has something to show on a first run.

The demo shares a few of its truckload and LTL moves with the broker (the Sharing tab lists
the broker as a recipient), and the broker shares a few moves it arranged for the demo
shipper (the list has them, "Shared with you by Northline Logistics"). The broker's moves
are planned like the demo's own (`portfolio`), on the shipper's lanes, and written by the
seeding's own writer (passed in: `seed` imports this module).

Nobody signs in as the broker: its admin gets a random password, never printed.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from freightdesk.models.common import TransportationMode as Mode
from freightdesk.server.demo.itineraries import ShipmentPlan, new_id
from freightdesk.server.demo.portfolio import NA, Phase, choose_lane, placed_plan
from freightdesk.server.domain import shipments as tracking
from freightdesk.server.domain.tenants import ensure_tenant
from freightdesk.server.tables.tracking import Shipment

PARTNER_NAME = "Northline Logistics"
PARTNER_ADMIN = "northline-admin"
# Moves the broker arranged for the demo shipper and shares with it, by mode and phase
# (counted in `progress.DEMO_SHIPMENTS`: the demo tenant's list shows them).
PARTNER_MOVES: tuple[tuple[Mode, Phase], ...] = (
    (Mode.TL, Phase.UNDER_WAY),
    (Mode.LTL, Phase.UNDER_WAY),
    (Mode.TL, Phase.DELIVERED),
)
SHARED_WITH_DEMO = len(PARTNER_MOVES)
# The demo's own moves the broker follows: road freight, so that it can plan around them.
SHARED_WITH_PARTNER = 6
# Plan numbers past the demo's own (`portfolio.COUNTS` holds about 300), so that the
# broker's identifiers are not the demo's.
_FIRST_NUMBER = 9001

Writer = Callable[[Session, int, list[ShipmentPlan], datetime, int], list[str]]


def partner_plans(seed: int, anchor: datetime) -> list[ShipmentPlan]:
    """The broker's moves for the demo shipper, placed around `anchor`."""
    rng = random.Random(seed ^ 0xB20C)
    group = new_id(rng)
    plans = []
    for offset, (mode, phase) in enumerate(PARTNER_MOVES):
        number = _FIRST_NUMBER + offset
        lane = choose_lane(rng, mode, NA, number)
        plans.append(placed_plan(lane, rng.getrandbits(62), number, phase, anchor, rng, group))
    return plans


def seed_partner(
    session: Session, demo_tenant_id: int, seed: int, anchor: datetime, write: Writer
) -> int:
    """The broker, the demo's moves shared with it and its moves shared with the demo;
    returns how many shipments the demo tenant has gained in its list."""
    partner = ensure_tenant(session, PARTNER_NAME, PARTNER_ADMIN, secrets.token_urlsafe(24))
    partner_id = partner.tenant.id
    ids = write(session, partner_id, partner_plans(seed, anchor), anchor, seed)
    for shipment_id in ids:
        tracking.share_shipment(session, partner_id, shipment_id, demo_tenant_id)
    for shipment_id in _followed_by_partner(session, demo_tenant_id):
        tracking.share_shipment(session, demo_tenant_id, shipment_id, partner_id)
    return len(ids)


def _followed_by_partner(session: Session, demo_tenant_id: int) -> list[str]:
    """The demo's road moves under way, spread over its list (the same ones for a seed)."""
    rows = session.scalars(
        select(Shipment.id)
        .where(
            Shipment.tenant_id == demo_tenant_id,
            Shipment.deleted_at.is_(None),
            Shipment.mode.in_([Mode.TL.value, Mode.LTL.value]),
            Shipment.current_state.in_(["IN_TRANSIT", "AT_STOP"]),
        )
        .order_by(Shipment.pk)
    ).all()
    step = max(len(rows) // SHARED_WITH_PARTNER, 1)
    return list(rows[::step][:SHARED_WITH_PARTNER])
