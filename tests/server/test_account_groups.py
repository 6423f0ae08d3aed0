"""Capacity provider account groups over real HTTP."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from sqlalchemy import delete, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from freightdesk.server.db import make_engine, transaction
from freightdesk.server.migrations import upgrade
from freightdesk.server.settings import sqlite_url
from freightdesk.server.tables.account_groups import AccountGroupRow
from freightdesk.server.tables.tenancy import Tenant
from tests.support import TenantHandle

PATH = "/api/v4/capacityprovideraccountgroups"


def test_create_list_delete(tenant: TenantHandle) -> None:
    created = tenant.http.post(PATH, json={"code": "ACME-CHI", "name": "Acme Chicago"})
    assert created.status_code == 201
    group = created.json()
    assert isinstance(group["id"], int) and group["code"] == "ACME-CHI"
    assert tenant.http.get(PATH).json() == {"groups": [group]}
    assert tenant.http.delete(f"{PATH}/{group['id']}").status_code == 204
    assert tenant.http.get(PATH).json() == {"groups": []}
    assert tenant.http.delete(f"{PATH}/{group['id']}").status_code == 404


def test_duplicate_code_is_a_conflict(tenant: TenantHandle) -> None:
    assert tenant.http.post(PATH, json={"code": "X1", "name": "One"}).status_code == 201
    again = tenant.http.post(PATH, json={"code": "X1", "name": "Two"})
    assert again.status_code == 409
    assert again.json()["errors"][0]["source"] == "code"


def test_a_code_differing_only_in_case_is_taken_too(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    """`WEST` and `west` would be two groups a person reads as one (docs/spec-gaps.md): the
    second is refused like the same code, naming the group that has it."""
    assert tenant.http.post(PATH, json={"code": "WEST", "name": "West"}).status_code == 201
    for code in ("west", "West", " wEST "):
        again = tenant.http.post(PATH, json={"code": code, "name": "West again"})
        assert again.status_code == 409, again.text
        body = again.json()
        assert body["httpStatusCode"] == 409
        (error,) = body["errors"]
        assert error["source"] == "code"
        assert error["message"] == (
            "The account group 'WEST' has this code: codes are unique whatever their case"
        )
    assert [g["code"] for g in tenant.http.get(PATH).json()["groups"]] == ["WEST"]
    # Another tenant's codes are its own, in any case.
    other = tenant_factory()
    assert other.http.post(PATH, json={"code": "west", "name": "Theirs"}).status_code == 201


def test_the_database_refuses_two_racing_codes_differing_in_case(tenant: TenantHandle) -> None:
    """Two creates racing both pass the domain's look: the unique index catches the second
    (the router answers it 409 `code` like the first look)."""
    created = tenant.http.post(PATH, json={"code": "ACME-DAL", "name": "Acme"}).json()
    sessions = tenant.service.context.sessions
    with transaction(sessions) as session:
        tenant_id = session.get(AccountGroupRow, created["id"]).tenant_id  # type: ignore[union-attr]
    with pytest.raises(IntegrityError), transaction(sessions) as session:
        session.add(AccountGroupRow(tenant_id=tenant_id, code="acme-dal", name="Racing"))


def test_an_older_database_gets_the_index_unless_its_codes_clash(tmp_path: Path) -> None:
    engine = make_engine(sqlite_url(tmp_path / "groups.sqlite3"))
    index = "ux_account_groups_tenant_code_lower"

    def indexes() -> set[str]:
        # Not inspect(): SQLAlchemy leaves indexes on expressions out (with a warning).
        with engine.connect() as conn:
            found = conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'index'"))
            return set(found.scalars())

    def as_version_5(*codes: str) -> None:
        """The database as release 5 left it, holding groups of `codes`."""
        with engine.begin() as conn:
            conn.execute(text(f"DROP INDEX IF EXISTS {index}"))
            conn.execute(text("DELETE FROM schema_version"))
            conn.execute(text("INSERT INTO schema_version (version) VALUES (5)"))
        with Session(engine) as session, session.begin():
            session.execute(delete(AccountGroupRow))
            if session.get(Tenant, 1) is None:
                session.add(Tenant(id=1, uuid=str(uuid.uuid4()), name="Old tenant"))
                session.flush()
            session.add_all(AccountGroupRow(tenant_id=1, code=c, name=c) for c in codes)

    try:
        assert upgrade(engine) == 0
        assert index in indexes()  # a new database has it
        as_version_5("WEST", "west")
        assert upgrade(engine) == 5
        assert index not in indexes()  # kept as they are; new clashes are refused by the service
        as_version_5("WEST", "EAST")
        assert upgrade(engine) == 5
        assert index in indexes()
    finally:
        engine.dispose()


def test_bad_bodies_name_the_field(tenant: TenantHandle) -> None:
    missing = tenant.http.post(PATH, json={"code": "X2"})
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["source"] == "name"
    with_id = tenant.http.post(PATH, json={"id": 5, "code": "X3", "name": "n"})
    assert with_id.status_code == 400
    assert with_id.json()["errors"][0]["source"] == "id"
    malformed = tenant.http.post(
        PATH, content=b"{not json", headers={"content-type": "application/json"}
    )
    assert malformed.status_code == 400
    assert malformed.json()["errorMessage"] == "The request body is not valid JSON"
    text = tenant.http.post(PATH, content=b"code=1", headers={"content-type": "text/plain"})
    assert text.status_code == 415


def test_tenants_are_isolated(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    other = tenant_factory()
    group = tenant.http.post(PATH, json={"code": "SHARED", "name": "Mine"}).json()
    assert other.http.get(PATH).json() == {"groups": []}
    assert other.http.delete(f"{PATH}/{group['id']}").status_code == 404
    # The same code is free in another tenant.
    assert other.http.post(PATH, json={"code": "SHARED", "name": "Theirs"}).status_code == 201


def test_the_list_answers_alike_to_basic_and_bearer(tenant: TenantHandle) -> None:
    # The list answers its own bytes (not a model FastAPI serializes), so the headers a
    # dependency sets (deprecated Basic's) and the ETag must still come with them.
    tenant.http.post(PATH, json={"code": "B-2", "name": "Zwei Straße"})
    tenant.http.post(PATH, json={"code": "B-1", "name": "One"})
    bearer = tenant.http.get(PATH)
    assert [g["code"] for g in bearer.json()["groups"]] == ["B-1", "B-2"]
    assert bearer.headers["content-type"] == "application/json"
    assert "deprecation" not in bearer.headers
    with httpx.Client(base_url=tenant.service.url, auth=tenant.admin) as basic:
        answer = basic.get(PATH)
        assert answer.status_code == 200
        assert answer.content == bearer.content
        assert answer.headers["etag"] == bearer.headers["etag"]
        assert answer.headers["deprecation"] == "true"
        assert "successor-version" in answer.headers["link"]
        same = basic.get(PATH, headers={"If-None-Match": answer.headers["etag"]})
        assert same.status_code == 304 and same.content == b""
        assert same.headers["deprecation"] == "true"


def _groups(tenant: TenantHandle) -> list[tuple[str, str]]:
    return [(g["code"], g["name"]) for g in tenant.http.get(PATH).json()["groups"]]


def test_a_group_is_renamed_and_keeps_codes_unique_whatever_their_case(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    west = tenant.http.post(PATH, json={"code": "WEST", "name": "West"}).json()
    east = tenant.http.post(PATH, json={"code": "EAST", "name": "East"}).json()
    # Its own code in another case is no conflict: the new spelling is kept.
    renamed = tenant.http.put(
        f"{PATH}/{west['id']}", json={"id": west["id"], "code": " West ", "name": "West coast"}
    )
    assert renamed.status_code == 200, renamed.text
    assert renamed.json() == {"id": west["id"], "code": "West", "name": "West coast"}
    for code in ("west", "WEST", " wEsT "):
        clash = tenant.http.put(
            f"{PATH}/{east['id']}", json={"id": east["id"], "code": code, "name": "Renamed"}
        )
        assert clash.status_code == 409, clash.text
        body = clash.json()
        assert body["httpStatusCode"] == 409 and body["httpMessage"] == "Conflict"
        assert body["supportReferenceId"]
        (error,) = body["errors"]
        assert error["source"] == "code"
        assert error["message"] == (
            "The account group 'West' has this code: codes are unique whatever their case"
        )
    exact = tenant.http.put(
        f"{PATH}/{east['id']}", json={"id": east["id"], "code": "West", "name": "Renamed"}
    )
    assert exact.status_code == 409
    assert exact.json()["errorMessage"] == "An account group with code 'West' already exists"
    # Nothing half-written: the refused renames left both groups as they were.
    assert _groups(tenant) == [("EAST", "East"), ("West", "West coast")]
    # Another tenant's group is not found, nor renamed; its own codes are its own.
    other = tenant_factory()
    foreign = other.http.put(
        f"{PATH}/{east['id']}", json={"id": east["id"], "code": "X", "name": "Mine"}
    )
    assert foreign.status_code == 404
    assert foreign.json()["errorMessage"] == f"Account group {east['id']} was not found"
    assert _groups(tenant) == [("EAST", "East"), ("West", "West coast")]


def test_a_rename_names_its_group_by_the_paths_id(tenant: TenantHandle) -> None:
    group = tenant.http.post(PATH, json={"code": "ID-1", "name": "One"}).json()
    url = f"{PATH}/{group['id']}"
    cases = [
        ({"code": "ID-2", "name": "Two"}, "id", "Field required"),
        ({"id": group["id"] + 1, "code": "ID-2", "name": "Two"}, "id",
         f"must be the path's id ({group['id']})"),
        ({"id": str(group["id"]), "code": "ID-2", "name": "Two"}, "id",
         "must be an integer, not text"),
    ]  # fmt: skip
    for body, source, message in cases:
        refused = tenant.http.put(url, json=body)
        assert refused.status_code == 400, refused.text
        (error,) = refused.json()["errors"]
        assert (error["source"], error["message"]) == (source, message)
    assert _groups(tenant) == [("ID-1", "One")]


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_bad_codes_and_names_are_refused_naming_the_field(
    tenant: TenantHandle, method: str
) -> None:
    """Hand-made bad bodies: each is the Error body with 400 naming its field, and nothing
    is written (a blank code was stored empty before, a tab kept inside a code)."""
    group = tenant.http.post(PATH, json={"code": "KEEP", "name": "Kept"}).json()
    url = PATH if method == "POST" else f"{PATH}/{group['id']}"
    extra = {} if method == "POST" else {"id": group["id"]}
    cases = [
        ({"code": "   ", "name": "n"}, "code", "must not be blank"),
        ({"code": "B", "name": " \t "}, "name", "must not be blank"),
        ({"code": "A\tB", "name": "n"}, "code", "must not contain control characters"),
        ({"code": "C", "name": "line\nbreak"}, "name", "must not contain control characters"),
        ({"code": "D\u0000", "name": "n"}, "code", "must not contain NUL characters"),
        ({"code": "E" * 101, "name": "n"}, "code", "String should have at most 100 characters"),
        ({"code": "F", "name": "n" * 201}, "name", "String should have at most 200 characters"),
        ({"code": 7, "name": "n"}, "code", "must be a string, not an integer"),
        ({"code": "G", "name": ["n"]}, "name", "must be a string, not an array"),
        ({"code": "H", "name": "n", "colour": "red"}, "colour", "Extra inputs are not permitted"),
    ]
    for body, source, message in cases:
        refused = tenant.http.request(method, url, json={**extra, **body})
        assert refused.status_code == 400, (body, refused.text)
        answer = refused.json()
        assert answer["httpStatusCode"] == 400 and answer["httpMessage"] == "Bad Request"
        assert answer["errorMessage"] == f"{source}: {message}"
        (error,) = answer["errors"]
        assert (error["source"], error["message"]) == (source, message), body
    for content in (b"", b"{", b"null", b"[]", b'"WEST"'):
        refused = tenant.http.request(
            method, url, content=content, headers={"content-type": "application/json"}
        )
        assert refused.status_code == 400, (content, refused.text)
        assert refused.json()["errors"][0]["source"] == "body"
    assert _groups(tenant) == [("KEEP", "Kept")]
