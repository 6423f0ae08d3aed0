"""How document types, modes and sizes read in the app."""

from __future__ import annotations

from freightdesk.models.code_words import code_text
from freightdesk.models.documents import (
    DOCUMENT_IDENTIFIER_TYPES,
    SHIPPER_TENANT_UUID,
    DocumentType,
)

TYPE_TEXT: dict[DocumentType, str] = {
    DocumentType.BILL_OF_LADING: "Bill of lading",
    DocumentType.HOUSE_BILL_OF_LADING: "House bill of lading",
    DocumentType.AIRWAY_BILL: "Air waybill",
    DocumentType.COMMERCIAL_INVOICE: "Commercial invoice",
    DocumentType.CUSTOMS_DOCUMENTS: "Customs documents",
    DocumentType.PACKING_SLIP: "Packing slip",
    DocumentType.CERTIFICATE_OF_ORIGIN: "Certificate of origin",
    DocumentType.PROOF_OF_DELIVERY: "Proof of delivery",
    DocumentType.DELIVERY_RECEIPT: "Delivery receipt",
    DocumentType.ECMR: "eCMR",
    DocumentType.WEIGHT_CERTIFICATE: "Weight certificate",
    DocumentType.INSPECTION_CERTIFICATE: "Inspection certificate",
    DocumentType.LETTER_OF_AUTHORIZATION: "Letter of authorization",
    DocumentType.LUMPER_CERTIFICATE: "Lumper certificate",
    DocumentType.INVOICE: "Invoice",
}

# As a dispatcher writes them on paper; the others as `code_text` says them ("Carrier SCAC",
# "PRO number"): "Purchase order" is PO.
SHORT_TYPES = {
    "BILL_OF_LADING": "BOL",
    "HOUSE_BILL_OF_LADING": "HBL",
    "PURCHASE_ORDER": "PO",
    "AIR_WAYBILL": "AWB",
    "HOUSE_AIR_WAYBILL": "HAWB",
    "CONTAINER_ID": "Container",
    "BOOKING_NUMBER": "Booking",
    SHIPPER_TENANT_UUID: "Shipper's company id",
}


def identifier_type_text(kind: str) -> str:
    """An identifier's type as the list, its filter and its forms say it: "PO", "BOL"."""
    return SHORT_TYPES.get(kind) or code_text(kind)


# The identifier types a user picks from, in the order of their words; the shipper tenant's
# uuid is asked for apart.
IDENTIFIER_TYPES: list[str] = sorted(
    DOCUMENT_IDENTIFIER_TYPES - {SHIPPER_TENANT_UUID}, key=identifier_type_text
)
ALL_IDENTIFIER_TYPES: list[str] = [*IDENTIFIER_TYPES, SHIPPER_TENANT_UUID]


def type_text(value: DocumentType | str) -> str:
    try:
        return TYPE_TEXT[DocumentType(value)]
    except ValueError:
        return str(value)


def size_text(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"


# Words in a file name that say what kind of document it is, most specific first.
_NAME_HINTS: list[tuple[tuple[str, ...], DocumentType]] = [
    (("hbl", "house bill", "house_bill"), DocumentType.HOUSE_BILL_OF_LADING),
    (("bol", "bill of lading", "bill_of_lading", "b/l"), DocumentType.BILL_OF_LADING),
    (("awb", "air waybill", "airway"), DocumentType.AIRWAY_BILL),
    (("commercial invoice", "commercial_invoice"), DocumentType.COMMERCIAL_INVOICE),
    (("customs",), DocumentType.CUSTOMS_DOCUMENTS),
    (("packing", "packlist"), DocumentType.PACKING_SLIP),
    (("origin",), DocumentType.CERTIFICATE_OF_ORIGIN),
    (("pod", "proof of delivery", "proof_of_delivery"), DocumentType.PROOF_OF_DELIVERY),
    (("ecmr", "cmr"), DocumentType.ECMR),
    (("weight", "scale"), DocumentType.WEIGHT_CERTIFICATE),
    (("inspection",), DocumentType.INSPECTION_CERTIFICATE),
    (("authorization", "loa"), DocumentType.LETTER_OF_AUTHORIZATION),
    (("lumper",), DocumentType.LUMPER_CERTIFICATE),
    (("receipt",), DocumentType.DELIVERY_RECEIPT),
    (("invoice", "inv"), DocumentType.INVOICE),
]


def guess_type(file_name: str) -> DocumentType | None:
    """The document type a file's name suggests ("POD 4711.jpg" is a proof of delivery)."""
    stem = file_name.rsplit(".", 1)[0].lower()
    padded = " " + "".join(c if c.isalnum() or c == "/" else " " for c in stem) + " "
    padded = " ".join(padded.split()).join("  ")
    for hints, kind in _NAME_HINTS:
        if any(f" {hint.replace('_', ' ')} " in padded for hint in hints):
            return kind
    return None
