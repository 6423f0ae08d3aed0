"""A secret store that outlives the app, as the system keyring does (a build machine has no
keyring: the app's own store then keeps secrets for the session only), and that counts how
often it is asked."""

from __future__ import annotations

from freightdesk.service.secrets import MemorySecretStore


class KeyringStore(MemorySecretStore):
    """Stands for the system keyring: `asked` counts the questions put to it (a secret, or
    whether it outlives the app: the system's store loads the keyring to answer either)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    @property  # type: ignore[override]
    def persistent(self) -> bool:
        self.asked += 1
        return True

    def get(self, key: str) -> str | None:
        self.asked += 1
        return super().get(key)
