"""The one way the app says a span of time (`models/durations.py`): the attention column,
the overview, a quote's validity, a booking's countdown and a carrier's response delay all
read "3 h 05 min", none "3 h 5 m" beside another's "3 h 05 min"."""

from __future__ import annotations

from datetime import timedelta

import pytest

from freightdesk.models.durations import duration_text


@pytest.mark.parametrize(
    ("span", "text"),
    [
        (timedelta(minutes=-5), "0 min"),
        (timedelta(0), "0 min"),
        (timedelta(seconds=59), "under 1 min"),
        (timedelta(minutes=1), "1 min"),
        (timedelta(minutes=45, seconds=59), "45 min"),
        (timedelta(minutes=60), "1 h"),
        (timedelta(hours=3, minutes=5), "3 h 05 min"),
        (timedelta(hours=22), "22 h"),  # no "22 h 00 min"
        (timedelta(hours=2, minutes=10, seconds=59), "2 h 10 min"),
        (timedelta(hours=47, minutes=59), "47 h 59 min"),
        (timedelta(hours=48), "2 d"),
        (timedelta(days=2, hours=4, minutes=59), "2 d 4 h"),
        (timedelta(days=3, hours=4, minutes=30), "3 d 4 h"),
    ],
)
def test_a_span_in_a_dispatchers_words(span: timedelta, text: str) -> None:
    assert duration_text(span) == text


def test_one_function_says_spans() -> None:
    """The service's triage, the overview and the UI's formatting say spans with this one (two
    of them once said "3 h 5 m" and "3 h 05 min" in panes side by side)."""
    from freightdesk.service import overview, triage
    from freightdesk.ui import formatting

    assert triage.duration_text is duration_text
    assert overview.duration_text is duration_text
    assert formatting.duration_text is duration_text
