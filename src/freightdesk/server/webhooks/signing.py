"""Signing deliveries the Standard Webhooks way (https://www.standardwebhooks.com).

Each delivery carries `webhook-id` (the message's eventId, the same on every retry),
`webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`: one or more
space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per active secret (two
while a rotated secret is still in its grace period). Secrets are shown as `whsec_<base64>`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

PREFIX = "whsec_"
SECRET_BYTES = 24
# How far a receiver should accept the timestamp from its own clock (used by `verify`).
TOLERANCE_SECONDS = 5 * 60


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix(PREFIX), validate=True)
    except binascii.Error:
        raise ValueError("a signing secret is whsec_ followed by base64") from None


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signature_header(secrets_: list[str], message_id: str, timestamp: int, body: bytes) -> str:
    return " ".join(signature(s, message_id, timestamp, body) for s in secrets_)


def verify(
    secret: str,
    headers: dict[str, str],
    body: bytes,
    *,
    now: int,
    tolerance: int = TOLERANCE_SECONDS,
) -> bool:
    """What a receiver does; here for integrators and for our own checks."""
    lowered = {k.lower(): v for k, v in headers.items()}
    try:
        message_id = lowered["webhook-id"]
        timestamp = int(lowered["webhook-timestamp"])
        offered = lowered["webhook-signature"].split()
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance:
        return False
    expected = signature(secret, message_id, timestamp, body)
    return any(hmac.compare_digest(expected, candidate) for candidate in offered)
