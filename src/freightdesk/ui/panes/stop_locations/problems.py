"""The stop location form's own check, before sending: every field's problem at once, each
in the words of the form's labels, in the form's order (plain Python, no Qt)."""

from __future__ import annotations

import re
from typing import Any

from freightdesk.models.stop_locations import StopLocationInput
from freightdesk.service.stop_locations import check_location
from freightdesk.service.validation import POINT_STAND_IN

# What stands in for a part the model refused while the rules check the rest: valid, and
# saying nothing the rules would refuse (coordinates satisfy "a street address or coordinates").
_STAND_INS: dict[str, Any] = {
    "name": "-",
    "address": {"addressLines": ["-"], "city": "-", "state": "-", "country": "US"},
    "coordinates": POINT_STAND_IN,
}


def every_problem(wire: dict[str, Any]) -> tuple[StopLocationInput | None, dict[str, str]]:
    """`check_location`, with every field's problem at once, in the form's order.

    `check_location` gives the model's problems alone, since its rules need a whole body (a
    blank name waited for a second Save), so the rules check the rest again, each refused
    part set aside: a stand-in for a required one, dropped if not."""
    body, problems = check_location(wire)
    if body is not None:
        return body, {}
    refused = {_top(path) for path in problems}
    _body, more = check_location(_set_aside(wire, refused))
    found = {path: message for path, message in more.items() if _top(path) not in refused}
    found |= problems
    # Top to bottom: the first one's field takes the keyboard.
    return None, dict(sorted(found.items(), key=lambda item: _place(item[0])))


def _top(path: str) -> str:
    """The wire field a problem's path starts with (`coordinates` of `coordinates.latitude`)."""
    return re.split(r"[.\[]", path, maxsplit=1)[0]


def _set_aside(wire: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    kept = {key: value for key, value in wire.items() if key not in keys}
    return kept | {key: _STAND_INS[key] for key in keys if key in _STAND_INS}


# Where this form says better than the shared plain words (`service.messages`, which the
# check and the service's refusals are said in already), by its labels: path: (the plain
# words' start, the form's words).
_FORM_WORDS: dict[str, tuple[str, str]] = {
    "name": ("Must not be blank", "Enter a name"),
    "address.addressLines": (
        "Required for a street address",
        "Enter the street and number, or give coordinates",
    ),
    "address.city": ("Required for a street address", "Enter a city, or give coordinates"),
}


def form_words(path: str, message: str) -> str:
    start, words = _FORM_WORDS.get(path, ("", ""))
    return words if start and message.startswith(start) else message


# The form's parts top to bottom, tab by tab.
_ORDER = (
    "name",
    "suppliedId",
    "version",
    "address",
    "coordinates",
    "openingHours",
    "specialOpeningHours",
    "geofence",
    "contacts",
)


def _place(path: str) -> int:
    key = re.split(r"[.\[]", path, maxsplit=1)[0]
    return _ORDER.index(key) if key in _ORDER else len(_ORDER)
