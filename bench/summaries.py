"""Made-up shipment summaries for the benchmarks: the same rows for the same seed, whatever
the benchmark (the start-up's cached list, the shipment table, the cache keys)."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

from freightdesk.models.common import LogisticsIdentifier, TransportationMode
from freightdesk.models.shipment_search import LatestEvent, ShipmentSummary
from freightdesk.models.tracking import ShipmentStateType

CITIES = [
    "Chicago, IL",
    "Dallas, TX",
    "Atlanta, GA",
    "Rotterdam",
    "Hamburg",
    "Memphis, TN",
    "Los Angeles, CA",
    "Newark, NJ",
    "Lyon",
    "Toronto, ON",
]


def summaries(count: int, rng: random.Random) -> list[ShipmentSummary]:
    base = datetime(2026, 11, 1, tzinfo=UTC)
    modes = list(TransportationMode)
    states = list(ShipmentStateType)
    result = []
    for n in range(count):
        pro = f"PRO{n:08d}"
        modified = base + timedelta(minutes=rng.randrange(0, 30 * 24 * 60))
        result.append(
            ShipmentSummary(
                id=uuid.UUID(int=rng.getrandbits(128)),
                identifiers=[
                    LogisticsIdentifier(type="PRO", value=pro),
                    LogisticsIdentifier(type="BILL_OF_LADING", value=f"BOL{rng.randrange(10**9)}"),
                ],
                primary_identifier=pro,
                mode=rng.choice(modes),
                current_state=rng.choice(states),
                origin_name=rng.choice(CITIES),
                destination_name=rng.choice(CITIES),
                next_eta=modified + timedelta(days=2),
                latest_event=LatestEvent(type="DEPARTED", date_time=modified),
                open_exception_count=rng.choice([0] * 9 + [1]),
                carrier=rng.choice(["ODFL", "SAIA", "XPOL", "MAEU"]),
                created_date_time=modified - timedelta(days=3),
                last_modified_date_time=modified,
            )
        )
    return result
