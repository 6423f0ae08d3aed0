"""The documents client against the real local service: streamed upload with progress and
cancel, metadata updates, search pages, streamed download, and the retry policy."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from pathlib import Path

import httpx
import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.documents import PATH, ProgressFile
from freightdesk.api.errors import BadRequest, NotFound, PermissionDenied, ServerError
from freightdesk.models.auth import TenantRole
from freightdesk.models.documents import (
    SHIPPER_TENANT_UUID,
    DocumentCreate,
    DocumentIdentifier,
    DocumentMode,
    DocumentPatch,
    DocumentSearch,
    DocumentType,
    DocumentUpdate,
    IdentifiersCriterion,
    NameCriterion,
    SearchOperator,
    TypeCriterion,
)
from tests.api.conftest import client_via
from tests.proxy import Fault, FaultyProxy
from tests.support import TenantHandle, make_tenant, wait_until


def _metadata(bol: str, **changes: object) -> DocumentCreate:
    fields: dict[str, object] = {
        "type": DocumentType.BILL_OF_LADING,
        "mode": DocumentMode.TL,
        "identifiers": [DocumentIdentifier(type="BILL_OF_LADING", value=bol)],
    }
    fields.update(changes)
    return DocumentCreate.model_validate(fields)


def _file(tmp_path: Path, name: str, size: int) -> Path:
    path = tmp_path / name
    path.write_bytes(os.urandom(size))
    return path


def test_progress_file_keeps_the_length_known(tmp_path: Path) -> None:
    path = _file(tmp_path, "scan.pdf", 200_000)
    seen: list[tuple[int, int]] = []
    with path.open("rb") as handle:
        counted = ProgressFile(handle, lambda done, total: seen.append((done, total)))
        stream = httpx.Request(
            "POST", "http://x/", files={"upload_file": ("scan.pdf", counted, "application/pdf")}
        )
        assert int(stream.headers["content-length"]) > 200_000
        body = b"".join(stream.stream)  # type: ignore[arg-type]
    assert seen[-1] == (200_000, 200_000)
    assert len(body) == int(stream.headers["content-length"])


async def test_upload_reports_progress_and_names_from_the_file(
    client: ApiClient, tmp_path: Path
) -> None:
    path = _file(tmp_path, "BOL 4711.pdf", 300_000)
    seen: list[tuple[int, int]] = []
    document = await client.documents.upload(
        path, _metadata("B4711"), progress=lambda d, t: seen.append((d, t))
    )
    assert document.name == "BOL 4711.pdf"
    assert document.files[0].content_type == "application/pdf"
    assert document.files[0].size == 300_000
    assert document.files[0].sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert [d for d, _t in seen] == sorted(d for d, _t in seen)
    assert seen[-1] == (300_000, 300_000)


async def test_cancelling_the_task_aborts_the_upload(
    client: ApiClient, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="freightdesk.server.access")
    path = _file(tmp_path, "big.bin", 8 * 1024 * 1024)
    task: asyncio.Task[object] | None = None

    def progress(done: int, _total: int) -> None:
        if done > 1024 * 1024 and task is not None:
            task.cancel()

    task = asyncio.ensure_future(
        client.documents.upload(path, _metadata("CANCEL1"), progress=progress)
    )
    with pytest.raises(asyncio.CancelledError):
        await task

    def answered() -> list[str]:
        # The service's answer to the upload, logged as its handling ends (the client is gone
        # and never reads it).
        return [r.getMessage() for r in caplog.records if f"POST {PATH} " in r.getMessage()]

    await wait_until(lambda: bool(answered()), 30)
    [answer] = answered()
    assert f"POST {PATH} 400 " in answer and "before the upload ended" in answer, answer
    result = await client.documents.search_page(None)
    assert result.pagination_info.total == 0


async def test_a_carrier_must_name_the_shipper(
    client: ApiClient, api_tenant: TenantHandle, tmp_path: Path
) -> None:
    path = _file(tmp_path, "pod.jpg", 1000)
    with pytest.raises(BadRequest) as refused:
        await client.documents.upload(path, _metadata("POD1"), role=TenantRole.CARRIER)
    assert "document.identifiers" in refused.value.field_errors()
    shipper = make_tenant(api_tenant.service)
    try:
        document = await client.documents.upload(
            path,
            _metadata(
                "POD1",
                identifiers=[
                    DocumentIdentifier(type="BILL_OF_LADING", value="POD1"),
                    DocumentIdentifier(type=SHIPPER_TENANT_UUID, value=shipper.uuid),
                ],
            ),
            role=TenantRole.CARRIER,
        )
        seen = shipper.http.get(f"{PATH}/{document.id}")
        assert seen.status_code == 200
    finally:
        shipper.http.close()


async def test_metadata_changes_search_and_delete(client: ApiClient, tmp_path: Path) -> None:
    path = _file(tmp_path, "invoice.pdf", 2000)
    made = [
        await client.documents.upload(path, _metadata(f"SRCH{n}", name=f"Doc {n}"))
        for n in range(5)
    ]
    first = made[0]
    await client.documents.put(
        first.id,
        DocumentUpdate(
            identifiers=[DocumentIdentifier(type="PRO", value="P-1")],
            mode=DocumentMode.LTL,
            name="Renamed",
            type=DocumentType.INVOICE,
        ),
    )
    changed = await client.documents.get(first.id)
    assert (changed.name, changed.type, changed.mode) == ("Renamed", "INVOICE", "LTL")
    await client.documents.patch(first.id, DocumentPatch(name="Patched"))
    patched = await client.documents.get(first.id)
    assert patched.name == "Patched" and patched.type == DocumentType.INVOICE

    by_identifier = await client.documents.search_page(
        DocumentSearch(
            identifiers=IdentifiersCriterion(
                operator=SearchOperator.EQUALS,
                values=[DocumentIdentifier(type="BILL_OF_LADING", value="SRCH3")],
            )
        )
    )
    assert [d.name for d in by_identifier.results] == ["Doc 3"]
    by_name = await client.documents.search_page(
        DocumentSearch(name=NameCriterion(operator=SearchOperator.EQUALS, value="Patched"))
    )
    assert [d.id for d in by_name.results] == [first.id]
    by_type = DocumentSearch(
        type=TypeCriterion(operator=SearchOperator.EQUALS, values=[DocumentType.BILL_OF_LADING])
    )
    every = [d.name async for d in client.documents.search(by_type, size=2)]
    assert every == ["Doc 4", "Doc 3", "Doc 2", "Doc 1"]

    await client.documents.delete(first.id)
    with pytest.raises(NotFound):
        await client.documents.get(first.id)
    with pytest.raises(BadRequest) as bad:
        await client.documents.patch(
            made[1].id,
            DocumentPatch(
                identifiers=[DocumentIdentifier(type=SHIPPER_TENANT_UUID, value="no-uuid")]
            ),
        )
    assert "identifiers[0].value" in bad.value.field_errors()


async def test_a_shared_document_cannot_be_changed_by_its_reader(
    client: ApiClient, api_tenant: TenantHandle, tmp_path: Path
) -> None:
    carrier = make_tenant(api_tenant.service)
    try:
        answer = carrier.as_role("CARRIER").post(
            PATH,
            data={
                "document": (
                    '{"type": "INVOICE", "mode": "TL", "identifiers": '
                    f'[{{"type": "{SHIPPER_TENANT_UUID}", "value": "{api_tenant.uuid}"}}]}}'
                )
            },
            files={"upload_file": ("inv.pdf", b"%PDF-1.4", "application/pdf")},
        )
        assert answer.status_code == 200, answer.text
        shared = await client.documents.get(answer.json()["id"])
        with pytest.raises(PermissionDenied):
            await client.documents.patch(shared.id, DocumentPatch(name="Mine now"))
    finally:
        carrier.http.close()


async def test_download_streams_and_verifies(client: ApiClient, tmp_path: Path) -> None:
    path = _file(tmp_path, "photo.png", 700_000)
    document = await client.documents.upload(path, _metadata("DL1"))
    seen: list[int] = []
    target = tmp_path / "copies" / "photo.png"
    await client.documents.download(document, target, progress=lambda d, _t: seen.append(d))
    assert target.read_bytes() == path.read_bytes()
    assert seen[-1] == 700_000
    assert not (tmp_path / "copies" / "photo.png.part").exists()


async def test_writes_are_not_retried_blindly_but_reads_are(
    api_tenant: TenantHandle, proxy: FaultyProxy, tmp_path: Path
) -> None:
    async with client_via(proxy, api_tenant) as api:
        path = _file(tmp_path, "a.pdf", 1000)
        proxy.inject(Fault(status=503, path_prefix=PATH))
        with pytest.raises(ServerError):
            await api.documents.upload(path, _metadata("RETRY1"))
        assert proxy.count("POST", PATH) == 1
        proxy.inject(Fault(status=503, path_prefix=f"{PATH}/search"))
        result = await api.documents.search_page(None)
        assert result.pagination_info.total == 0
        assert proxy.count("POST", f"{PATH}/search") == 2
