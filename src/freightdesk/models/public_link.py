"""What a shipment's public link (`shipmentShareLink`, read without credentials) shows
whoever has it: the tracked shipment, where it is (route and events), without its owner's
business data. One rule for the local service, which answers the link
(`server.domain.tracking_reads.public_shipment`), and the app, whose preview says what the
recipient does not see (`service.public_view`).
"""

from __future__ import annotations

from freightdesk.models.tracking import TrackedShipment

# The fields of a tracked shipment the link answers empty, with the words the preview says.
WITHHELD_FIELDS: dict[str, str] = {
    "attributes": "attributes",
    "costs": "costs",
    "access_groups": "access groups",
    "related_shipments": "related shipments",
}
# A shipment's history's, never in a shipment, so never in the link either; said too, so the
# owner does not take the preview for one that merely shows none of them yet.
NOT_IN_A_SHIPMENT = ("positions", "exceptions")


def withheld_words() -> str:
    """What the link does not show, as the preview says it."""
    named = [*WITHHELD_FIELDS.values(), *NOT_IN_A_SHIPMENT]
    return f"Not shown to whoever has the link: {', '.join(named[:-1])} and {named[-1]}."


def as_public(shipment: TrackedShipment) -> TrackedShipment:
    """`shipment` as its public link shows it."""
    return shipment.model_copy(update={name: [] for name in WITHHELD_FIELDS})
