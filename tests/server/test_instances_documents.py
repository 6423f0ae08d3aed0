"""Several instances on one PostgreSQL database serve the same documents (issue 22): a file's
content is stored in the database, so a document uploaded through one instance downloads,
byte for byte and by ranges, from another whose data directory has never seen it; a delete
through one is seen by all. Files an older release kept on an instance's disk are copied
into the database when that instance first uses its store.
"""

from __future__ import annotations

import hashlib
import secrets

import pytest
from sqlalchemy import select

from freightdesk.models.documents import DocumentCreate
from freightdesk.server.db import transaction
from freightdesk.server.domain.documents import create_document
from freightdesk.server.domain.file_store import CHUNK_SIZE, FileStore, file_store
from freightdesk.server.tables.tenancy import Tenant
from tests.server.test_documents import metadata, stored_copies, upload
from tests.server.test_webhooks_instances import client_on
from tests.support import PostgresServer, make_tenant, running_service


@pytest.fixture
def database(postgres: PostgresServer) -> str:
    return postgres.create_database()


def test_a_document_uploaded_through_one_instance_is_served_by_another(database: str) -> None:
    # Two and a half chunks: the download crosses chunk boundaries.
    content = secrets.token_bytes(2 * CHUNK_SIZE + CHUNK_SIZE // 2)
    with running_service(database) as first, running_service(database) as second:
        tenant = make_tenant(first)
        other = client_on(second, tenant)
        answer = upload(tenant.http, content=content)
        assert answer.status_code == 200, answer.text
        document = answer.json()
        link = document["files"][0]["downloadLink"]

        got = other.get(link)
        assert got.status_code == 200, got.text
        assert got.content == content
        assert got.headers["etag"] == f'"{hashlib.sha256(content).hexdigest()}"'
        assert got.headers["content-type"] == "application/pdf"
        # Nothing of it on the second instance's disk: it came from the database.
        assert not any(p.is_file() for p in (second.settings.files_dir / "blobs").rglob("*"))
        assert not any(p.is_file() for p in (first.settings.files_dir / "blobs").rglob("*"))

        # A range across the first chunk boundary, and the last bytes.
        start = CHUNK_SIZE - 10
        part = other.get(link, headers={"Range": f"bytes={start}-{start + 19}"})
        assert part.status_code == 206
        assert part.content == content[start : start + 20]
        assert part.headers["content-range"] == f"bytes {start}-{start + 19}/{len(content)}"
        tail = other.get(link, headers={"Range": "bytes=-7"})
        assert (tail.status_code, tail.content) == (206, content[-7:])
        beyond = other.get(link, headers={"Range": f"bytes={len(content)}-"})
        assert beyond.status_code == 416

        # The same content uploaded through the second instance is stored once.
        assert upload(other, content=content).status_code == 200
        assert stored_copies(first, document["files"][0]["sha256"]) == [content]

        # Deleted through the second instance: gone on the first.
        assert other.delete(f"/services/document/v1/documents/{document['id']}").status_code == 200
        assert tenant.http.get(link).status_code == 404
        assert tenant.http.get(f"/services/document/v1/documents/{document['id']}").status_code == (
            404
        )
        other.close()
        tenant.http.close()


def test_files_an_older_release_kept_on_disk_are_copied_into_the_database(
    database: str,
) -> None:
    content = secrets.token_bytes(CHUNK_SIZE + 1)
    with running_service(database) as older, running_service(database) as reader:
        tenant = make_tenant(older)
        # Stored as before: on the instance's disk, the database naming it only.
        on_disk = FileStore(older.settings.files_dir)
        with transaction(older.context.sessions) as session:
            tenant_id = session.scalars(select(Tenant.id).where(Tenant.uuid == tenant.uuid)).one()
            document = create_document(
                session,
                on_disk,
                tenant_id=tenant_id,
                user="ops",
                company=tenant.name,
                metadata=DocumentCreate.model_validate(metadata()),
                content=content,
                file_name="old.pdf",
            )
        link = document.files[0].download_link
        other = client_on(reader, tenant)
        # Only the instance holding it can serve it yet ...
        assert other.get(link).status_code == 500
        # ... until that instance's store, on first use, copies it into the database.
        assert file_store(older.context).database_blob(document.files[0].sha256) is not None
        got = other.get(link)
        assert (got.status_code, got.content) == (200, content)
        other.close()
        tenant.http.close()
