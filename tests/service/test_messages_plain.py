"""The local service's reasons, which name the API's fields for integrators, in the app's words:
the rules of `messages.plain_words` against the words the service's own code writes (a change
of those words fails here, not silently on a dispatcher's screen). Seen in the panes:
tests/ui/test_vltl_pane.py, tests/ui/test_vltl_local_restart.py. Every rule against the service over
HTTP: tests/service/test_messages_pins.py."""

from __future__ import annotations

from freightdesk.api.errors import ConnectionFailed, ConnectionLost, TimedOut
from freightdesk.server.domain import carrier_profiles
from freightdesk.server.domain.vltl import units
from freightdesk.service.messages import (
    NOT_CONNECTED,
    NOT_RESTARTED,
    RESTARTING,
    explain,
    passing,
    plain_words,
)


def test_a_carrier_that_does_not_convert_units_says_which_it_rates_in() -> None:
    metric = carrier_profiles.build_profile("MPLF", None)
    said = units.unit_problem(metric, "LB", "IN")
    assert said is not None and "apiConfiguration.enableUnitConversion" in said
    assert plain_words("NOT_QUOTED", said) == (
        f"{metric.name} rates only in KG and CM or M: it does not convert units"
    )
    imperial = carrier_profiles.build_profile("RDRN", None)
    said = units.unit_problem(imperial, "KG", "CM")
    assert said is not None
    assert plain_words("weightUnit", said) == (
        f"{imperial.name} rates only in LB and FT or IN: it does not convert units"
    )


def test_reasons_the_app_has_no_words_for_are_shown_as_they_are() -> None:
    said = "Redrun Logistics takes at most 20 line items, not 21"
    assert plain_words("NOT_QUOTED", said) == said


def test_only_a_service_not_reached_is_passing() -> None:
    """Not reached: nothing was done, and the words are stale once it answers. Lost or timed
    out: it may have acted, which stays said."""
    assert passing(explain(ConnectionFailed("GET /x: refused")))
    assert not passing(explain(ConnectionLost("POST /x: cut")))
    assert not passing(explain(TimedOut("POST /x: slow", seconds=30)))
    assert not passing(explain(ValueError("x")))
    assert not passing(None)
    # A form's "not connected", a failed or pending restart; said of what was asked for too.
    assert passing(NOT_CONNECTED) and passing(NOT_RESTARTED) and passing(RESTARTING)
    assert passing(f"ZPHR: {explain(ConnectionFailed('GET /x: refused'))}")
    assert not passing(f"{NOT_CONNECTED} And more")
