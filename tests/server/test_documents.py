"""Documents over real HTTP: upload, read, update, soft delete, search, download, sharing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import httpx
from sqlalchemy import select

from freightdesk.models.auth import TenantRole
from freightdesk.models.documents import DocumentCreate, DocumentSearchResults
from freightdesk.server.db import transaction
from freightdesk.server.domain.documents import create_document
from freightdesk.server.domain.file_store import file_store
from freightdesk.server.tables.tenancy import Tenant
from tests.support import LiveService, TenantHandle

PATH = "/services/document/v1/documents"
SEARCH = f"{PATH}/search"
BOUNDARY = "fd-test-boundary-7c1e"
MULTIPART = {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}
PDF = b"%PDF-1.7\n" + bytes(range(256)) * 40


# --- helpers (also used by test_documents_limits.py) ---------------------------------------


def metadata(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "BOL 4471",
        "type": "BILL_OF_LADING",
        "mode": "TL",
        "identifiers": [{"type": "BILL_OF_LADING", "value": "BOL-4471"}],
    }
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def upload(
    http: httpx.Client,
    meta: dict[str, Any] | str | None = None,
    content: bytes = PDF,
    *,
    file_name: str = "bol-4471.pdf",
    content_type: str = "application/pdf",
) -> httpx.Response:
    document = meta if isinstance(meta, str) else json.dumps(meta or metadata())
    return http.post(
        PATH, data={"document": document}, files={"upload_file": (file_name, content, content_type)}
    )


def created(http: httpx.Client, **changes: Any) -> dict[str, Any]:
    response = upload(http, metadata(**changes))
    assert response.status_code == 200, response.text
    document: dict[str, Any] = response.json()
    return document


def multipart(
    parts: list[tuple[str, str | None, str | None, bytes]], *, close: bool = True
) -> bytes:
    """A multipart/form-data body built by hand from (name, file name, content type, bytes)."""
    out = bytearray()
    for name, file_name, content_type, content in parts:
        disposition = f'Content-Disposition: form-data; name="{name}"'
        if file_name is not None:
            disposition += f'; filename="{file_name}"'
        out += f"--{BOUNDARY}\r\n{disposition}\r\n".encode()
        if content_type is not None:
            out += f"Content-Type: {content_type}\r\n".encode()
        out += b"\r\n" + content + b"\r\n"
    if close:
        out += f"--{BOUNDARY}--\r\n".encode()
    return bytes(out)


def document_part(meta: dict[str, Any] | None = None) -> tuple[str, None, None, bytes]:
    return ("document", None, None, json.dumps(meta or metadata()).encode())


def sources(response: httpx.Response) -> list[str]:
    return [error["source"] for error in response.json()["errors"]]


def stored_copies(service: LiveService, sha: str) -> list[bytes]:
    """Each stored copy of a content: files on disk (SQLite), blobs in the database
    (PostgreSQL, where every instance on the database serves them)."""
    store = file_store(service.context)
    files = service.settings.files_dir.rglob("*")
    copies = [p.read_bytes() for p in files if p.is_file() and p.name == sha]
    blob = store.database_blob(sha)
    if blob is not None:
        copies.append(b"".join(store.read(blob, 0, blob.size - 1)))
    return copies


def partial_uploads(files_dir: Path) -> list[Path]:
    tmp = files_dir / "tmp"
    return sorted(tmp.iterdir()) if tmp.exists() else []


def search(http: httpx.Client, body: dict[str, Any] | None = None, **params: int) -> Any:
    response = http.post(SEARCH, json=body or {}, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def found_ids(http: httpx.Client, body: dict[str, Any] | None = None) -> set[str]:
    return {doc["id"] for doc in search(http, body, size=500)["results"]}


def identifier_search(type_: str, value: str) -> dict[str, Any]:
    return {"identifiers": {"operator": "EQUALS", "values": [{"type": type_, "value": value}]}}


def assert_the_models_bytes(answer: httpx.Response) -> None:
    """The search writes its answer's JSON itself: the bytes of the answer's model."""
    model = DocumentSearchResults.model_validate_json(answer.content)
    assert answer.content == model.model_dump_json(by_alias=True).encode()


def shipper_identifier(tenant: TenantHandle) -> dict[str, str]:
    return {"type": "SHIPPER_TENANT_UUID", "value": tenant.uuid}


# --- upload, read, download ----------------------------------------------------------------


def test_upload_then_get_and_download_the_same_bytes(tenant: TenantHandle) -> None:
    response = upload(tenant.http)
    assert response.status_code == 200
    document = response.json()
    UUID(document["id"])
    assert document["name"] == "BOL 4471"
    assert (document["type"], document["mode"]) == ("BILL_OF_LADING", "TL")
    assert document["identifiers"] == [{"type": "BILL_OF_LADING", "value": "BOL-4471"}]
    assert document["parsedData"] == {}
    assert document["addedByCompany"] == tenant.name
    domain = tenant.service.settings.client_applications_domain
    assert document["addedByUser"] == f"app-{tenant.client_id}@{domain}"
    assert document["createdDateTime"] == document["lastModifiedDateTime"]
    assert datetime.fromisoformat(document["createdDateTime"]).utcoffset() is not None
    assert document["deletedDateTime"] is None
    [image] = document["files"]
    assert image["fileName"] == "bol-4471.pdf"
    assert image["contentType"] == "application/pdf"
    assert image["size"] == len(PDF)
    assert image["sha256"] == hashlib.sha256(PDF).hexdigest()
    assert image["downloadLink"] == f"{PATH}/{document['id']}/files/{image['id']}"

    assert tenant.http.get(f"{PATH}/{document['id']}").json() == document

    download = tenant.http.get(image["downloadLink"])
    assert download.status_code == 200
    assert download.content == PDF
    assert hashlib.sha256(download.content).hexdigest() == image["sha256"]
    assert download.headers["content-type"] == "application/pdf"
    assert download.headers["content-length"] == str(len(PDF))
    assert download.headers["etag"] == f'"{image["sha256"]}"'
    assert download.headers["content-disposition"].startswith("attachment;")
    assert download.headers["x-content-type-options"] == "nosniff"


def test_files_are_stored_by_content_never_by_the_client_name(tenant: TenantHandle) -> None:
    content = b"unique content " + uuid4().bytes
    sha = hashlib.sha256(content).hexdigest()
    hostile_name = "../..\\etc/pass\x07wd"
    first = tenant.http.post(
        PATH,
        content=multipart([document_part(), ("upload_file", hostile_name, None, content)]),
        headers=MULTIPART,
    )
    assert first.status_code == 200
    assert first.json()["files"][0]["fileName"] == "passwd"
    again = upload(tenant.http, content=content, file_name="copy.pdf")
    assert again.status_code == 200
    files_dir = tenant.service.settings.files_dir
    assert stored_copies(tenant.service, sha) == [content]  # one copy for the same content
    assert not any("passwd" in p.name or "copy" in p.name for p in files_dir.rglob("*"))
    assert partial_uploads(files_dir) == []


def test_name_defaults_to_the_file_name_and_parsed_data_is_kept(tenant: TenantHandle) -> None:
    meta = metadata(name=None, parsedData={"shipper": "Acme", "pieces": 4})
    response = upload(tenant.http, meta, file_name="pod 77 é.png", content_type="image/png")
    assert response.status_code == 200
    document = response.json()
    assert document["name"] == "pod 77 é.png"
    assert document["parsedData"] == {"shipper": "Acme", "pieces": 4}
    download = tenant.http.get(document["files"][0]["downloadLink"])
    assert download.headers["content-type"] == "image/png"
    disposition = download.headers["content-disposition"]
    assert 'filename="pod 77 _.png"' in disposition
    assert "filename*=UTF-8''pod%2077%20%C3%A9.png" in disposition


def test_text_files_keep_their_exact_content_type(tenant: TenantHandle) -> None:
    response = upload(
        tenant.http, content=b"a;b\n1;2\n", file_name="x.csv", content_type="text/csv"
    )
    download = tenant.http.get(response.json()["files"][0]["downloadLink"])
    assert download.headers["content-type"] == "text/csv"
    assert download.content == b"a;b\n1;2\n"


def test_download_ranges_and_revalidation(tenant: TenantHandle) -> None:
    link = created(tenant.http)["files"][0]["downloadLink"]
    first = tenant.http.get(link, headers={"Range": "bytes=0-8"})
    assert first.status_code == 206
    assert first.content == PDF[:9]
    assert first.headers["content-range"] == f"bytes 0-8/{len(PDF)}"
    tail = tenant.http.get(link, headers={"Range": "bytes=-10"})
    assert (tail.status_code, tail.content) == (206, PDF[-10:])
    rest = tenant.http.get(link, headers={"Range": f"bytes={len(PDF) - 5}-"})
    assert (rest.status_code, rest.content) == (206, PDF[-5:])
    outside = tenant.http.get(link, headers={"Range": f"bytes={len(PDF)}-"})
    assert outside.status_code == 416
    assert outside.headers["content-range"] == f"bytes */{len(PDF)}"
    assert outside.json()["httpStatusCode"] == 416
    # Malformed and multiple ranges are ignored: the whole file comes back.
    for header in ("bytes=5-2", "lines=1-2", "bytes=0-1,5-6"):
        whole = tenant.http.get(link, headers={"Range": header})
        assert (whole.status_code, whole.content) == (200, PDF), header
    etag = first.headers["etag"]
    stale_if_range = tenant.http.get(link, headers={"Range": "bytes=0-1", "If-Range": '"x"'})
    assert stale_if_range.status_code == 200
    fresh_if_range = tenant.http.get(link, headers={"Range": "bytes=0-1", "If-Range": etag})
    assert fresh_if_range.status_code == 206
    not_modified = tenant.http.get(link, headers={"If-None-Match": etag})
    assert not_modified.status_code == 304
    assert not_modified.content == b""


def test_unknown_and_malformed_ids(tenant: TenantHandle) -> None:
    document = created(tenant.http)
    missing = tenant.http.get(f"{PATH}/{uuid4()}")
    assert missing.status_code == 404
    assert missing.json()["httpStatusCode"] == 404
    malformed = tenant.http.get(f"{PATH}/not-a-uuid")
    assert malformed.status_code == 400
    assert sources(malformed) == ["documentId"]
    assert tenant.http.get(f"{PATH}/{document['id']}/files/{uuid4()}").status_code == 404
    bad_file = tenant.http.get(f"{PATH}/{document['id']}/files/nope")
    assert (bad_file.status_code, sources(bad_file)) == (400, ["fileId"])


def test_every_route_needs_a_token(service: LiveService) -> None:
    with httpx.Client(base_url=service.url) as anonymous:
        assert upload(anonymous).status_code == 401
        assert anonymous.get(f"{PATH}/{uuid4()}").status_code == 401
        assert anonymous.post(SEARCH, json={}).status_code == 401
        assert anonymous.get(f"{PATH}/{uuid4()}/files/{uuid4()}").status_code == 401


# --- bad uploads ---------------------------------------------------------------------------


def test_upload_refuses_missing_parts(tenant: TenantHandle) -> None:
    only_document = tenant.http.post(PATH, files={"document": (None, json.dumps(metadata()))})
    assert (only_document.status_code, sources(only_document)) == (400, ["upload_file"])
    only_file = tenant.http.post(PATH, files={"upload_file": ("a.pdf", PDF, "application/pdf")})
    assert (only_file.status_code, sources(only_file)) == (400, ["document"])
    neither = tenant.http.post(PATH, content=multipart([]), headers=MULTIPART)
    assert (neither.status_code, sources(neither)) == (400, ["document", "upload_file"])


INVALID_METADATA: list[tuple[str, str]] = [
    ("{not json", "document"),
    ('"a string"', "document"),
    (json.dumps(metadata(identifiers=[])), "document.identifiers"),
    (json.dumps(metadata(type="PHOTO")), "document.type"),
    (json.dumps(metadata(mode="VLTL")), "document.mode"),
    (json.dumps(metadata(name="  ")), "document.name"),
    (
        json.dumps(metadata(identifiers=[{"type": "SHOE_SIZE", "value": "9"}])),
        "document.identifiers[0].type",
    ),
    (
        json.dumps(metadata(identifiers=[{"type": "PRO", "value": ""}])),
        "document.identifiers[0].value",
    ),
    (json.dumps(metadata(id=str(uuid4()))), "document.id"),
    (json.dumps(metadata(name="a\u0000b")), "document.name"),
    (
        json.dumps(metadata(identifiers=[{"type": "PRO", "value": "1\n2"}])),
        "document.identifiers[0].value",
    ),
    (json.dumps(metadata(parsedData={"k": ["\u0000"]})), "document.parsedData"),
    (json.dumps(metadata(parsedData={"\u0000": 1})), "document.parsedData"),
    (json.dumps(metadata(parsedData=[1])), "document.parsedData"),
    (json.dumps({"name": "x"}), "document.type"),
]


def test_upload_refuses_invalid_metadata_naming_the_field(tenant: TenantHandle) -> None:
    for document, source in INVALID_METADATA:
        response = upload(tenant.http, document)
        assert response.status_code == 400, document
        body = response.json()
        assert body["httpStatusCode"] == 400
        assert source in sources(response), (document, body)
        assert body["errorMessage"].startswith("document"), body


def test_upload_refuses_malformed_requests(tenant: TenantHandle) -> None:
    as_json = tenant.http.post(PATH, json=metadata())
    assert as_json.status_code == 415
    no_boundary = tenant.http.post(
        PATH, content=b"x", headers={"content-type": "multipart/form-data"}
    )
    assert no_boundary.status_code == 400
    stranger = tenant.http.post(
        PATH,
        content=multipart([document_part(), ("file", "a.pdf", None, PDF)]),
        headers=MULTIPART,
    )
    assert (stranger.status_code, sources(stranger)) == (400, ["file"])
    two_files = tenant.http.post(
        PATH,
        content=multipart(
            [document_part(), ("upload_file", "a", None, b"1"), ("upload_file", "b", None, b"2")]
        ),
        headers=MULTIPART,
    )
    assert (two_files.status_code, sources(two_files)) == (400, ["upload_file"])
    bad_type = tenant.http.post(
        PATH,
        content=multipart([document_part(), ("upload_file", "a", "not a type", b"1")]),
        headers=MULTIPART,
    )
    assert (bad_type.status_code, sources(bad_type)) == (400, ["upload_file.contentType"])
    truncated = tenant.http.post(
        PATH,
        content=multipart([document_part(), ("upload_file", "a", None, PDF)], close=False)[:-40],
        headers=MULTIPART,
    )
    assert (truncated.status_code, sources(truncated)) == (400, ["body"])
    assert partial_uploads(tenant.service.settings.files_dir) == []


def test_upload_without_file_name_or_type_gets_defaults(tenant: TenantHandle) -> None:
    response = tenant.http.post(
        PATH,
        content=multipart([document_part(metadata(name=None)), ("upload_file", None, None, b"x")]),
        headers=MULTIPART,
    )
    assert response.status_code == 200, response.text
    document = response.json()
    assert document["name"] == "document"
    assert document["files"][0]["contentType"] == "application/octet-stream"


def test_the_parts_may_come_in_either_order(tenant: TenantHandle) -> None:
    response = tenant.http.post(
        PATH,
        content=multipart([("upload_file", "late.pdf", "application/pdf", PDF), document_part()]),
        headers=MULTIPART,
    )
    assert response.status_code == 200, response.text
    assert response.json()["files"][0]["sha256"] == hashlib.sha256(PDF).hexdigest()


def test_an_empty_file_is_refused(tenant: TenantHandle) -> None:
    response = upload(tenant.http, content=b"")
    assert (response.status_code, sources(response)) == (400, ["upload_file"])


def test_a_refused_upload_stores_nothing(tenant: TenantHandle) -> None:
    content = b"refused " + uuid4().bytes
    unknown_shipper = [{"type": "SHIPPER_TENANT_UUID", "value": str(uuid4())}]
    response = upload(tenant.http, metadata(identifiers=unknown_shipper), content=content)
    assert response.status_code == 400
    files_dir = tenant.service.settings.files_dir
    sha = hashlib.sha256(content).hexdigest()
    assert not any(p.name == sha for p in files_dir.rglob("*"))
    assert partial_uploads(files_dir) == []


def test_documents_made_without_http_are_served_like_uploads(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    """The domain function the demo generator uses."""
    shipper = tenant_factory()
    service = tenant.service
    with transaction(service.context.sessions) as session:
        owner = session.scalar(select(Tenant).where(Tenant.name == tenant.name))
        assert owner is not None
        document = create_document(
            session,
            file_store(service.context),
            tenant_id=owner.id,
            user="dispatcher@example.com",
            company=owner.name,
            metadata=DocumentCreate.model_validate(
                metadata(identifiers=[{"type": "PRO", "value": "D-1"}, shipper_identifier(shipper)])
            ),
            content=b"demo bytes",
            file_name="demo/pod.pdf",
            content_type="application/pdf",
            role=TenantRole.CARRIER,
            created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        )
    got = tenant.http.get(f"{PATH}/{document.id}").json()
    assert got == document.wire(exclude_none=False) | {"deletedDateTime": None}
    assert got["createdDateTime"] == "2026-01-02T03:04:05Z"
    assert got["addedByUser"] == "dispatcher@example.com"
    assert got["files"][0]["fileName"] == "pod.pdf"
    assert shipper.http.get(got["files"][0]["downloadLink"]).content == b"demo bytes"
    found = shipper.http.post(SEARCH, json=identifier_search("PRO", "D-1"))
    assert found.json()["results"] == [got]
    assert_the_models_bytes(found)  # a date-time of whole seconds too


# --- update and delete ---------------------------------------------------------------------


def test_put_replaces_the_metadata_and_answers_null(tenant: TenantHandle) -> None:
    document = created(tenant.http)
    url = f"{PATH}/{document['id']}"
    replacement = {
        "identifiers": [{"type": "PRO_NUMBER", "value": "PRO-1"}],
        "mode": "LTL",
        "name": "Invoice 9",
        "type": "INVOICE",
    }
    response = tenant.http.put(url, json=replacement)
    assert response.status_code == 200
    assert response.content == b"null"
    after = tenant.http.get(url).json()
    assert {k: after[k] for k in replacement} == replacement
    assert after["files"] == document["files"]
    assert after["createdDateTime"] == document["createdDateTime"]
    assert after["lastModifiedDateTime"] > document["lastModifiedDateTime"]


INVALID_PUT_CHANGES: list[tuple[dict[str, Any], str]] = [
    ({"identifiers": []}, "identifiers"),
    ({"identifiers": None}, "identifiers"),
    ({"mode": None}, "mode"),
    ({"name": None}, "name"),
    ({"type": "PHOTO"}, "type"),
    ({"mode": "SPACE"}, "mode"),
    ({"addedByUser": "me"}, "addedByUser"),
]


def test_put_refuses_incomplete_or_invalid_bodies(tenant: TenantHandle) -> None:
    url = f"{PATH}/{created(tenant.http)['id']}"
    for change, source in INVALID_PUT_CHANGES:
        response = tenant.http.put(url, json=metadata(**change))
        assert response.status_code == 400, change
        assert source in sources(response), (change, response.json())


def test_patch_changes_only_the_fields_given(tenant: TenantHandle) -> None:
    document = created(tenant.http)
    url = f"{PATH}/{document['id']}"
    response = tenant.http.patch(url, json={"name": "Renamed"})
    assert (response.status_code, response.content) == (200, b"null")
    after = tenant.http.get(url).json()
    assert after["name"] == "Renamed"
    for field in ("type", "mode", "identifiers", "files", "parsedData", "createdDateTime"):
        assert after[field] == document[field]
    assert after["lastModifiedDateTime"] > document["lastModifiedDateTime"]
    identifiers = [{"type": "CONTAINER_NUMBER", "value": "MSCU1234567"}]
    patched = tenant.http.patch(url, json={"identifiers": identifiers, "type": "PACKING_SLIP"})
    assert patched.status_code == 200
    again = tenant.http.get(url).json()
    assert again["identifiers"] == identifiers
    assert (again["type"], again["name"]) == ("PACKING_SLIP", "Renamed")
    # Nothing given, nothing changes.
    assert tenant.http.patch(url, json={}).status_code == 200
    assert tenant.http.get(url).json() == again


INVALID_PATCHES: list[tuple[dict[str, Any], str]] = [
    ({"identifiers": []}, "identifiers"),
    ({"name": None}, "name"),
    ({"type": None}, "type"),
    ({"mode": "VLTL"}, "mode"),
    ({"identifiers": [{"type": "PRO"}]}, "identifiers[0].value"),
    ({"files": []}, "files"),
]


def test_patch_refuses_invalid_bodies(tenant: TenantHandle) -> None:
    url = f"{PATH}/{created(tenant.http)['id']}"
    for body, source in INVALID_PATCHES:
        response = tenant.http.patch(url, json=body)
        assert response.status_code == 400, body
        assert sources(response) == [source], (body, response.json())
    malformed = tenant.http.patch(url, content=b"{", headers={"content-type": "application/json"})
    assert malformed.status_code == 400


def test_delete_is_soft_and_then_everything_answers_404(tenant: TenantHandle) -> None:
    document = created(tenant.http, identifiers=[{"type": "PRO", "value": f"DEL-{uuid4()}"}])
    url = f"{PATH}/{document['id']}"
    query = identifier_search("PRO", document["identifiers"][0]["value"])
    assert found_ids(tenant.http, query) == {document["id"]}
    response = tenant.http.delete(url)
    assert (response.status_code, response.content) == (200, b"null")
    assert tenant.http.get(url).status_code == 404
    assert tenant.http.put(url, json=metadata()).status_code == 404
    assert tenant.http.patch(url, json={"name": "x"}).status_code == 404
    assert tenant.http.delete(url).status_code == 404
    assert tenant.http.get(document["files"][0]["downloadLink"]).status_code == 404
    assert found_ids(tenant.http, query) == set()
    # Soft: the bytes stay in the store.
    assert len(stored_copies(tenant.service, document["files"][0]["sha256"])) == 1


# --- search --------------------------------------------------------------------------------


def test_search_filters_by_identifiers_name_and_type(tenant: TenantHandle) -> None:
    bol = created(tenant.http, name="BOL A", identifiers=[{"type": "BILL_OF_LADING", "value": "A"}])
    pod = created(
        tenant.http,
        name="POD A",
        type="PROOF_OF_DELIVERY",
        identifiers=[{"type": "BILL_OF_LADING", "value": "A"}, {"type": "PRO", "value": "P1"}],
    )
    invoice = created(
        tenant.http,
        name="Invoice B",
        type="INVOICE",
        identifiers=[{"type": "PRO", "value": "P2"}],
        parsedData={
            "shipper": "Zürich AG",
            "lines": [{"pieces": 4, "kg": 12.5, "seal": 2**53 + 1}],
            "paid": None,
            "note": 'said "½ \\ \u2028 ✓"\t',
        },
    )
    everything = search(tenant.http)
    assert everything["paginationInfo"] == {"pageNumber": 1, "pageSize": 10, "total": 3}
    # Newest first.
    assert [d["id"] for d in everything["results"]] == [invoice["id"], pod["id"], bol["id"]]
    assert everything["results"][0] == invoice
    # Each as reading the document answers it (on SQLite the search reads the stored text of
    # date-times and parsed data itself).
    for document in everything["results"]:
        assert document == tenant.http.get(f"{PATH}/{document['id']}").json()
    assert search(tenant.http, None) == everything
    assert_the_models_bytes(tenant.http.post(SEARCH, json={}))

    assert found_ids(tenant.http, identifier_search("BILL_OF_LADING", "A")) == {
        bol["id"],
        pod["id"],
    }
    # The type is part of the identifier: PRO "A" is not BILL_OF_LADING "A".
    assert found_ids(tenant.http, identifier_search("PRO", "A")) == set()
    any_of = {
        "identifiers": {
            "operator": "EQUALS",
            "values": [{"type": "PRO", "value": "P1"}, {"type": "PRO", "value": "P2"}],
        }
    }
    assert found_ids(tenant.http, any_of) == {pod["id"], invoice["id"]}
    assert found_ids(tenant.http, {"name": {"operator": "EQUALS", "value": "POD A"}}) == {pod["id"]}
    assert found_ids(tenant.http, {"name": {"operator": "EQUALS", "value": "pod a"}}) == set()
    types = {"type": {"operator": "EQUALS", "values": ["INVOICE", "BILL_OF_LADING"]}}
    assert found_ids(tenant.http, types) == {invoice["id"], bol["id"]}
    combined = {**identifier_search("BILL_OF_LADING", "A"), **types}
    assert found_ids(tenant.http, combined) == {bol["id"]}


def test_search_pages(tenant: TenantHandle) -> None:
    made = [created(tenant.http, name=f"doc {i}")["id"] for i in range(5)]
    newest_first = list(reversed(made))
    pages = [search(tenant.http, page=page, size=2) for page in (1, 2, 3, 4)]
    assert [p["paginationInfo"] for p in pages] == [
        {"pageNumber": n, "pageSize": 2, "total": 5} for n in (1, 2, 3, 4)
    ]
    assert [d["id"] for p in pages for d in p["results"]] == newest_first
    assert pages[3]["results"] == []
    far = search(tenant.http, page=10**12, size=500)
    assert (far["results"], far["paginationInfo"]["total"]) == ([], 5)


BAD_SEARCHES: list[tuple[dict[str, Any], dict[str, Any], str]] = [
    ({"page": 0}, {}, "page"),
    ({"size": 0}, {}, "size"),
    ({"size": 501}, {}, "size"),
    ({"page": "x"}, {}, "page"),
    ({}, {"name": {"operator": "CONTAINS", "value": "a"}}, "name.operator"),
    ({}, {"type": {"operator": "IN", "values": ["INVOICE"]}}, "type.operator"),
    (
        {},
        {"identifiers": {"operator": "NOT_EQUALS", "values": [{"type": "PRO", "value": "1"}]}},
        "identifiers.operator",
    ),
    ({}, {"type": {"operator": "EQUALS", "values": ["PHOTO"]}}, "type.values[0]"),
    ({}, {"type": {"operator": "EQUALS", "values": []}}, "type.values"),
    ({}, {"identifiers": {"values": [{"type": "PRO", "value": "1"}]}}, "identifiers.operator"),
    ({}, {"mode": {"operator": "EQUALS", "value": "TL"}}, "mode"),
    ({}, {"name": {"operator": "EQUALS", "value": "a\u0000"}}, "name.value"),
]


def test_search_refuses_bad_input(tenant: TenantHandle) -> None:
    for params, body, source in BAD_SEARCHES:
        response = tenant.http.post(SEARCH, params=params, json=body)
        assert response.status_code == 400, (params, body)
        assert sources(response) == [source], (params, body, response.json())


def test_search_edges(tenant: TenantHandle) -> None:
    assert search(tenant.http, size=500)["paginationInfo"]["pageSize"] == 500
    assert tenant.http.post(SEARCH).status_code == 200  # no body at all: everything
    malformed = tenant.http.post(SEARCH, content=b"{", headers={"content-type": "application/json"})
    assert malformed.status_code == 400


JSON = "application/json"
# Searches as the app sends them (a bearer token the cache trusts, plain paging, no body or a
# JSON one), and each the same written otherwise (a charset parameter, a page with a leading
# zero): the service answers both alike, as FastAPI's parsing of the request says they are.
USUAL_SEARCHES: list[tuple[dict[str, int], dict[str, Any] | None]] = [
    ({}, None),
    ({}, {}),
    ({"page": 2, "size": 2}, {}),
    ({"size": 500}, identifier_search("BILL_OF_LADING", "BOL-4471")),
    ({}, {"name": {"operator": "EQUALS", "value": "doc 1"}}),
    ({"size": 1}, {"type": {"operator": "EQUALS", "values": ["BILL_OF_LADING", "INVOICE"]}}),
    ({"page": 10**12}, {}),
]


def usual_and_routed(
    http: httpx.Client, params: dict[str, Any], body: bytes
) -> tuple[httpx.Response, httpx.Response]:
    """The search as the app sends it, and the same one written otherwise."""
    usual = http.post(SEARCH, params=params, content=body, headers={"content-type": JSON})
    routed = http.post(
        SEARCH,
        params={**params, "page": f"0{params.get('page', 1)}"},
        content=body,
        headers={"content-type": f"{JSON}; charset=utf-8"},
    )
    return usual, routed


def test_a_search_written_otherwise_is_answered_alike(tenant: TenantHandle) -> None:
    for i in range(3):
        created(tenant.http, name=f"doc {i}", parsedData={"weight": i, "seal": None})
    search(tenant.http)  # the token's first use reads it: from now on the cache trusts it
    for params, body in USUAL_SEARCHES:
        content = b"" if body is None else json.dumps(body).encode()
        usual, routed = usual_and_routed(tenant.http, params, content)
        assert (usual.status_code, routed.status_code) == (200, 200), (params, body)
        assert usual.content == routed.content, (params, body)
        assert usual.headers["content-type"] == routed.headers["content-type"] == JSON


def test_a_search_written_otherwise_is_refused_alike(tenant: TenantHandle) -> None:
    search(tenant.http)
    with tenant.as_role("PILOT") as pilot:
        # The role header before the paging and the body's validation; a body that is not
        # JSON before the role.
        for params, body, source in [
            ({}, b"{}", "x-tenant-role"),
            ({"size": 501}, b'{"mode": 1}', "x-tenant-role"),
            ({}, b"{", "body"),
        ]:
            for answer in usual_and_routed(pilot, params, body):
                assert answer.status_code == 400, (params, body)
                assert sources(answer) == [source], (params, body)


# --- carriers and sharing ------------------------------------------------------------------


def test_a_carrier_must_name_the_shipper_tenant(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    shipper = tenant_factory()
    with tenant.as_role("CARRIER") as carrier:
        missing = upload(carrier)
        assert (missing.status_code, sources(missing)) == (400, ["document.identifiers"])
        not_uuid = upload(
            carrier,
            metadata(
                identifiers=[
                    {"type": "PRO", "value": "1"},
                    {"type": "SHIPPER_TENANT_UUID", "value": "acme"},
                ]
            ),
        )
        assert (not_uuid.status_code, sources(not_uuid)) == (400, ["document.identifiers[1].value"])
        unknown = upload(
            carrier,
            metadata(identifiers=[{"type": "SHIPPER_TENANT_UUID", "value": str(uuid4())}]),
        )
        assert (unknown.status_code, sources(unknown)) == (400, ["document.identifiers[0].value"])
        identifiers = [{"type": "PRO", "value": "C-1"}, shipper_identifier(shipper)]
        ok = upload(carrier, metadata(identifiers=identifiers))
        assert ok.status_code == 200, ok.text
        document = ok.json()
        url = f"{PATH}/{document['id']}"
        no_shipper = metadata(identifiers=[{"type": "PRO", "value": "C-1"}])
        put = carrier.put(url, json=no_shipper)
        assert (put.status_code, sources(put)) == (400, ["identifiers"])
        patch = carrier.patch(url, json={"identifiers": no_shipper["identifiers"]})
        assert (patch.status_code, sources(patch)) == (400, ["identifiers"])
        assert carrier.patch(url, json={"name": "Carrier POD"}).status_code == 200
        assert carrier.put(url, json=metadata(identifiers=identifiers)).status_code == 200
    # The uuid is kept in canonical form whatever case the carrier used.
    with tenant.as_role("carrier") as carrier:
        upper = [{"type": "SHIPPER_TENANT_UUID", "value": shipper.uuid.upper()}]
        stored = upload(carrier, metadata(identifiers=upper)).json()
        assert stored["identifiers"] == [shipper_identifier(shipper)]
    # A shipper (the default role) needs no shipper identifier.
    assert upload(tenant.http).status_code == 200


def test_a_carrier_document_is_visible_to_the_named_shipper_only(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    shipper, stranger = tenant_factory(), tenant_factory()
    pro = f"PRO-{uuid4()}"
    with tenant.as_role("CARRIER") as carrier:
        document = upload(
            carrier,
            metadata(identifiers=[{"type": "PRO", "value": pro}, shipper_identifier(shipper)]),
        ).json()
    url = f"{PATH}/{document['id']}"
    link = document["files"][0]["downloadLink"]
    # The shipper reads, downloads and finds it ...
    assert shipper.http.get(url).json() == document
    assert shipper.http.get(link).content == PDF
    assert found_ids(shipper.http, identifier_search("PRO", pro)) == {document["id"]}
    assert document["id"] in found_ids(shipper.http)
    # ... but only the carrier that added it may change it.
    for response in (
        shipper.http.put(url, json=metadata()),
        shipper.http.patch(url, json={"name": "mine now"}),
        shipper.http.delete(url),
    ):
        assert response.status_code == 403
        assert response.json()["httpStatusCode"] == 403
    # Another tenant sees nothing.
    assert stranger.http.get(url).status_code == 404
    assert stranger.http.get(link).status_code == 404
    assert found_ids(stranger.http, identifier_search("PRO", pro)) == set()
    # Once the carrier deletes it, the shipper loses it too.
    assert tenant.http.delete(url).status_code == 200
    assert shipper.http.get(url).status_code == 404
    assert found_ids(shipper.http, identifier_search("PRO", pro)) == set()


def test_a_search_pages_own_and_shared_documents_together_newest_first(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    shipper = tenant_factory()
    made: list[str] = []
    for i in range(6):
        if i % 2:
            with tenant.as_role("CARRIER") as carrier:
                shared = metadata(name=f"shared {i}", identifiers=[shipper_identifier(shipper)])
                made.append(upload(carrier, shared).json()["id"])
        else:  # the shipper's own, one naming the shipper itself
            own = {"identifiers": [shipper_identifier(shipper)]} if i == 2 else {}
            made.append(created(shipper.http, name=f"own {i}", **own)["id"])
    newest_first = list(reversed(made))
    pages = [search(shipper.http, page=page, size=2) for page in (1, 2, 3, 4)]
    assert [p["paginationInfo"]["total"] for p in pages] == [6] * 4
    assert [d["id"] for p in pages for d in p["results"]] == newest_first
    bills = {"type": {"operator": "EQUALS", "values": ["BILL_OF_LADING"]}}
    assert [d["id"] for d in search(shipper.http, bills, size=500)["results"]] == newest_first
    # The carrier sees its own three, once each; the others' searches are their own.
    assert [d["id"] for d in search(tenant.http, size=4)["results"]] == newest_first[::2]
    assert search(tenant.http, page=2, size=2)["paginationInfo"]["total"] == 3


def test_tenants_are_isolated_on_every_route(
    tenant: TenantHandle, tenant_factory: Callable[..., TenantHandle]
) -> None:
    other = tenant_factory()
    bol = f"ISO-{uuid4()}"
    document = created(tenant.http, identifiers=[{"type": "BILL_OF_LADING", "value": bol}])
    url = f"{PATH}/{document['id']}"
    link = document["files"][0]["downloadLink"]
    assert other.http.get(url).status_code == 404
    assert other.http.put(url, json=metadata()).status_code == 404
    assert other.http.patch(url, json={"name": "x"}).status_code == 404
    assert other.http.delete(url).status_code == 404
    assert other.http.get(link).status_code == 404
    assert (
        other.http.get(
            link, headers={"If-None-Match": f'"{document["files"][0]["sha256"]}"'}
        ).status_code
        == 404
    )
    assert found_ids(other.http, identifier_search("BILL_OF_LADING", bol)) == set()
    assert search(other.http)["paginationInfo"]["total"] == 0
    # The other tenant's own file id with this document's id (and the reverse) is not a way in.
    theirs = created(other.http)
    their_file = theirs["files"][0]["id"]
    assert tenant.http.get(f"{url}/files/{their_file}").status_code == 404
    assert (
        other.http.get(f"{PATH}/{theirs['id']}/files/{document['files'][0]['id']}").status_code
        == 404
    )
    # Nothing changed for the owner.
    assert tenant.http.get(url).json() == document
