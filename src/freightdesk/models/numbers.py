"""Numbers as a dispatcher types them, read by one rule in every field and table cell.

A dispatcher may write a weight as 1,500 (thousands) and a temperature or a coordinate as 2,5
(a decimal comma). The rule, whatever the computer's locale (a form is filled in from papers of
either kind):

- a point alone is a decimal point: `1.5`, `41.8781`;
- a comma alone followed by 1, 2 or 4 or more digits is a decimal comma: `1,5`, `41,8781`;
- a comma alone followed by exactly 3 digits is refused: `1,500` could be 1500 or 1.5, and
  reading it the wrong way is a load off by a thousand;
- with both, the last one is the decimal mark and the other groups thousands: `1,500.5` and
  `1.500,5` are 1500.5; so do repeated marks: `1,500,000` and `1.500.000` are 1500000;
- groups of thousands have exactly 3 digits; spaces and anything else make it not a number.
"""

from __future__ import annotations

import math
import re

_SHAPE = re.compile(r"^[+-]?[0-9.,]+$")
_GROUPED = re.compile(r"^[0-9]{1,3}(?:X[0-9]{3})+$")

NOT_A_NUMBER = "Enter a valid number, such as 1500 or 2.5"
# A number where a count or a percentage goes (1,5 read as 1.5 there).
NOT_WHOLE = "Enter a whole number, such as 15"


class NumberRefused(ValueError):
    """Text that is not a number by the rule, or not one surely; the message says why."""


def read_number(text: str) -> float | None:
    """The number in `text`; None when it is blank. Raises `NumberRefused` with words for the
    user when it is not a number or could be read two ways."""
    cleaned = text.strip()
    if not cleaned:
        return None
    if not _SHAPE.match(cleaned) or not any(c.isdigit() for c in cleaned):
        raise NumberRefused(NOT_A_NUMBER)
    sign = "-" if cleaned.startswith("-") else ""
    body = cleaned.lstrip("+-")
    commas, points = body.count(","), body.count(".")
    if commas and points:
        decimal = "," if body.rfind(",") > body.rfind(".") else "."
        group = "." if decimal == "," else ","
        if body.count(decimal) > 1:
            raise NumberRefused(NOT_A_NUMBER)
        whole, fraction = body.split(decimal)
        return _finite(sign + _ungrouped(whole, group) + "." + fraction)
    mark = "," if commas else "." if points else ""
    count = commas or points
    if count == 0:
        return _finite(sign + body)
    if count > 1:
        return _finite(sign + _ungrouped(body, mark))
    whole, fraction = body.split(mark)
    if mark == "," and len(fraction) == 3 and whole.strip("0"):
        # 0,500 is not a thousand anything: only a leading figure makes it two-way.
        thousands = f"{sign}{int(whole + fraction)}"
        decimal = f"{sign}{int(whole)}.{fraction.rstrip('0') or '0'}"
        raise NumberRefused(f"{cleaned} could be {thousands} or {decimal}: type one of those")
    return _finite(f"{sign}{whole or '0'}.{fraction}")


def number_problem(text: str) -> str | None:
    """Why `text` is not a number by the rule, or None when it is one (or blank)."""
    try:
        read_number(text)
    except NumberRefused as refused:
        return str(refused)
    return None


def _ungrouped(text: str, group: str) -> str:
    if not _GROUPED.match(text.replace(group, "X")):
        raise NumberRefused(NOT_A_NUMBER)
    return text.replace(group, "")


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise NumberRefused(NOT_A_NUMBER) from None
    if not math.isfinite(value):
        raise NumberRefused(NOT_A_NUMBER)
    return value
