"""A document upload's multipart body, parsed as it streams in.

The file part goes straight to a temporary file of the file store (hashed and counted on the
way, never held whole in memory); the `document` part (small) is validated as soon as it ends,
so a bad one is refused before the file is received. The route decides what becomes of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request

from freightdesk.models.documents import DocumentCreate
from freightdesk.server.domain.file_store import PendingBlob
from freightdesk.server.errors import ApiError, field_error, field_errors, validation_details

DOCUMENT_PART = "document"
FILE_PART = "upload_file"
# The `document` part is metadata; anything this large is a mistake, not a document.
METADATA_LIMIT = 256 * 1024
# Boundaries and part headers around the two parts.
ENVELOPE_SLACK = 64 * 1024
# Received file bytes are written in batches of about this size (one thread hop each).
WRITE_BATCH = 1024 * 1024


@dataclass(frozen=True)
class Upload:
    """What an upload's body held besides the file's bytes (those are in the pending blob)."""

    metadata: DocumentCreate
    file_name: str | None
    content_type: str | None


def refuse_declared_oversize(request: Request, file_limit: int) -> None:
    """413 before anything is read when the declared Content-Length is already too large."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > _body_limit(file_limit):
        raise _too_large(file_limit)


async def receive_upload(request: Request, pending: PendingBlob, file_limit: int) -> Upload:
    """Reads the whole body, the file part into `pending`; 4xx for anything but one of each part."""
    parser = _UploadParser(file_limit)
    await _receive(request, parser, pending, _body_limit(file_limit), file_limit)
    return Upload(_complete(parser), parser.file_name, parser.content_type)


def _body_limit(file_limit: int) -> int:
    return file_limit + METADATA_LIMIT + ENVELOPE_SLACK


def _too_large(limit: int) -> ApiError:
    return field_error(FILE_PART, f"is larger than the upload limit of {limit} bytes", status=413)


class _UploadParser:
    """Callbacks of the streaming multipart parser for the two parts of an upload.

    File bytes collect in `pending` until the caller writes them out; the `document` part is
    kept (it is small) and validated as soon as it ends, so a bad one is refused before the
    file is received.
    """

    def __init__(self, file_limit: int) -> None:
        self._file_limit = file_limit
        self._part: str | None = None
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._part_headers: dict[bytes, bytes] = {}
        self._metadata_text = bytearray()
        self.metadata: DocumentCreate | None = None
        self.file_started = False
        self.file_complete = False
        self.file_size = 0
        self.file_name: str | None = None
        self.content_type: str | None = None
        self.pending = bytearray()
        self.ended = False

    def on_part_begin(self) -> None:
        self._part = None
        self._part_headers = {}

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def on_header_end(self) -> None:
        self._part_headers[bytes(self._header_name).lower()] = bytes(self._header_value)
        self._header_name.clear()
        self._header_value.clear()

    def on_headers_finished(self) -> None:
        _, options = parse_options_header(self._part_headers.get(b"content-disposition"))
        name = options.get(b"name", b"").decode("utf-8", "replace")
        if name == DOCUMENT_PART:
            if self.metadata is not None or self._metadata_text:
                raise field_error(DOCUMENT_PART, "is given more than once")
        elif name == FILE_PART:
            if self.file_started:
                raise field_error(FILE_PART, "is given more than once; one file per document")
            self.file_started = True
            raw_name = options.get(b"filename")
            self.file_name = raw_name.decode("utf-8", "replace") if raw_name is not None else None
            raw_type = self._part_headers.get(b"content-type")
            self.content_type = raw_type.decode("latin-1") if raw_type is not None else None
        elif not name:
            raise field_error("body", "a multipart part has no name")
        else:
            raise field_error(
                name, f"is not a part of an upload; send {DOCUMENT_PART} and {FILE_PART}"
            )
        self._part = name

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._part == FILE_PART:
            self.file_size += end - start
            if self.file_size > self._file_limit:
                raise _too_large(self._file_limit)
            self.pending += data[start:end]
        elif self._part == DOCUMENT_PART:
            self._metadata_text += data[start:end]
            if len(self._metadata_text) > METADATA_LIMIT:
                raise field_error(
                    DOCUMENT_PART, f"is larger than {METADATA_LIMIT} bytes", status=413
                )

    def on_part_end(self) -> None:
        if self._part == FILE_PART:
            self.file_complete = True
        elif self._part == DOCUMENT_PART:
            self.metadata = _parse_metadata(bytes(self._metadata_text))
        self._part = None

    def on_end(self) -> None:
        self.ended = True


def _parse_metadata(text: bytes) -> DocumentCreate:
    try:
        return DocumentCreate.model_validate_json(text)
    except ValidationError as exc:
        details = [
            detail.model_copy(
                update={
                    "source": DOCUMENT_PART
                    if detail.source == "body"
                    else f"{DOCUMENT_PART}.{detail.source}"
                }
            )
            for detail in validation_details(exc.errors())
        ]
        summary = f"{details[0].source}: {details[0].message}"
        if len(details) > 1:
            summary += f" (and {len(details) - 1} more)"
        raise ApiError(400, summary, errors=details) from None


def _boundary(request: Request) -> bytes:
    content_type = request.headers.get("content-type", "")
    media_type, options = parse_options_header(content_type)
    if media_type != b"multipart/form-data":
        raise ApiError(
            415,
            f"Content type {content_type or '(none)'} is not supported here; send "
            f"multipart/form-data with the parts {DOCUMENT_PART} and {FILE_PART}",
        )
    boundary = options.get(b"boundary")
    if not boundary:
        raise field_error("content-type", "multipart/form-data needs a boundary parameter")
    return boundary


async def _receive(
    request: Request, parser: _UploadParser, pending: PendingBlob, body_limit: int, file_limit: int
) -> None:
    boundary = _boundary(request)
    try:
        multipart = MultipartParser(
            boundary,
            {
                "on_part_begin": parser.on_part_begin,
                "on_part_data": parser.on_part_data,
                "on_part_end": parser.on_part_end,
                "on_header_field": parser.on_header_field,
                "on_header_value": parser.on_header_value,
                "on_header_end": parser.on_header_end,
                "on_headers_finished": parser.on_headers_finished,
                "on_end": parser.on_end,
            },
        )
        received = 0
        async for chunk in request.stream():
            received += len(chunk)
            if received > body_limit:
                raise _too_large(file_limit)
            multipart.write(chunk)
            if len(parser.pending) >= WRITE_BATCH:
                await _flush(parser, pending)
        await _flush(parser, pending)
        multipart.finalize()
    except FormParserError as exc:
        raise field_error("body", f"is not valid multipart/form-data ({exc})") from None
    except ClientDisconnect:
        raise ApiError(400, "The client closed the connection before the upload ended") from None


async def _flush(parser: _UploadParser, pending: PendingBlob) -> None:
    if parser.pending:
        data = bytes(parser.pending)
        parser.pending.clear()
        await run_in_threadpool(pending.write, data)


def _complete(parser: _UploadParser) -> DocumentCreate:
    missing: list[tuple[str, str]] = []
    if parser.metadata is None:
        missing.append((DOCUMENT_PART, "is required"))
    if not parser.file_started:
        missing.append((FILE_PART, "is required"))
    if missing:
        raise field_errors(missing)
    if not (parser.ended and parser.file_complete):
        raise field_error("body", "the multipart body ends before its closing boundary")
    if parser.file_size == 0:
        raise field_error(FILE_PART, "is empty; a document needs the file's content")
    assert parser.metadata is not None
    return parser.metadata
