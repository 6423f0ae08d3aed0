"""The one rule for numbers typed in the app's fields and table cells (`models/numbers.py`)."""

from __future__ import annotations

import pytest

from freightdesk.models.numbers import NOT_A_NUMBER, NumberRefused, number_problem, read_number
from freightdesk.service.validation import problems_of
from freightdesk.ui.widgets.row_table import number


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("1500", 1500.0),
        (" 2.5 ", 2.5),
        ("1,5", 1.5),  # a decimal comma, in a cell as in a coordinate
        ("41,8781", 41.8781),
        ("-87,62", -87.62),
        ("0,500", 0.5),  # no leading figure: not a thousand of anything
        ("1,500.5", 1500.5),
        ("1.500,5", 1500.5),
        ("1,500,000", 1_500_000.0),
        ("1.500.000", 1_500_000.0),
        ("1.500", 1.5),  # a point alone is a decimal point
        ("", None),
    ],
)
def test_numbers_read_one_way(typed: str, read: float | None) -> None:
    assert read_number(typed) == read
    assert number(typed) == read  # the table cells' reading is the same


@pytest.mark.parametrize("typed", ["1,500", "-1,250", "12,000"])
def test_a_comma_and_three_digits_is_refused_as_two_way(typed: str) -> None:
    with pytest.raises(NumberRefused, match="could be"):
        read_number(typed)
    assert number_problem("1,500") == "1,500 could be 1500 or 1.5: type one of those"
    assert number(typed) == typed  # kept as typed, for the check to name the field


@pytest.mark.parametrize("typed", ["lots", "1,50.5", "1,5,0", "1 500", "1e3", "nan", "."])
def test_not_numbers_are_refused(typed: str) -> None:
    assert number_problem(typed) == NOT_A_NUMBER


def test_a_form_check_says_why_in_words() -> None:
    from pydantic import BaseModel, ValidationError

    class Weight(BaseModel):
        value: float
        count: int

    with pytest.raises(ValidationError) as refused:
        Weight.model_validate({"value": "1,500", "count": "two"})
    assert problems_of(refused.value) == {
        "value": "1,500 could be 1500 or 1.5: type one of those",
        "count": NOT_A_NUMBER,
    }
