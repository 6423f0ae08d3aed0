"""Checks a form runs before sending, with messages keyed by the service's field paths.

A form builds its request from a wire-shaped dict (camelCase), so pydantic's error
locations are the same paths the service names in `errors[].source`
(`openingHours[0].opens`, `authenticationMethods[1].parameters`), and `FieldErrors` puts
each message beside its field whichever side found the problem.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from freightdesk.models.base import error_location
from freightdesk.models.common import LATITUDE_BOUND, LONGITUDE_BOUND
from freightdesk.models.numbers import (
    NOT_A_NUMBER,
    NOT_WHOLE,
    NumberRefused,
    number_problem,
    read_number,
)
from freightdesk.service.messages import plain, plain_words

Model = TypeVar("Model", bound=BaseModel)

# Parts of a location pydantic adds for validators and unions, not fields of the data.
_INTERNAL = re.compile(r"[\[\](),]|^function-|^json-or-python")


def path_of(location: Sequence[int | str]) -> str:
    """("openingHours", 0, "opens") -> "openingHours[0].opens"."""
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _INTERNAL.search(part):
            continue
        else:
            path += f".{part}" if path else part
    return path or "body"


# pydantic's refusals of text typed into a number field: the one number rule says why instead.
_NUMBER_ERRORS = frozenset({"float_parsing", "int_parsing", "decimal_parsing"})
_NUMBER_TYPE = ("must be a number", "must be an integer")


def _typed(error: Any) -> Any:
    """The value a JSON type refusal (see models/base.py) is about: its field's input, or
    the value within it where the refusal points inside."""
    value = error.get("input")
    for part in (error.get("ctx") or {}).get("within") or ():
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def message_of(error: Any) -> str:
    """A pydantic error in the words a form shows beside its field."""
    given = error.get("input")
    if error.get("type") in _NUMBER_ERRORS and isinstance(given, str):
        return number_problem(given) or NOT_A_NUMBER
    if error.get("type") == "json_type" and str(error.get("msg", "")).startswith(_NUMBER_TYPE):
        # Text the form could not read as a number by the rule: say why it could not.
        typed = _typed(error)
        if isinstance(typed, str):
            problem = number_problem(typed) or NOT_A_NUMBER
            whole = str(error.get("msg")).startswith("must be an integer")
            return NOT_WHOLE if whole and problem == NOT_A_NUMBER else problem
    if error.get("type") == "int_from_float":
        return NOT_WHOLE
    text = str(error.get("msg", "is not valid"))
    for prefix in ("Value error, ", "Assertion failed, "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    # In the form's words (the one table the service's refusals go through too).
    return plain_words(path_of(error_location(error)), text)


def problems_of(exc: ValidationError) -> dict[str, str]:
    """The first message for each field path of a validation error."""
    found: dict[str, str] = {}
    for error in exc.errors():
        found.setdefault(path_of(error_location(error)), message_of(error))
    return found


def checked(
    model: type[Model], wire: dict[str, Any], problems: dict[str, str], **options: Any
) -> tuple[Model | None, dict[str, str]]:
    """`wire` as `model`, or every problem by field path: the form's own `problems` first,
    then the model's (`options` go to `model_validate`, e.g. `extra="forbid"`)."""
    try:
        body = model.model_validate(wire, **options)
    except ValidationError as exc:
        for path, message in problems_of(exc).items():
            problems.setdefault(path, message)
        return None, plain(problems)
    return (None, plain(problems)) if problems else (body, {})


# The bound either side of zero of a point's numbers (the models' GeoCoordinates').
COORDINATE_BOUNDS = {"latitude": LATITUDE_BOUND, "longitude": LONGITUDE_BOUND}
# Any valid point, in place of one refused while the models check the rest of a body.
POINT_STAND_IN: dict[str, float] = {"latitude": 0.0, "longitude": 0.0}


def coordinate_problems(point: Any, path: str, *, optional: bool = False) -> dict[str, str]:
    """The problems of a point's latitude and longitude as given (a number, the text typed
    when not one, None or left out when blank), each by its own path (`coordinates.latitude`).
    The models refuse a point at its first bad number ("abc" hid a latitude of 95: one
    message a press), so a check asks this first and sets the point aside. `optional`: the
    point may be left out whole, so clearing the other number is also an answer."""
    if not isinstance(point, dict):
        return {}
    given = {name: point.get(name) for name in COORDINATE_BOUNDS}
    blank = {name: value is None or str(value).strip() == "" for name, value in given.items()}
    problems: dict[str, str] = {}
    for (name, bound), other in zip(
        COORDINATE_BOUNDS.items(), ("longitude", "latitude"), strict=True
    ):
        if blank[name]:
            also = f" too, or clear the {other}" if optional else " too"
            problems[f"{path}.{name}"] = f"Enter the {name}" + ("" if blank[other] else also)
            continue
        between = f"{name.capitalize()} is between -{bound} and {bound}"
        problem = _coordinate_problem(given[name], between, bound)
        if problem:
            problems[f"{path}.{name}"] = problem
    return problems


def _coordinate_problem(value: object, between: str, bound: int) -> str | None:
    if isinstance(value, str):
        # Text read by the one number rule; one it could read two ways says so.
        try:
            value = read_number(value)
        except NumberRefused as refused:
            return between if str(refused) == NOT_A_NUMBER else str(refused)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return between
    return None if -bound <= value <= bound else between
