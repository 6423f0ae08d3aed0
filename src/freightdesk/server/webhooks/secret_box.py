"""Secrets of push configurations, encrypted at rest.

The service must present authentication secrets (API keys, passwords, client secrets, private
keys) and signing secrets to receivers, so they cannot be hashed; they are encrypted with
AES-256-GCM instead. A stored secret reads `enc1:<base64url of nonce + ciphertext + tag>`; a
value without the prefix is one stored in clear before encryption existed (`migrate` seals
those at start).

The key is 32 random bytes: from the environment variable FREIGHTDESK_WEBHOOK_SECRETS_KEY
(base64 or base64url) when set, which several services sharing one PostgreSQL database need,
else from the file `webhook-secrets.key` in the service's data directory, made (mode 0600) on
first use. A database copied without its key keeps its configurations, but their secrets must
be entered again.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
from pathlib import Path
from typing import Any

from freightdesk.models.webhooks import SECRET_PARAMETERS
from freightdesk.server.context import ServiceContext

ENVIRONMENT_KEY = "FREIGHTDESK_WEBHOOK_SECRETS_KEY"
KEY_FILE = "webhook-secrets.key"
PREFIX = "enc1:"
SERVICE_KEY = "webhooks.secret_box"
_NONCE_BYTES = 12

StoredMethod = dict[str, Any]


class SecretError(Exception):
    """A stored secret cannot be decrypted (the key is not the one it was sealed with)."""


def _decode_key(text: str, where: str) -> bytes:
    text = text.strip()
    try:
        key = base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_") + "==")
    except (binascii.Error, ValueError):
        raise ValueError(f"{where}: not base64") from None
    if len(key) != 32:
        raise ValueError(f"{where}: needs 32 bytes (base64 of 32 random bytes), has {len(key)}")
    return key


def load_key(data_dir: Path) -> bytes:
    """The key from the environment, else from the data directory (made when missing)."""
    given = os.environ.get(ENVIRONMENT_KEY)
    if given:
        return _decode_key(given, ENVIRONMENT_KEY)
    path = data_dir / KEY_FILE
    try:
        return _decode_key(path.read_text(), str(path))
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    try:
        # O_EXCL: when two processes start at once, one writes and both read the same key.
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _decode_key(path.read_text(), str(path))
    with os.fdopen(handle, "w") as file:
        file.write(base64.urlsafe_b64encode(key).decode() + "\n")
    return key


class SecretBox:
    def __init__(self, key: bytes) -> None:
        # Imported here: the service's start imports this module (the routes) and answers
        # before any secret is sealed or opened.
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        self._aead = AESGCM(key)

    @staticmethod
    def sealed(value: str) -> bool:
        return value.startswith(PREFIX)

    def seal(self, value: str) -> str:
        if self.sealed(value):
            return value
        nonce = secrets.token_bytes(_NONCE_BYTES)
        data = nonce + self._aead.encrypt(nonce, value.encode(), None)
        return PREFIX + base64.urlsafe_b64encode(data).decode().rstrip("=")

    def open(self, value: str) -> str:
        if not self.sealed(value):
            return value  # stored before encryption (sealed at the next start)
        from cryptography.exceptions import InvalidTag

        text = value.removeprefix(PREFIX)
        try:
            data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            clear = self._aead.decrypt(data[:_NONCE_BYTES], data[_NONCE_BYTES:], None)
        except (binascii.Error, ValueError, InvalidTag):
            raise SecretError(
                "a stored secret cannot be decrypted with this service's key "
                f"({KEY_FILE} or {ENVIRONMENT_KEY}); enter the configuration's secrets again"
            ) from None
        return clear.decode()

    def seal_methods(self, methods: list[StoredMethod]) -> list[StoredMethod]:
        return [self._each_secret(method, self.seal) for method in methods]

    def open_methods(self, methods: list[StoredMethod]) -> list[StoredMethod]:
        return [self._each_secret(method, self.open) for method in methods]

    @staticmethod
    def clear_methods(methods: list[StoredMethod]) -> bool:
        """Whether any secret parameter is stored in clear."""
        return any(
            not SecretBox.sealed(value)
            for method in methods
            for name, value in method["parameters"].items()
            if name in SECRET_PARAMETERS
        )

    @staticmethod
    def _each_secret(method: StoredMethod, change: Any) -> StoredMethod:
        parameters = {
            name: change(value) if name in SECRET_PARAMETERS else value
            for name, value in method["parameters"].items()
        }
        return {**method, "parameters": parameters}


def box(context: ServiceContext) -> SecretBox:
    """The service's box (made once per service)."""
    found = context.services.get(SERVICE_KEY)
    if isinstance(found, SecretBox):
        return found
    made = SecretBox(load_key(context.settings.data_dir))
    context.services[SERVICE_KEY] = made
    return made
