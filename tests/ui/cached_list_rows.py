"""Cached shipment rows of every kind the list sorts (ties, missing values, accents, the
Attention sort's exceptions and silent rows), and a model sorted as the user sorted it, for
the tests of the start's first screen (`first_paint`)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from freightdesk.service.summary_rows import SummaryRow
from freightdesk.ui.panes.shipments.attention import TriageLink
from freightdesk.ui.panes.shipments.columns import COLUMN_INDEX, COLUMNS
from freightdesk.ui.panes.shipments.model import ShipmentTableModel

NOW = datetime.now(UTC)
MODES = ["TL", "LTL", "OCEAN", "AIR", "PARCEL", None]
STATES = ["IN_TRANSIT", "IN_TRANSIT", "COMPLETED", "DISPATCHED", "AT_PICKUP", None]


def some_row(n: int, rng: random.Random) -> SummaryRow:
    def some_time() -> datetime | None:
        # Many in the last hours: in transit and silent or not, by mode.
        return None if rng.random() < 0.1 else NOW - timedelta(minutes=rng.randrange(4000))

    modified = NOW - timedelta(minutes=rng.randrange(3000))
    return SummaryRow(
        id=f"id-{n:05d}",
        identifiers=(("PRO", f"PRO{rng.randrange(900):05d}"),),
        primary_identifier=rng.choice([None, f"Pro{rng.randrange(900)}", f"pro{n}"]),
        mode=rng.choice(MODES),
        current_state=rng.choice(STATES),
        origin_name=rng.choice([None, "", "Zürich", "zurich", "Dallas, TX", "dallas, tx", "Ølen"]),
        destination_name=rng.choice([None, f"City {rng.randrange(50)}"]),
        next_eta=some_time(),
        latest_event_type=rng.choice([None, "ARRIVED", "DEPARTED"]),
        latest_event_time=some_time(),
        latest_event_description=None,
        open_exception_count=rng.choice([0, 0, 0, 0, 1, 2]),
        carrier=rng.choice([None, "ODFL", "odfl", "Saia", "XPO"]),
        # Ties in the last change too: the table keeps them in the cache's order.
        created=NOW - timedelta(days=rng.randrange(30)),
        last_modified=modified if rng.random() < 0.7 else NOW - timedelta(hours=5),
    )


def sorted_model(
    qapp: QApplication, tmp_path: Path, column: str, order: Qt.SortOrder
) -> tuple[ShipmentTableModel, TriageLink]:
    """A list sorted by `column`, triaged as the start's is (without facts)."""
    model = ShipmentTableModel()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    triage = TriageLink(model, settings, lambda: False, model)
    model.sort(COLUMN_INDEX[column], order)
    return model, triage


# Every sort the user can choose.
SORTS = [
    (c.key, order)
    for c in COLUMNS
    if c.key != "latestEvent"
    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder)
]


def spread_row(n: int, rng: random.Random) -> SummaryRow:
    """A row whose sort values are seldom another's (but for the mode's and the state's,
    of a few values each): a kept top is then told apart from the rows below it in every
    other sort, where `some_row`'s many ties leave the start to read the whole list."""

    def rarely_none(value: str) -> str | None:
        # Fewer rows without a value than a kept top holds: those tie.
        return None if rng.random() < 0.05 else value

    def some_time() -> datetime | None:
        return None if rng.random() < 0.05 else NOW - timedelta(seconds=rng.randrange(10**7))

    return SummaryRow(
        id=f"id-{n:05d}",
        identifiers=(("PRO", f"PRO{n:05d}"),),
        primary_identifier=f"Pro{rng.randrange(10**6):06d}",
        mode=rng.choice(MODES),
        current_state=rng.choice(STATES),
        origin_name=rarely_none(f"Örigin {rng.randrange(10**6)}"),
        destination_name=rarely_none(f"City {rng.randrange(10**6)}"),
        next_eta=some_time(),
        latest_event_type=rng.choice([None, "ARRIVED", "DEPARTED"]),
        latest_event_time=some_time(),
        latest_event_description=None,
        open_exception_count=0 if rng.random() < 0.05 else rng.randrange(1, 10**6),
        carrier=rarely_none(f"Carrier {rng.randrange(10**6)}"),
        created=NOW - timedelta(seconds=rng.randrange(10**7)),
        last_modified=NOW - timedelta(seconds=rng.randrange(10**7)),
    )
