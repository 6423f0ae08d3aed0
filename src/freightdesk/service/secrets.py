"""Client secrets live in the system keyring, never in plain files or settings; so does the
access token the app keeps between runs (`KeptTokens`). One exception: without a usable
keyring, the Local sandbox's own secret is kept in a private file of its data directory
(`LocalSandboxSecrets`)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the API client's module loads httpx: not when the app starts
    from freightdesk.api.tokens import KeptToken

log = logging.getLogger(__name__)

KEYRING_SERVICE = "FreightDesk"
# In the local service's data directory: the desktop client's secret where no keyring keeps it.
LOCAL_SECRET_FILE = "desktop-client-secret.json"


class SecretStore(Protocol):
    """Where profile secrets are kept."""

    @property
    def persistent(self) -> bool:
        """Whether secrets outlive the app."""

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


class SystemSecretStore:
    """The system's store (`system_secret_store`), found on first use.

    Finding it imports keyring and asks the keyring daemon (a quarter of a second here, more
    when the daemon is slow to answer): the app's window shows before that, and the app
    finds it in a worker thread (`find`) before connecting."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._store: SecretStore | None = None

    def find(self) -> SecretStore:
        with self._lock:
            if self._store is None:
                self._store = system_secret_store()
            return self._store

    @property
    def persistent(self) -> bool:
        return self.find().persistent

    def get(self, key: str) -> str | None:
        return self.find().get(key)

    def set(self, key: str, secret: str) -> None:
        self.find().set(key, secret)

    def delete(self, key: str) -> None:
        self.find().delete(key)


def find_system_store(store: SecretStore) -> None:
    """Find the system's store now where `store` is, or wraps, one found on first use
    (`SystemSecretStore`): the app calls this in a worker thread, so that loading and asking
    the keyring is not done on the GUI thread as the session first reads a secret."""
    if isinstance(store, LocalSandboxSecrets):
        store = store.store
    if isinstance(store, SystemSecretStore):
        store.find()


class LocalSandboxSecrets:
    """`store`, except that the Local sandbox's secret (keys beginning `key_prefix`) is kept in
    `path`, a file of the local service's data directory, when `store` does not outlive the app.

    Without a keyring each window kept that secret in its own memory: a second window on the
    same home, attached to the running service, found none and rotated it, and the first
    window's token requests were refused from then on. The file is 0600 in the 0700 directory
    that holds the database this secret unlocks: whoever can read it can already read and
    change that database, so it exposes nothing more. Remote profiles' secrets never go to a
    file."""

    def __init__(self, store: SecretStore, key_prefix: str, path: Path) -> None:
        self.store = store
        self._prefix = key_prefix
        self.path = path

    @property
    def persistent(self) -> bool:
        return self.store.persistent

    def _in_file(self, key: str) -> bool:
        return key.startswith(self._prefix) and not self.store.persistent

    def _read(self) -> dict[str, str]:
        try:
            kept = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring an unreadable %s: %s", self.path.name, exc)
            return {}
        return {str(k): str(v) for k, v in kept.items()} if isinstance(kept, dict) else {}

    def _write(self, kept: dict[str, str]) -> None:
        import tempfile  # not at start-up, where secrets are only read

        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.path.parent, 0o700)  # as `serve` makes it; an older one may be wider
        # Written whole then renamed (mkstemp makes it 0600): a window reading it meanwhile
        # finds the old secret or the new one, never half of one.
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(kept, handle)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def in_file(self, key: str) -> bool:
        """Whether the file holds a secret under `key`, told without asking the keyring
        (which `get` does first: whether `store` outlives the app)."""
        return key.startswith(self._prefix) and key in self._read()

    def get(self, key: str) -> str | None:
        if self._in_file(key):
            return self._read().get(key)
        return self.store.get(key)

    def set(self, key: str, secret: str) -> None:
        if self._in_file(key):
            # One client application: a secret under another client id is an older one.
            self._write({key: secret})
        else:
            self.store.set(key, secret)

    def delete(self, key: str) -> None:
        if self._in_file(key):
            kept = self._read()
            if kept.pop(key, None) is not None:
                self._write(kept)
        else:
            self.store.delete(key)


def kept_token_key(profile_id: str) -> str:
    """The store's key of a profile's kept access token (beside its secret, `{id}:{client}`;
    a profile id has no `#`, so the two never meet)."""
    return f"{profile_id}#access-token"


class KeptTokens:
    """A profile's access token kept between runs, in the store that holds its secret.

    One entry per profile, naming the service URL and client id it was issued for: a token is
    offered back only to the same client at the same URL (the Local sandbox's service moves to
    another port when it starts again; that one's token is replaced, not heaped up beside).
    A `TokenKeeper` for the API client's token manager, which calls it in a worker thread;
    it also reads the profile's secret as kept now (under `secret_key`), so that a running
    window takes up a secret made since it connected."""

    def __init__(
        self,
        store: SecretStore,
        profile_id: str,
        service_url: str,
        client_id: str,
        secret_key: str | None = None,
    ):
        self._store = store
        self._key = kept_token_key(profile_id)
        self._secret_key = secret_key
        self._service_url = service_url.rstrip("/")
        self._client_id = client_id

    def load(self) -> KeptToken | None:
        from freightdesk.api.tokens import KeptToken

        raw = self._store.get(self._key)
        if not raw:
            return None
        try:
            kept = json.loads(raw)
            token = KeptToken(str(kept["accessToken"]), float(kept["expiresAt"]))
            service_url, client_id = kept["serviceUrl"], kept["clientId"]
        except (ValueError, TypeError, KeyError):
            log.warning("ignoring an unreadable kept access token")
            return None
        if service_url != self._service_url or client_id != self._client_id:
            return None
        return token

    def save(self, token: KeptToken) -> None:
        kept = {
            "serviceUrl": self._service_url,
            "clientId": self._client_id,
            "accessToken": token.value,
            "expiresAt": token.expires_at,
        }
        self._store.set(self._key, json.dumps(kept))

    def forget(self, value: str) -> None:
        kept = self.load()
        if kept is not None and kept.value == value:
            self._store.delete(self._key)

    def secret(self) -> str | None:
        return self._store.get(self._secret_key) if self._secret_key is not None else None
