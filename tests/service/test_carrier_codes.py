"""The one rule for what a dispatcher types for a carrier: its name, its SCAC, or the
completion the app offers, as the carrier's code; a name the app does not know refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from freightdesk.service.carrier_codes import carrier_code, carrier_codes
from freightdesk.service.carrier_names import CARRIER_NAMES

NAMES = {
    "BMLG": "Blue Mesa Logistics",
    "PWTR": "Prairie Wind Transport",
    "KLTL": "Keystone LTL",
    "KFRL": "Keystone Freight Lines",
}


@pytest.fixture(autouse=True)
def names() -> Iterator[None]:
    before = CARRIER_NAMES.as_dict()
    CARRIER_NAMES.replace(NAMES)
    yield
    CARRIER_NAMES.replace(before)


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("Blue Mesa Logistics (BMLG)", "BMLG"),  # the completion
        ("Blue Mesa", "BMLG"),  # its short name, as the walkthrough typed it
        ("  blue   mesa logistics ", "BMLG"),
        ("prairie", "PWTR"),  # the one name a word of which starts so
        ("wind", "PWTR"),
        ("bmlg", "BMLG"),
        ("ABCD", "ABCD"),  # a SCAC the app does not know is still a SCAC
        ("Keystone LTL", "KLTL"),
    ],
)
def test_a_name_or_a_scac_is_the_carrier_code(typed: str, code: str) -> None:
    assert carrier_code(typed) == (code, None)


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("Blu Mesa", "No carrier the app knows is named 'Blu Mesa'; type its SCAC"),
        ("A1", "'A1' is not a SCAC (2 to 4 letters)"),
        (
            "Keystone",
            "'Keystone' names several carriers (Keystone Freight Lines (KFRL), Keystone LTL "
            "(KLTL)): pick one, or type its SCAC",
        ),
    ],
)
def test_what_names_no_carrier_says_why(typed: str, problem: str) -> None:
    assert carrier_code(typed) == (None, problem)


def test_nothing_typed_is_no_carrier_and_no_problem() -> None:
    assert carrier_code("  ") == (None, None)


def test_a_list_by_commas_names_and_codes_mixed() -> None:
    assert carrier_codes("Blue Mesa, pwtr; ABCD EFGH, BMLG") == (
        ["BMLG", "PWTR", "ABCD", "EFGH"],
        None,
    )
    assert carrier_codes("") == ([], None)
    codes, problem = carrier_codes("Blue Mesa, Blu Mesa, 12")
    assert codes == ["BMLG"]
    assert problem == (
        "No carrier the app knows is named 'Blu Mesa'; type its SCAC; "
        "'12' is not a SCAC (2 to 4 letters)"
    )
