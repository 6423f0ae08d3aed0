"""Content-addressed storage of uploaded files under the service's data directory.

A file is stored once per content, at `blobs/<aa>/<bb>/<sha256>` below `files_dir`, never under
a name a client chose. An upload is written to a temporary file in `tmp/` while it streams in,
hashed on the way, and moved into place only when it is complete, so a reader never sees a
half-written blob and an aborted upload leaves nothing behind.

On PostgreSQL the content goes to the database instead (`document_blobs` and its 1 MiB
`document_blob_chunks`), in the transaction that records the document, so that every instance
on the database serves every document with no shared filesystem; the temporary file stays
local. Downloads read it back chunk by chunk, each chunk in a short query of its own, never
the whole file at once. Files an older release stored on this instance's disk are copied into
the database on first use, and served from the disk until then. On SQLite (one instance) the
content stays on disk.

Blobs are never removed here: documents are deleted softly and keep their files. A blob
without a document (the database write after the upload failed) is harmless and is reused by
the next upload of the same content.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session, sessionmaker

from freightdesk.server.context import ServiceContext
from freightdesk.server.db import transaction
from freightdesk.server.tables.documents import (
    DocumentBlobChunkRow,
    DocumentBlobRow,
    DocumentFileRow,
)

log = logging.getLogger(__name__)

_SHA256 = re.compile(r"[0-9a-f]{64}")
_TEMP_SUFFIX = ".part"
# Temporary files this old belong to a service that stopped mid-upload.
STALE_TEMP_SECONDS = 3600.0
# Bytes per chunk of a file stored in the database: one statement each, way and back.
CHUNK_SIZE = 1024 * 1024


@dataclass(frozen=True)
class StoredBlob:
    sha256: str
    size: int


@dataclass(frozen=True)
class DatabaseBlob:
    """A file's content in the database: where its chunks start and how long it is."""

    sha256: str
    size: int
    chunk_size: int


class FileStore:
    """Blobs on disk below `root`; with `sessions` (PostgreSQL), blobs in the database."""

    def __init__(self, root: Path, sessions: sessionmaker[Session] | None = None) -> None:
        self.root = root
        self.sessions = sessions
        self._blobs = root / "blobs"
        self._tmp = root / "tmp"
        self._blobs.mkdir(parents=True, exist_ok=True)
        self._tmp.mkdir(parents=True, exist_ok=True)

    def path_for(self, sha256: str) -> Path:
        if not _SHA256.fullmatch(sha256):
            raise ValueError(f"not a sha256 hex digest: {sha256!r}")
        return self._blobs / sha256[:2] / sha256[2:4] / sha256

    def begin(self) -> PendingBlob:
        """A new upload; write to it, then `commit()` it or `discard()` it."""
        return PendingBlob(self, self._tmp / f"{secrets.token_hex(16)}{_TEMP_SUFFIX}")

    def temporary_files(self) -> list[Path]:
        return sorted(self._tmp.glob(f"*{_TEMP_SUFFIX}"))

    def sweep_temporary(self, older_than: float = STALE_TEMP_SECONDS) -> int:
        """Remove temporary files left by a service that stopped mid-upload."""
        removed = 0
        cutoff = time.time() - older_than
        for path in self.temporary_files():
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except FileNotFoundError:
                continue
        if removed:
            log.info("removed %d stale partial upload(s) from %s", removed, self._tmp)
        return removed

    def database_blob(self, sha256: str) -> DatabaseBlob | None:
        """The content as stored in the database, None when it is not (or on SQLite)."""
        if self.sessions is None:
            return None
        with self.sessions() as session:
            row = session.get(DocumentBlobRow, sha256)
            if row is None:
                return None
            return DatabaseBlob(sha256, row.size, row.chunk_size)

    def read(self, blob: DatabaseBlob, first: int, last: int) -> Iterator[bytes]:
        """Bytes `first` to `last` (inclusive) of a blob in the database, a chunk at a time;
        each chunk is one short query, so a slow reader holds no connection."""
        assert self.sessions is not None
        for index in range(first // blob.chunk_size, last // blob.chunk_size + 1):
            start = index * blob.chunk_size
            with self.sessions() as session:
                data = session.scalar(
                    select(DocumentBlobChunkRow.data).where(
                        DocumentBlobChunkRow.sha256 == blob.sha256,
                        DocumentBlobChunkRow.start == start,
                    )
                )
            if data is None:
                raise RuntimeError(f"chunk at {start} of blob {blob.sha256} is missing")
            yield bytes(data[max(first - start, 0) : last - start + 1])

    def import_local_blobs(self) -> int:
        """Copy into the database the files of documents that this instance's disk holds and
        the database does not (stored by a release that kept them on disk)."""
        assert self.sessions is not None
        with self.sessions() as session:
            wanted = list(
                session.scalars(
                    select(DocumentFileRow.sha256)
                    .distinct()
                    .where(DocumentFileRow.sha256.not_in(select(DocumentBlobRow.sha256)))
                )
            )
        copied = 0
        for sha256 in wanted:
            path = self.path_for(sha256)
            if path.is_file():
                with transaction(self.sessions) as session, path.open("rb") as source:
                    _insert_blob(session, sha256, path.stat().st_size, source)
                copied += 1
        if copied:
            log.info("copied %d document file(s) from %s into the database", copied, self._blobs)
        if len(wanted) > copied:
            log.warning(
                "%d document file(s) are neither in the database nor in %s: each instance that "
                "stored files on its disk copies them in when it starts with this release",
                len(wanted) - copied,
                self._blobs,
            )
        return copied

    def _install(self, temp: Path, sha256: str) -> Path:
        final = self.path_for(sha256)
        if final.exists():
            # The same content is stored already; keep the one copy.
            temp.unlink(missing_ok=True)
            return final
        final.parent.mkdir(parents=True, exist_ok=True)
        os.replace(temp, final)
        return final


class PendingBlob:
    """An upload being received: counts, hashes and writes to a temporary file.

    Not thread-safe; one upload is written by one task at a time.
    """

    def __init__(self, store: FileStore, temp: Path) -> None:
        self._store = store
        self._temp = temp
        self._file: BinaryIO | None = None
        self._hash = hashlib.sha256()
        self._done = False
        self.size = 0

    def write(self, data: bytes) -> None:
        if self._done:
            raise RuntimeError("the upload is already finished")
        if self._file is None:
            self._file = self._temp.open("xb")
        self._file.write(data)
        self._hash.update(data)
        self.size += len(data)

    def commit(self, session: Session) -> StoredBlob:
        """Make the content durable and move it to its content address: on disk, or in the
        database through `session` (in the transaction that records the document)."""
        if self._done:
            raise RuntimeError("the upload is already finished")
        if self._file is None:
            self._file = self._temp.open("xb")
        self._file.flush()
        self._done = True
        sha256 = self._hash.hexdigest()
        if self._store.sessions is not None:
            self._file.close()
            with self._temp.open("rb") as source:
                _insert_blob(session, sha256, self.size, source)
            self._temp.unlink(missing_ok=True)
        else:
            os.fsync(self._file.fileno())
            self._file.close()
            self._store._install(self._temp, sha256)
        return StoredBlob(sha256=sha256, size=self.size)

    def discard(self) -> None:
        """Drop a partial upload; does nothing after `commit()`. Safe to call twice."""
        if self._file is not None and not self._file.closed:
            self._file.close()
        self._done = True
        self._temp.unlink(missing_ok=True)


def _insert_blob(session: Session, sha256: str, size: int, source: BinaryIO) -> None:
    """Store a content in the database unless it is there already, a chunk at a time.

    Two instances storing the same content at once: the second's insert of the blob row waits
    for the first's transaction, then adds nothing (or everything, if the first rolled back).
    """
    added = session.execute(
        insert(DocumentBlobRow)
        .values(sha256=sha256, size=size, chunk_size=CHUNK_SIZE)
        .on_conflict_do_nothing(index_elements=["sha256"])
        .returning(DocumentBlobRow.sha256)
    ).first()
    if added is None:
        return
    start = 0
    while data := source.read(CHUNK_SIZE):
        session.execute(insert(DocumentBlobChunkRow).values(sha256=sha256, start=start, data=data))
        start += len(data)


_store_lock = threading.Lock()


def file_store(context: ServiceContext) -> FileStore:
    """The service's file store, made (and swept of stale partial uploads) on first use."""
    with _store_lock:
        store = context.services.get("files")
        if store is None:
            in_database = context.engine.dialect.name == "postgresql"
            store = FileStore(context.settings.files_dir, context.sessions if in_database else None)
            store.sweep_temporary()
            if in_database:
                store.import_local_blobs()
            context.services["files"] = store
    assert isinstance(store, FileStore)
    return store
