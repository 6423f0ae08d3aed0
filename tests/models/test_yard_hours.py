"""A yard site's opening hours as a dispatcher types them and as the app says them back: a
range of days may wrap the week (FRI-MON is Friday to Monday), what the app writes it reads
again, and hours it cannot take are said in plain words with an example."""

from __future__ import annotations

from itertools import combinations

import pytest
from pydantic import ValidationError

from freightdesk.models.weekdays import Weekday, days_named
from freightdesk.models.yard import OpeningHours, opening_hours_text, parse_opening_hours


def _rules(text: str) -> list[OpeningHours]:
    return [OpeningHours.model_validate(rule) for rule in parse_opening_hours(text)]


def test_a_range_of_days_may_wrap_the_week() -> None:
    rules = _rules("Fri-Mon 06:00-22:00; SAT-TUE 08:00-12:00")
    assert rules[0].days == ["FRI", "SAT", "SUN", "MON"]
    assert rules[1].days == ["SAT", "SUN", "MON", "TUE"]
    assert opening_hours_text(rules) == "FRI-MON 06:00-22:00; SAT-TUE 08:00-12:00"
    assert _rules("TUE-MON 00:00-24:00")[0].days == [
        "TUE",
        "WED",
        "THU",
        "FRI",
        "SAT",
        "SUN",
        "MON",
    ]
    assert opening_hours_text(_rules("TUE-MON 00:00-24:00")) == "MON-SUN 00:00-24:00"


def test_every_choice_of_days_reads_back_as_written() -> None:
    """Whatever days a site opens on, the text the app writes for them (in the CLI's words
    and the app's, en dashes) is read back as those days."""
    for count in range(1, 8):
        for days in combinations(Weekday, count):
            for written in (days_named(days), days_named(days, str.title, "\u2013", ", ")):
                (rule,) = parse_opening_hours(f"{written} 06:00-22:00")
                assert sorted(rule["days"], key=list(Weekday).index) == list(days), written
    assert days_named(["SAT", "SUN", "MON", "WED"]) == "WED,SAT-MON"
    assert days_named(["SUN", "MON"]) == "MON,SUN"
    assert days_named(["SUN", "MON", "WED"]) == "MON,WED,SUN"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("MON-FRI", "'MON-FRI': write the days, then the hours, e.g. Mon-Fri 06:00-22:00"),
        ("", "give the opening hours, e.g. Mon-Fri 06:00-22:00"),
        ("Weekdays 08:00-17:00", "'WEEKDAYS' is not a day or a range of days"),
        ("Mon 9-5", "'9-5': write hours and minutes, e.g. 06:00-22:00"),
    ],
)
def test_days_not_understood_are_said_with_an_example(text: str, words: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_opening_hours(text)
    assert str(raised.value).startswith(words)


@pytest.mark.parametrize(
    ("hours", "words"),
    [
        ({"opens": "9", "closes": "17:00"}, "'9' is not a time: write hours and minutes, e.g."),
        ({"opens": "22:00", "closes": "06:00"}, "22:00-06:00 closes before it opens"),
        ({"opens": "24:00", "closes": "24:00"}, "a day opens at 00:00, e.g. 00:00-06:00"),
    ],
)
def test_hours_refused_are_said_with_an_example(hours: dict[str, str], words: str) -> None:
    """The rules' own words, the service's too."""
    with pytest.raises(ValidationError) as raised:
        OpeningHours.model_validate({"days": ["MON"], **hours})
    said = [str(error["msg"]).removeprefix("Value error, ") for error in raised.value.errors()]
    assert said[0].startswith(words), said
    # Not the fields' names nor a format's letters.
    assert not any(name in " ".join(said) for name in ("must be after opens", "HH:MM"))
