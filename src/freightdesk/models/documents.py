"""Shipment documents: metadata, stored files, updates and search.

A document is created by a multipart upload (`document`: the JSON of `DocumentCreate`,
`upload_file`: the bytes); its metadata is then replaced (`DocumentUpdate`), changed in part
(`DocumentPatch`) or searched (`DocumentSearch`, answered with `DocumentSearchResults`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any
from uuid import UUID

from pydantic import (
    AfterValidator,
    AwareDatetime,
    ConfigDict,
    Field,
    JsonValue,
    StringConstraints,
    field_validator,
)
from pydantic.config import JsonDict

from freightdesk.models.base import StrictWireModel, WireModel
from freightdesk.models.common import (
    PRINTABLE,
    IdentifierType,
    LogisticsIdentifier,
    PaginationInfo,
    printable,
)

MAX_NAME_LENGTH = 255
MAX_IDENTIFIERS = 250
MAX_IDENTIFIER_VALUE_LENGTH = 200
MAX_SEARCH_VALUES = 100


class DocumentType(StrEnum):
    BILL_OF_LADING = "BILL_OF_LADING"
    HOUSE_BILL_OF_LADING = "HOUSE_BILL_OF_LADING"
    AIRWAY_BILL = "AIRWAY_BILL"
    COMMERCIAL_INVOICE = "COMMERCIAL_INVOICE"
    CUSTOMS_DOCUMENTS = "CUSTOMS_DOCUMENTS"
    PACKING_SLIP = "PACKING_SLIP"
    CERTIFICATE_OF_ORIGIN = "CERTIFICATE_OF_ORIGIN"
    PROOF_OF_DELIVERY = "PROOF_OF_DELIVERY"
    DELIVERY_RECEIPT = "DELIVERY_RECEIPT"
    ECMR = "ECMR"
    WEIGHT_CERTIFICATE = "WEIGHT_CERTIFICATE"
    INSPECTION_CERTIFICATE = "INSPECTION_CERTIFICATE"
    LETTER_OF_AUTHORIZATION = "LETTER_OF_AUTHORIZATION"
    LUMPER_CERTIFICATE = "LUMPER_CERTIFICATE"
    INVOICE = "INVOICE"


class DocumentMode(StrEnum):
    """The modes a document can belong to (no VLTL, unlike tracking)."""

    AIR = "AIR"
    OCEAN = "OCEAN"
    TL = "TL"
    LTL = "LTL"
    PARCEL = "PARCEL"
    RAIL = "RAIL"
    BARGE = "BARGE"


class SearchOperator(StrEnum):
    """The interface supports only equality in document search."""

    EQUALS = "EQUALS"


# The internal entity type a carrier uses to name the shipper tenant a document is for.
SHIPPER_TENANT_UUID = "SHIPPER_TENANT_UUID"

DOCUMENT_IDENTIFIER_TYPES: frozenset[str] = frozenset(
    {member.value for member in IdentifierType} | {SHIPPER_TENANT_UUID}
)


def _no_nul(value: Any) -> Any:
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("must not contain NUL characters")
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_nul(key)
            _no_nul(item)
    elif isinstance(value, list):
        for item in value:
            _no_nul(item)
    return value


Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_LENGTH),
    AfterValidator(printable),
    Field(json_schema_extra=PRINTABLE),
]


class DocumentIdentifier(StrictWireModel):
    """An identifier given by a caller: a logistics identifier type or SHIPPER_TENANT_UUID."""

    # The list for the document; _known_type answers with its own message.
    type: str = Field(
        json_schema_extra={"enum": list[JsonValue](sorted(DOCUMENT_IDENTIFIER_TYPES))}
    )
    value: Annotated[
        str,
        StringConstraints(
            strip_whitespace=True, min_length=1, max_length=MAX_IDENTIFIER_VALUE_LENGTH
        ),
        AfterValidator(printable),
        Field(json_schema_extra=PRINTABLE),
    ]

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if value not in DOCUMENT_IDENTIFIER_TYPES:
            raise ValueError(
                f"{value!r} is not an identifier type of documents; use {SHIPPER_TENANT_UUID} "
                "or a logistics identifier type such as BILL_OF_LADING or PRO_NUMBER"
            )
        return value


def _dedupe(identifiers: list[DocumentIdentifier]) -> list[DocumentIdentifier]:
    seen: set[tuple[str, str]] = set()
    unique: list[DocumentIdentifier] = []
    for identifier in identifiers:
        key = (identifier.type, identifier.value)
        if key not in seen:
            seen.add(key)
            unique.append(identifier)
    return unique


def _non_empty_identifiers(value: list[DocumentIdentifier]) -> list[DocumentIdentifier]:
    if not value:
        raise ValueError("must hold at least one identifier")
    return _dedupe(value)


# Non-empty on create and on update, so a document always belongs to something.
Identifiers = Annotated[
    list[DocumentIdentifier],
    # minItems for the document only: the validator's message is the one answered.
    Field(max_length=MAX_IDENTIFIERS, json_schema_extra={"minItems": 1}),
    AfterValidator(_non_empty_identifiers),
]


class DocumentCreate(StrictWireModel):
    """The `document` part of an upload.

    `name` defaults to the uploaded file's name. `parsedData` may carry data the uploader
    already extracted; the service does not read the file's content.
    """

    name: Name | None = None
    type: DocumentType
    mode: DocumentMode
    identifiers: Identifiers
    parsed_data: Annotated[dict[str, Any], AfterValidator(_no_nul)] | None = None


class DocumentUpdate(StrictWireModel):
    """PUT: the full set of changeable metadata."""

    identifiers: Identifiers
    mode: DocumentMode
    name: Name
    type: DocumentType


def _never_null(schema: JsonDict) -> None:
    """The document says what the model checks: a field may be left out, but not null."""
    schema["additionalProperties"] = False
    properties: dict[str, Any] = schema.get("properties")  # type: ignore[assignment]
    for name, field in list(properties.items()):
        options = field.get("anyOf") if isinstance(field, dict) else None
        if isinstance(options, list) and {"type": "null"} in options:
            kept = [option for option in options if option != {"type": "null"}]
            # Nor is null its default: the field left out changes nothing.
            rest = {k: v for k, v in field.items() if k != "anyOf" and (k, v) != ("default", None)}
            properties[name] = {**rest, **kept[0]} if len(kept) == 1 else {**rest, "anyOf": kept}


class DocumentPatch(StrictWireModel):
    """PATCH: only the fields given change; none of them may be null or emptied."""

    model_config = ConfigDict(json_schema_extra=_never_null)

    identifiers: Identifiers | None = None
    mode: DocumentMode | None = None
    name: Name | None = None
    type: DocumentType | None = None

    @field_validator("identifiers", "mode", "name", "type", mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("may be left out but not null")
        return value


class Image(WireModel):
    """One stored file of a document (the interface's Image; its fields are ours).

    `downloadLink` is the path of the download operation, relative to the service's base URL.
    """

    id: UUID
    file_name: str
    content_type: str
    size: int
    sha256: str
    created_date_time: AwareDatetime
    download_link: str


class Document(WireModel):
    id: UUID
    name: str
    type: DocumentType
    mode: DocumentMode
    # Open on reading, so a deployment that adds identifier types does not break the client.
    identifiers: list[LogisticsIdentifier] = Field(default_factory=list)
    files: list[Image] = Field(default_factory=list)
    parsed_data: dict[str, Any] = Field(default_factory=dict)
    added_by_company: str | None = None
    added_by_user: str | None = None
    created_date_time: AwareDatetime
    last_modified_date_time: AwareDatetime
    deleted_date_time: AwareDatetime | None = None


class IdentifiersCriterion(StrictWireModel):
    operator: SearchOperator
    values: Annotated[list[DocumentIdentifier], Field(min_length=1, max_length=MAX_SEARCH_VALUES)]


class NameCriterion(StrictWireModel):
    operator: SearchOperator
    value: Name


class TypeCriterion(StrictWireModel):
    operator: SearchOperator
    values: Annotated[list[DocumentType], Field(min_length=1, max_length=MAX_SEARCH_VALUES)]


class DocumentSearch(StrictWireModel):
    """Criteria are combined with AND; within `values`, any one equal value matches."""

    identifiers: IdentifiersCriterion | None = None
    name: NameCriterion | None = None
    type: TypeCriterion | None = None


class DocumentSearchResults(WireModel):
    """Our shape of the search answer (the interface leaves it unstructured)."""

    pagination_info: PaginationInfo
    results: list[Document]
