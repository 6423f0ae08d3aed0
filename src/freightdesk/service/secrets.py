"""Client secrets live in the system keyring, never in plain files or settings."""

from __future__ import annotations

import contextlib
import logging
from typing import Protocol

log = logging.getLogger(__name__)

KEYRING_SERVICE = "FreightDesk"


class SecretStore(Protocol):
    """Where profile secrets are kept."""

    persistent: bool

    def get(self, key: str) -> str | None: ...

    def set(self, key: str, secret: str) -> None: ...

    def delete(self, key: str) -> None: ...


class MemorySecretStore:
    """Secrets for this session only: used when the machine has no working keyring."""

    persistent = False

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self._secrets.get(key)

    def set(self, key: str, secret: str) -> None:
        self._secrets[key] = secret

    def delete(self, key: str) -> None:
        self._secrets.pop(key, None)


class KeyringSecretStore:
    """The system keyring (Secret Service, macOS Keychain, Windows Credential Locker)."""

    persistent = True

    def get(self, key: str) -> str | None:
        import keyring

        value: str | None = keyring.get_password(KEYRING_SERVICE, key)
        return value

    def set(self, key: str, secret: str) -> None:
        import keyring

        keyring.set_password(KEYRING_SERVICE, key, secret)

    def delete(self, key: str) -> None:
        import keyring
        from keyring.errors import PasswordDeleteError

        with contextlib.suppress(PasswordDeleteError):
            keyring.delete_password(KEYRING_SERVICE, key)


def system_secret_store() -> SecretStore:
    """The system keyring when one works here, otherwise a session-only store (and a warning)."""
    try:
        import keyring
        from keyring.backends.fail import Keyring as FailKeyring

        backend = keyring.get_keyring()
        if isinstance(backend, FailKeyring) or backend.priority <= 0:
            raise RuntimeError(f"no usable keyring backend ({type(backend).__name__})")
        keyring.get_password(KEYRING_SERVICE, "probe")
    except Exception as exc:
        log.warning("secrets will not be remembered after quitting: %s", exc)
        return MemorySecretStore()
    return KeyringSecretStore()
