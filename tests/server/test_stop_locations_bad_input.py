"""Hand-made bad stop locations over real HTTP: each is the interface's Error body, 400 naming
the field, and nothing is written. These were stored before: control characters in a name,
a supplied id or a contact, and values of another JSON type inside the lists (an opening
hours' `"yes"` was read as true)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server.test_stop_locations import PATH, create, location
from tests.support import TenantHandle

CONTROL = "must not contain control characters"
CASES: list[tuple[dict[str, Any], str, str]] = [
    ({"name": "Dock\t4"}, "name", CONTROL),
    ({"name": "Dock\n4"}, "name", CONTROL),
    ({"suppliedId": "SITE\u00074"}, "suppliedId", CONTROL),
    ({"contacts": [{"contactId": "ann\r", "type": "DISPATCH"}]}, "contacts[0].contactId", CONTROL),
    ({"contacts": [{"contactId": "ann", "type": "DIS\u0085"}]}, "contacts[0].type", CONTROL),
    (
        {"openingHours": [{"appliesMonday": "yes", "opens": "08:00", "closes": "16:00"}]},
        "openingHours[0].appliesMonday",
        "must be a boolean, not text",
    ),
    (
        {"specialOpeningHours": [{"validFrom": "2027-01-01", "hours": {"appliesMonday": 1}}]},
        "specialOpeningHours[0].hours.appliesMonday",
        "must be a boolean, not an integer",
    ),
    (
        {"contacts": [{"contactId": "ann", "type": "DISPATCH", "primary": True}]},
        "contacts[0].primary",
        "Extra inputs are not permitted",
    ),
    (
        {"geofence": {"type": "TIME", "units": "MINUTES", "value": "5"}},
        "geofence.value",
        "must be a number, not text",
    ),
]


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_bad_fields_are_refused_and_nothing_is_written(tenant: TenantHandle, method: str) -> None:
    kept = create(tenant, name="Kept dock", suppliedId="KEPT-1")
    url = PATH if method == "POST" else f"{PATH}/{kept['id']}"
    for fields, source, message in CASES:
        answer = tenant.http.request(method, url, json=location(**fields))
        assert answer.status_code == 400, (fields, answer.text)
        body = answer.json()
        assert body["httpStatusCode"] == 400 and body["httpMessage"] == "Bad Request"
        assert body["supportReferenceId"]
        assert [(e["source"], e["message"]) for e in body["errors"]] == [(source, message)]
        assert body["errorMessage"] == f"{source}: {message}"
    for content in (b"", b"{", b"[]", b"null"):
        answer = tenant.http.request(
            method, url, content=content, headers={"content-type": "application/json"}
        )
        assert answer.status_code == 400, (content, answer.text)
        assert answer.json()["errors"][0]["source"] == "body"
    listed = tenant.http.get(PATH).json()
    assert listed["totalItems"] == 1
    (only,) = listed["locations"]
    assert (only["name"], only["suppliedId"], only["version"]) == ("Kept dock", "KEPT-1", 1)


def test_a_blank_supplied_id_is_still_none(tenant: TenantHandle) -> None:
    """Blank means none (the document's pattern allows it): only control characters are new
    refusals."""
    assert "suppliedId" not in create(tenant, suppliedId="  ")
