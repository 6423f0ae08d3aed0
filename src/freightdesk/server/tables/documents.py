"""Shipment documents, their identifiers and their stored files."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from freightdesk.server.db import Base, BigId, JsonType, UtcDateTime, UuidStr, utcnow


class DocumentRow(Base):
    __tablename__ = "documents"
    # Search lists one tenant's live documents, newest first.
    __table_args__ = (
        Index("ix_documents_tenant_live", "tenant_id", "deleted_at", "created_at"),
        Index("ix_documents_name", "name"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    uuid: Mapped[str] = mapped_column(UuidStr, unique=True)
    # The owning tenant: the only one that may change or delete the document.
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    type: Mapped[str] = mapped_column(String(40))
    mode: Mapped[str] = mapped_column(String(10))
    parsed_data: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    added_by_company: Mapped[str] = mapped_column(String(200))
    added_by_user: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    modified_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(UtcDateTime, default=None)

    identifiers: Mapped[list[DocumentIdentifierRow]] = relationship(
        order_by="DocumentIdentifierRow.position",
        cascade="all, delete-orphan",
        lazy="selectin",
    )
    files: Mapped[list[DocumentFileRow]] = relationship(
        order_by="DocumentFileRow.id",
        cascade="all, delete-orphan",
        lazy="selectin",
    )


class DocumentIdentifierRow(Base):
    __tablename__ = "document_identifiers"
    # Search by identifier, and the shipper tenants a carrier's document is shared with.
    __table_args__ = (Index("ix_document_identifiers_type_value", "type", "value"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(60))
    value: Mapped[str] = mapped_column(String(200))


class DocumentFileRow(Base):
    __tablename__ = "document_files"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    uuid: Mapped[str] = mapped_column(UuidStr, unique=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    file_name: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(200))
    size: Mapped[int] = mapped_column(BigInteger)
    # The content address in the file store.
    sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class DocumentBlobRow(Base):
    """A file's content stored in the database (PostgreSQL: every instance serves every
    document, `domain.file_store`): one row per content, its bytes in chunks."""

    __tablename__ = "document_blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    # Every chunk but the last has this many bytes; chunk k starts at k * chunk_size.
    chunk_size: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class DocumentBlobChunkRow(Base):
    __tablename__ = "document_blob_chunks"

    sha256: Mapped[str] = mapped_column(
        ForeignKey("document_blobs.sha256", ondelete="CASCADE"), primary_key=True
    )
    start: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
