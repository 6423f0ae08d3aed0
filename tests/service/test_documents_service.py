"""The documents search page, metadata writes, local copies and the upload queue, against the
real local service (plain asyncio, no Qt)."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import BadRequest, ServerError
from freightdesk.models.auth import TenantRole
from freightdesk.models.documents import (
    DocumentCreate,
    DocumentMode,
    DocumentPatch,
    DocumentType,
    DocumentUpdate,
)
from freightdesk.service.documents import (
    DocumentQuery,
    DocumentsService,
    check_metadata,
    check_query,
    default_name,
)
from freightdesk.service.listing import ListChange
from freightdesk.service.uploads import UploadQueue, UploadState
from tests.proxy import Fault, FaultyProxy
from tests.service.conftest import OpenService


@pytest.fixture
def service(open_service: OpenService, tmp_path: Path) -> DocumentsService:
    return open_service(DocumentsService, tmp_path / "files")


def _meta(bol: str, kind: DocumentType = DocumentType.BILL_OF_LADING) -> DocumentCreate:
    return DocumentCreate.model_validate(
        {"type": kind, "mode": "TL", "identifiers": [{"type": "BILL_OF_LADING", "value": bol}]}
    )


def _file(folder: Path, name: str, size: int = 5000) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(os.urandom(size))
    return path


def test_checks_before_sending() -> None:
    wire = {"type": "INVOICE", "mode": "TL", "identifiers": []}
    _, problems = check_metadata(wire, None)
    assert "identifiers" in problems
    wire["identifiers"] = [{"type": "PRO", "value": "1"}]
    assert check_metadata(wire, None)[1] == {}
    assert "shipperTenantUuid" in check_metadata(wire, TenantRole.CARRIER)[1]
    wire["identifiers"].append({"type": "SHIPPER_TENANT_UUID", "value": "nope"})
    assert "identifiers[1].value" in check_metadata(wire, TenantRole.CARRIER)[1]
    assert "identifiers" in check_query(DocumentQuery(identifiers=(("NOT_A_TYPE", "1"),)))
    assert default_name(Path("/x/BOL_4711  scan.pdf")) == "BOL 4711 scan"


async def test_search_pages_writes_and_cache(
    client: ApiClient, service: DocumentsService, tmp_path: Path
) -> None:
    files = tmp_path / "in"
    made = [
        await client.documents.upload(_file(files, f"d{n}.pdf"), _meta(f"B{n}")) for n in range(3)
    ]
    await client.documents.upload(_file(files, "inv.pdf"), _meta("B0", DocumentType.INVOICE))
    changes: list[ListChange] = []
    stop = service.coordinator.listen(changes.append)
    try:
        shown = await service.search(DocumentQuery(types=(DocumentType.BILL_OF_LADING,), size=2))
        assert [d.name for d in shown.items] == ["d2.pdf", "d1.pdf"] and shown.total == 3
        page2 = await service.search(
            DocumentQuery(types=(DocumentType.BILL_OF_LADING,), size=2, page=2)
        )
        assert [d.name for d in page2.items] == ["d0.pdf"]
        by_bol = await service.search(DocumentQuery(identifiers=(("BILL_OF_LADING", "B0"),)))
        assert {d.type for d in by_bol.items} == {"BILL_OF_LADING", "INVOICE"}
        # A partial update is shown at once, without a new search.
        before = len(changes)
        target = made[0]
        saved = await service.patch(target.id, DocumentPatch(name="Signed BOL"))
        assert saved.name == "Signed BOL"
        assert service.coordinator.data is not None
        assert [d.name for d in service.coordinator.data.items if d.id == target.id] == [
            "Signed BOL"
        ]
        assert changes[before:] and str(target.id) in changes[-1].changed
        full = DocumentUpdate(
            identifiers=[{"type": "PRO", "value": "P9"}],  # type: ignore[list-item]
            mode=DocumentMode.LTL,
            name="Invoice P9",
            type=DocumentType.INVOICE,
        )
        replaced = await service.replace(target.id, full)
        assert (replaced.mode, replaced.identifiers[0].value) == ("LTL", "P9")
        # A refused write changes nothing and raises for the form.
        with pytest.raises(BadRequest):
            await service.patch(
                target.id,
                DocumentPatch.model_validate(
                    {"identifiers": [{"type": "SHIPPER_TENANT_UUID", "value": "x"}]}
                ),
            )
        assert [d.name for d in service.coordinator.data.items if d.id == target.id] == [
            "Invoice P9"
        ]
        await service.delete(target.id)
        assert str(target.id) not in service.coordinator.data.keys
        await service.delete(target.id)  # deleting twice is not an error
    finally:
        stop()
    # The last page shown comes back from the cache.
    again = DocumentsService(lambda: client, service.cache, tmp_path / "files")
    cached = await again.load_cached()
    assert cached is not None and again.query == service.query
    assert [d.id for d in cached.items] == [d.id for d in service.coordinator.data.items]


async def test_local_copy_is_downloaded_once(
    client: ApiClient, service: DocumentsService, tmp_path: Path
) -> None:
    source = _file(tmp_path / "in", "scan 1.png", 50_000)
    document = await client.documents.upload(source, _meta("COPY1"))
    first, second = await asyncio.gather(service.local_copy(document), service.local_copy(document))
    assert first == second and first.name == "scan 1.png"
    assert hashlib.sha256(first.read_bytes()).hexdigest() == document.files[0].sha256
    assert service.local_copy_ready(document) == first
    saved = await service.save_copy(document, tmp_path / "copy.png")
    assert saved.read_bytes() == source.read_bytes()


async def test_upload_queue_runs_several_with_progress_cancel_and_retry(
    client: ApiClient, service: DocumentsService, tmp_path: Path
) -> None:
    await service.search(DocumentQuery())
    queue = UploadQueue(lambda: client, max_parallel=3, on_uploaded=service.added)
    seen: list[tuple[int, UploadState, int]] = []
    queue.listen(lambda u: seen.append((u.id, u.state, u.sent)))
    try:
        files = [_file(tmp_path / "in", f"f{n}.pdf", 200_000) for n in range(5)]
        uploads = [queue.add(path, _meta(f"Q{n}")) for n, path in enumerate(files)]
        missing = queue.add(tmp_path / "gone.pdf", _meta("GONE"))
        empty = queue.add(_file(tmp_path / "in", "empty.pdf", 0), _meta("EMPTY"))
        assert missing.state is UploadState.FAILED and "cannot be read" in str(missing.error)
        assert empty.state is UploadState.FAILED and "empty" in str(empty.error)
        await queue.wait()
        assert all(u.state is UploadState.DONE and u.fraction == 1.0 for u in uploads)
        assert all(u.document is not None for u in uploads)
        await asyncio.sleep(0.05)
        data = service.coordinator.data
        assert data is not None and data.total == 5
        assert {d.name for d in data.items} == {f"f{n}.pdf" for n in range(5)}
        created = [d.created_date_time for d in data.items]
        assert created == sorted(created, reverse=True)  # newest first, as the service lists
        states = {state for _id, state, _sent in seen}
        assert {UploadState.QUEUED, UploadState.UPLOADING, UploadState.DONE} <= states

        big = _file(tmp_path / "in", "big.bin", 6 * 1024 * 1024)
        upload = queue.add(big, _meta("BIG"))

        def cancel_midway(u: object) -> None:
            if upload.sent > 512 * 1024 and upload.state is UploadState.UPLOADING:
                queue.cancel(upload.id)

        queue.listen(cancel_midway)
        await queue.wait()
        assert upload.state is UploadState.CANCELLED
        queue._listeners.remove(cancel_midway)
        queue.retry(upload.id)
        await queue.wait()
        assert upload.state is UploadState.DONE and upload.sent == upload.total
        assert queue.forget_finished() and not queue.uploads
    finally:
        await queue.aclose()


async def test_a_failed_upload_can_be_retried(
    proxy: FaultyProxy, proxied_client: ApiClient, tmp_path: Path
) -> None:
    queue = UploadQueue(lambda: proxied_client)
    proxy.inject(Fault(status=503, path_prefix="/services/document/v1/documents"))
    upload = queue.add(_file(tmp_path, "x.pdf"), _meta("RETRY"))
    await queue.wait()
    assert upload.state is UploadState.FAILED and isinstance(upload.error, ServerError)
    queue.retry(upload.id)
    await queue.wait()
    assert upload.state is UploadState.DONE
    await queue.aclose()
