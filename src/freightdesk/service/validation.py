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
from freightdesk.models.numbers import NOT_A_NUMBER, NOT_WHOLE, number_problem

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
    return text


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
        return None, problems
    return (None, problems) if problems else (body, {})
