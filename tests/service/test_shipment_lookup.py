"""Finding a listed shipment by an identifier typed whole or in part (the booking form's parent
shipment): whole matches first, any of a shipment's identifiers, any case, at most the limit;
an id pasted whole is taken as one."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from freightdesk.service.shipment_lookup import ShipmentIndex, as_shipment_id
from freightdesk.service.summary_rows import SummaryRow

BASE = datetime(2026, 11, 29, 12, tzinfo=UTC)


def _row(n: int, *identifiers: tuple[str, str]) -> SummaryRow:
    return SummaryRow(
        id=f"id-{n}",
        identifiers=identifiers,
        primary_identifier=identifiers[0][1] if identifiers else None,
        mode="LTL",
        current_state="IN_TRANSIT",
        origin_name="Chicago DC",
        destination_name="Dallas DC",
        next_eta=None,
        latest_event_type=None,
        latest_event_time=None,
        latest_event_description=None,
        open_exception_count=0,
        carrier=None,
        created=BASE,
        last_modified=BASE,
    )


def test_whole_matches_first_then_parts_in_list_order() -> None:
    index = ShipmentIndex(
        [
            _row(1, ("PRO", "PRO12345")),
            _row(2, ("PRO", "PRO1234"), ("BILL_OF_LADING", "B-77")),
            _row(3, ("CONTAINER_ID", "MSCU1234567")),
            _row(4, ("PRO", "PRO999")),
        ]
    )
    assert [f.row.id for f in index.find("pro1234")] == ["id-2", "id-1"]
    assert [f.row.id for f in index.find("1234")] == ["id-1", "id-2", "id-3"]
    found = index.find("b-77")
    assert [(f.row.id, f.kind, f.value) for f in found] == [("id-2", "BILL_OF_LADING", "B-77")]
    assert [f.row.id for f in index.find("1234", limit=2)] == ["id-1", "id-2"]
    assert index.find("  ") == [] and index.find("nothing") == []
    assert [f.row.id for f in index.named("PRO1234")] == ["id-2"]  # not PRO12345
    assert index.knows("id-3") and not index.knows("id-9")


def test_an_identifier_two_shipments_share_names_both() -> None:
    index = ShipmentIndex([_row(1, ("PURCHASE_ORDER", "PO-1")), _row(2, ("PRO", "PO-1"))])
    assert [f.row.id for f in index.named("po-1")] == ["id-1", "id-2"]


def test_an_id_pasted_whole() -> None:
    shipment_id = str(uuid.uuid4())
    assert as_shipment_id(f" {shipment_id.upper()} ") == shipment_id
    assert as_shipment_id("not-a-uuid") is None


def test_any_of_several_values_names_shipments_whole_in_list_order() -> None:
    """The upload dialog's question: which listed shipments have any of these values?"""
    index = ShipmentIndex(
        [
            _row(1, ("PRO", "PRO12345")),
            _row(2, ("BILL_OF_LADING", "B-77"), ("PRO", "PRO9")),
            _row(3, ("CONTAINER_ID", "MSCU1234567")),
        ]
    )
    found = index.named_any(["mscu1234567", " pro9 ", "", "PRO1234"])
    assert [(f.row.id, f.kind, f.value) for f in found] == [
        ("id-2", "PRO", "PRO9"),
        ("id-3", "CONTAINER_ID", "MSCU1234567"),
    ]
    assert index.named_any(["B-77", "pro9"])[0].row.id == "id-2"  # a shipment once
    assert len(index.named_any(["B-77", "pro9"])) == 1
