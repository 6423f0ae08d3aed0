"""Content-addressed storage of uploaded files under the service's data directory.

A file is stored once per content, at `blobs/<aa>/<bb>/<sha256>` below `files_dir`, never under
a name a client chose. An upload is written to a temporary file in `tmp/` while it streams in,
hashed on the way, and moved into place only when it is complete, so a reader never sees a
half-written blob and an aborted upload leaves nothing behind.

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
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from freightdesk.server.context import ServiceContext

log = logging.getLogger(__name__)

_SHA256 = re.compile(r"[0-9a-f]{64}")
_TEMP_SUFFIX = ".part"
# Temporary files this old belong to a service that stopped mid-upload.
STALE_TEMP_SECONDS = 3600.0


@dataclass(frozen=True)
class StoredBlob:
    sha256: str
    size: int
    path: Path


class FileStore:
    def __init__(self, root: Path) -> None:
        self.root = root
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

    def commit(self) -> StoredBlob:
        """Make the content durable and move it to its content address."""
        if self._done:
            raise RuntimeError("the upload is already finished")
        if self._file is None:
            self._file = self._temp.open("xb")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        self._done = True
        sha256 = self._hash.hexdigest()
        path = self._store._install(self._temp, sha256)
        return StoredBlob(sha256=sha256, size=self.size, path=path)

    def discard(self) -> None:
        """Drop a partial upload; does nothing after `commit()`. Safe to call twice."""
        if self._file is not None and not self._file.closed:
            self._file.close()
        self._done = True
        self._temp.unlink(missing_ok=True)


_store_lock = threading.Lock()


def file_store(context: ServiceContext) -> FileStore:
    """The service's file store, made (and swept of stale partial uploads) on first use."""
    with _store_lock:
        store = context.services.get("files")
        if store is None:
            store = FileStore(context.settings.files_dir)
            store.sweep_temporary()
            context.services["files"] = store
    assert isinstance(store, FileStore)
    return store
