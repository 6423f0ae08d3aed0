"""How a code of the interface reads in words: the one table, plain Python, for the models'
own messages (`identifier_rules.problems_for`), the service layer's texts (the public
preview, the overview) and the app's every list and choice, which import it from here; how
a unit reads after its number (`unit_text`), and a mode (`mode_text`,
`mode_short`)."""

from __future__ import annotations


def words(code: str | None) -> str:
    """COST_NOT_AGREED -> "Cost not agreed"; short codes such as API or TL stay as they are."""
    if not code:
        return ""
    if "_" not in code and len(code) <= 3:
        return code
    return code.replace("_", " ").capitalize()


# Codes whose plain word is not `words`' reading: OLPN is said as it is, not "Olpn"; BOX,
# BAG and AIR are words, not abbreviations such as TL; a unit is its name, not its code (LB).
_CODE_TEXT = {
    "AIR": "Air",
    "VLTL": "Volume LTL",
    "BAG": "Bag",
    "BOX": "Box",
    "PLT": "Pallet",
    "OLPN": "OLPN",
    "SCAC": "SCAC",
    "CARRIER_SCAC": "Carrier SCAC",
    "FFW_SCAC": "Forwarder SCAC",
    "GTIN": "GTIN",
    "LB": "Pounds",
    "KG": "Kilograms",
    "IN": "Inches",
    "CM": "Centimeters",
    "FT": "Feet",
    "M": "Meters",
    "MI": "Miles",
    "KM": "Kilometers",
    "CAPACITY_PROVIDER_ACCOUNT_GROUP": "Account group",
}


# Said as letters within a longer code: "Carrier SCAC", "Container ID", not "Carrier scac".
_LETTERS = frozenset({"SCAC", "FFW", "PRO", "ID", "OLPN", "SKU", "GTIN", "LTL", "TL", "ETA"})


def code_text(code: str | None) -> str:
    """A code of the interface as a dispatcher reads it in a list or a choice:
    PURCHASE_ORDER -> "Purchase order", OLPN -> "OLPN", CONTAINER_ID -> "Container ID"."""
    if not code or code in _CODE_TEXT or "_" not in code:
        return _CODE_TEXT.get(code or "") or words(code)
    said = [part if part in _LETTERS else part.lower() for part in code.split("_")]
    return " ".join([said[0][:1].upper() + said[0][1:], *said[1:]])


def unit_name(code: str) -> str:
    """A unit named on its own in running text: "from 10 to 50 kilometers" (`code_text`
    names it in a choice: "Kilometers")."""
    return code_text(code).lower()


def unit_text(code: str) -> str:
    """A unit after its number, as a dispatcher writes it: "300 lb", "64 in", "12.5 mi"
    (`code_text` names it in a choice: "Pounds")."""
    return code.lower()


# The modes as a dispatcher names them; "TL" alone is said in full where there is room.
_MODE_TEXT = {
    "TL": "Truckload (TL)",
    "LTL": "LTL",
    "VLTL": "Volume LTL",
    "PARCEL": "Parcel",
    "RAIL": "Rail",
    "OCEAN": "Ocean",
    "AIR": "Air",
    "BARGE": "Barge",
}


def mode_text(code: str | None) -> str:
    """A transportation mode in a choice or a sentence: TL -> "Truckload (TL)", OCEAN ->
    "Ocean"; a mode this table does not know in `code_text`'s words."""
    return _MODE_TEXT.get(code or "") or code_text(code)


def mode_short(code: str | None) -> str:
    """A mode in a list's narrow column: "TL", "VLTL", "Ocean" (`mode_text` in its tooltip)."""
    return code if code in ("TL", "VLTL") else mode_text(code)


# How the carrier answered a booking (`carrierResponseMethod`), after "Answered by": API is
# their own system answering ours, not a word a dispatcher reads.
_RESPONSE_METHOD_TEXT = {
    "API": "The carrier's system",
    "EMAIL": "Email",
    "PHONE": "Phone",
    "PORTAL": "The carrier portal",
}


def response_method_text(code: str | None) -> str:
    """A booking's `carrierResponseMethod` after "Answered by": API -> "The carrier's
    system", EMAIL -> "Email"; a method this table does not know in `code_text`'s words."""
    return _RESPONSE_METHOD_TEXT.get(code or "") or code_text(code)


# Event types as a sentence of what happened, with the stop's name where one is known ("{}"),
# as the carriers' own descriptions read ("Arrived at Dallas DC"); truckload pushes carry no
# description, so the service writes these, and the app reads an event without one by them.
# Parcel and truckload spellings of the same milestone read alike.
_EVENT_TEXT: dict[str, tuple[str, str]] = {
    "ARRIVAL_AT_STOP": ("Arrived at {}", "Arrived at a stop"),
    "ARRIVED_AT_STOP": ("Arrived at {}", "Arrived at a stop"),
    "DEPARTURE_FROM_STOP": ("Departed {}", "Departed a stop"),
    "DEPARTED_STOP": ("Departed {}", "Departed a stop"),
    "PICKUP": ("Picked up at {}", "Picked up"),
    "PICKED_UP": ("Picked up at {}", "Picked up"),
    "IN_TRANSIT": ("In transit to {}", "In transit"),
    "DELIVERY": ("Delivered to {}", "Delivered"),
    "DELIVERED": ("Delivered to {}", "Delivered"),
    "AVAILABLE_FOR_PICKUP": ("Available for pickup at {}", "Available for pickup"),
    "CANCELLED": ("Shipment cancelled", "Shipment cancelled"),
    "CANCELED": ("Shipment cancelled", "Shipment cancelled"),
    "ETA": ("Estimated arrival at {}", "Estimated time of arrival"),
}


def event_text(code: str | None, stop: str | None = None) -> str:
    """What an event of type `code` says happened, at the stop named `stop` when known:
    ARRIVAL_AT_STOP at "Dallas DC" -> "Arrived at Dallas DC"; a type this table does not
    know in `code_text`'s words ("Dispatched")."""
    said = _EVENT_TEXT.get((code or "").upper())
    if said is None:
        return code_text(code)
    at_stop, anywhere = said
    return at_stop.format(stop) if stop else anywhere
