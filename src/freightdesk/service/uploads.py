"""The upload queue: several files at once, each with its progress, cancel and retry.

`add` returns at once (the file's size is all it reads); each upload runs in its own task,
at most `max_parallel` at a time, and streams its file from disk. Listeners hear of every
state change and of progress at most every `progress_interval` seconds per upload, so a
thousand progress callbacks a second do not become a thousand repaints.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from freightdesk.api.client import ApiClient
from freightdesk.api.errors import FreightDeskError
from freightdesk.models.auth import TenantRole
from freightdesk.models.documents import Document, DocumentCreate

log = logging.getLogger(__name__)

DEFAULT_PARALLEL = 20


class UploadState(StrEnum):
    QUEUED = "queued"
    UPLOADING = "uploading"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED = frozenset({UploadState.DONE, UploadState.FAILED, UploadState.CANCELLED})


class UnreadableFile(FreightDeskError):
    """The file cannot be uploaded as it is (gone, unreadable, empty)."""


@dataclass
class Upload:
    id: int
    path: Path
    metadata: DocumentCreate
    role: TenantRole | None
    total: int = 0
    sent: int = 0
    state: UploadState = UploadState.QUEUED
    error: BaseException | None = None
    document: Document | None = None
    added_at: float = field(default_factory=time.monotonic)
    started_at: float | None = None
    finished_at: float | None = None

    @property
    def fraction(self) -> float:
        if self.state is UploadState.DONE:
            return 1.0
        return self.sent / self.total if self.total else 0.0

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


UploadListener = Callable[[Upload], None]


class UploadQueue:
    def __init__(
        self,
        client: Callable[[], ApiClient],
        *,
        max_parallel: int = DEFAULT_PARALLEL,
        progress_interval: float = 0.05,
        on_uploaded: Callable[[Document], None] | None = None,
    ) -> None:
        self._client = client
        self.max_parallel = max_parallel
        self.progress_interval = progress_interval
        self.on_uploaded = on_uploaded
        self._slots = asyncio.Semaphore(max_parallel)
        self._ids = itertools.count(1)
        self.uploads: dict[int, Upload] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._listeners: list[UploadListener] = []
        self._last_told: dict[int, float] = {}

    # --- listening -------------------------------------------------------------------------

    def listen(self, listener: UploadListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _tell(self, upload: Upload) -> None:
        self._last_told[upload.id] = time.monotonic()
        for listener in list(self._listeners):
            try:
                listener(upload)
            except Exception:
                log.exception("an upload listener failed")

    # --- adding, cancelling, retrying ------------------------------------------------------

    def add(self, path: Path, metadata: DocumentCreate, role: TenantRole | None = None) -> Upload:
        """Queue one file; its upload starts as soon as a slot is free."""
        upload = Upload(next(self._ids), path, metadata, role)
        self.uploads[upload.id] = upload
        self._start(upload)
        return upload

    def cancel(self, upload_id: int) -> None:
        task = self._tasks.get(upload_id)
        if task is not None and not task.done():
            task.cancel()

    def retry(self, upload_id: int, metadata: DocumentCreate | None = None) -> None:
        """Send a failed or cancelled upload again, from the start; with `metadata` when the
        service refused what was sent (the user corrected it), in the same row."""
        upload = self.uploads.get(upload_id)
        if upload is None or upload.state not in (UploadState.FAILED, UploadState.CANCELLED):
            return
        if metadata is not None:
            upload.metadata = metadata
        upload.state = UploadState.QUEUED
        upload.sent = 0
        upload.error = None
        upload.started_at = upload.finished_at = None
        self._start(upload)

    def forget_finished(self) -> list[int]:
        """Drop finished uploads from the queue; answers their ids."""
        gone = [u.id for u in self.uploads.values() if u.finished]
        for upload_id in gone:
            self.uploads.pop(upload_id, None)
            self._last_told.pop(upload_id, None)
        return gone

    @property
    def active(self) -> int:
        return sum(1 for u in self.uploads.values() if not u.finished)

    async def wait(self) -> None:
        """Until every upload queued so far has finished (for tests and benchmarks)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    # --- running ---------------------------------------------------------------------------

    def _start(self, upload: Upload) -> None:
        try:
            upload.total = upload.path.stat().st_size
        except OSError as exc:
            self._fail(upload, UnreadableFile(f"{upload.path.name} cannot be read: {exc.strerror}"))
            return
        if upload.total == 0:
            self._fail(upload, UnreadableFile(f"{upload.path.name} is empty; nothing to upload"))
            return
        self._tell(upload)
        task = asyncio.get_running_loop().create_task(
            self._run(upload), name=f"upload:{upload.path.name}"
        )
        self._tasks[upload.id] = task

        def finished(done: asyncio.Task[None], upload_id: int = upload.id) -> None:
            if self._tasks.get(upload_id) is done:
                del self._tasks[upload_id]

        task.add_done_callback(finished)

    def _fail(self, upload: Upload, error: BaseException) -> None:
        upload.state = UploadState.FAILED
        upload.error = error
        upload.finished_at = time.monotonic()
        self._tell(upload)

    async def _run(self, upload: Upload) -> None:
        try:
            async with self._slots:
                upload.state = UploadState.UPLOADING
                upload.started_at = time.monotonic()
                self._tell(upload)
                document = await self._client().documents.upload(
                    upload.path,
                    upload.metadata,
                    progress=lambda done, total: self._progress(upload, done, total),
                    role=upload.role,
                )
        except asyncio.CancelledError:
            upload.state = UploadState.CANCELLED
            upload.finished_at = time.monotonic()
            self._tell(upload)
            return
        except Exception as exc:
            log.info("upload of %s failed: %s", upload.path.name, exc)
            self._fail(upload, exc)
            return
        upload.document = document
        upload.sent = upload.total
        upload.state = UploadState.DONE
        upload.finished_at = time.monotonic()
        self._tell(upload)
        if self.on_uploaded is not None:
            try:
                self.on_uploaded(document)
            except Exception:
                log.exception("showing an uploaded document failed")

    def _progress(self, upload: Upload, done: int, total: int) -> None:
        upload.sent = done
        upload.total = total
        last = self._last_told.get(upload.id, 0.0)
        if done >= total or time.monotonic() - last >= self.progress_interval:
            self._tell(upload)

    async def aclose(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._listeners.clear()
