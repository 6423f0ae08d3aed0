"""Connection profiles: where to connect and as whom (secrets stay in the keyring).

Whether a profile's secret is kept from an earlier run is told without asking the keyring
(`secret_kept`): loading the keyring and its backends and asking it takes a tenth of a second
on a quiet machine (half a second at a load of 13), and a later start of the Local sandbox
decides on it before the rest of the app is loaded (`first_run.begin_later`). So the profiles
file names the secrets given to the keyring, noted when one is stored and dropped when it is
removed; without a keyring the Local sandbox's secret is in its own file, read as it is.
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from pathlib import Path
from urllib.parse import urlparse

from freightdesk.service.secrets import LocalSandboxSecrets, SecretStore, kept_token_key

log = logging.getLogger(__name__)

LOCAL_PROFILE_ID = "local-sandbox"
# In the profiles file: the secret keys given to the keyring (`ProfileStore.secret_kept`).
IN_KEYRING = "inKeyring"


class ProfileKind(StrEnum):
    LOCAL = "local"  # the supervised local service
    REMOTE = "remote"  # a deployment of the interface, or a shared team server


@dataclass(frozen=True)
class Profile:
    id: str
    name: str
    kind: ProfileKind
    base_url: str = ""
    client_id: str = ""
    credentials_in: str = "basic"
    poll_interval: float = 30.0

    @property
    def secret_key(self) -> str:
        return f"{self.id}:{self.client_id}"


LOCAL_SANDBOX = Profile(id=LOCAL_PROFILE_ID, name="Local sandbox", kind=ProfileKind.LOCAL)


class ProfileError(ValueError):
    """A profile that cannot be saved; `field` names the form field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def profile_problems(profile: Profile, existing: list[Profile]) -> dict[str, str]:
    """Every reason `profile` cannot be saved, by form field (a form shows them at once)."""
    problems: dict[str, str] = {}
    if not profile.name.strip():
        problems["name"] = "Give the connection a name"
    elif any(p.name == profile.name.strip() and p.id != profile.id for p in existing):
        problems["name"] = "Another connection already has this name"
    if profile.kind is ProfileKind.REMOTE:
        parsed = urlparse(profile.base_url.strip())
        if parsed.scheme not in {"http", "https"} or not parsed.netloc:
            problems["base_url"] = "Enter the service address, e.g. https://host/"
        if not profile.client_id.strip():
            problems["client_id"] = "Enter the client id of your client application"
    if profile.credentials_in not in {"basic", "body"}:
        problems["credentials_in"] = "Credentials go in Basic or in the body"
    if not 5 <= profile.poll_interval <= 3600:
        problems["poll_interval"] = "Refresh between every 5 seconds and every hour"
    return problems


def validate_profile(profile: Profile, existing: list[Profile]) -> None:
    for field, message in profile_problems(profile, existing).items():
        raise ProfileError(field, message)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "profile"


class ProfileStore:
    """Profiles in a JSON file in the user's config directory; the Local sandbox is built in."""

    def __init__(self, path: Path, secrets: SecretStore) -> None:
        self.path = path
        self.secrets = secrets
        self._profiles: list[Profile] = [LOCAL_SANDBOX]
        self.active_id = LOCAL_PROFILE_ID
        # The secret keys (`Profile.secret_key`) whose secret this home gave the keyring.
        self._in_keyring: set[str] = set()
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            stored = [
                Profile(**{**item, "kind": ProfileKind(item["kind"])})
                for item in data.get("profiles", [])
            ]
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning("ignoring unreadable profiles file %s: %s", self.path, exc)
            return
        local = next((p for p in stored if p.id == LOCAL_PROFILE_ID), LOCAL_SANDBOX)
        self._profiles = [local, *(p for p in stored if p.id != LOCAL_PROFILE_ID)]
        active = data.get("active")
        if any(p.id == active for p in self._profiles):
            self.active_id = str(active)
        in_keyring = data.get(IN_KEYRING, [])
        if isinstance(in_keyring, list):
            self._in_keyring = {str(key) for key in in_keyring}

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "active": self.active_id,
            "profiles": [{**asdict(p), "kind": p.kind.value} for p in self._profiles],
            IN_KEYRING: sorted(self._in_keyring),
        }
        # Write then rename, so a crash never leaves half a file.
        import tempfile  # not at start-up, where profiles are only read

        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".profiles-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=2)
        os.replace(tmp, self.path)

    @property
    def profiles(self) -> list[Profile]:
        return list(self._profiles)

    @property
    def active(self) -> Profile:
        return self.get(self.active_id)

    def get(self, profile_id: str) -> Profile:
        for profile in self._profiles:
            if profile.id == profile_id:
                return profile
        raise KeyError(profile_id)

    def save(self, profile: Profile, secret: str | None = None) -> Profile:
        """Add or update a profile; a given secret goes to the keyring."""
        if not profile.id:
            base = slug(profile.name)
            taken = {p.id for p in self._profiles}
            candidate, n = base, 2
            while candidate in taken:
                candidate, n = f"{base}-{n}", n + 1
            profile = replace(profile, id=candidate)
        profile = replace(
            profile,
            name=profile.name.strip(),
            base_url=profile.base_url.strip().rstrip("/"),
            client_id=profile.client_id.strip(),
        )
        validate_profile(profile, self._profiles)
        if secret:
            self._keep_secret(profile.secret_key, secret)
        index = next((i for i, p in enumerate(self._profiles) if p.id == profile.id), None)
        if index is None:
            self._profiles.append(profile)
        else:
            old = self._profiles[index]
            if old.secret_key != profile.secret_key and not secret:
                moved = self.secrets.get(old.secret_key)
                if moved:
                    self._keep_secret(profile.secret_key, moved)
            self._profiles[index] = profile
        self._save()
        return profile

    def _keep_secret(self, key: str, secret: str) -> None:
        """Store `secret` and note whether the keyring has it (`secret_kept`; the profiles
        file is saved next)."""
        self.secrets.set(key, secret)
        if self.secrets.persistent:
            self._in_keyring.add(key)
        else:  # kept in memory, or in the Local sandbox's file (read as it is)
            self._in_keyring.discard(key)

    def remove(self, profile_id: str) -> None:
        if profile_id == LOCAL_PROFILE_ID:
            raise ProfileError("name", "The Local sandbox is built in and cannot be removed")
        profile = self.get(profile_id)
        self.secrets.delete(profile.secret_key)
        self._in_keyring.discard(profile.secret_key)
        self.secrets.delete(kept_token_key(profile.id))  # a live token, however short-lived
        self._profiles = [p for p in self._profiles if p.id != profile_id]
        if self.active_id == profile_id:
            self.active_id = LOCAL_PROFILE_ID
        self._save()

    def activate(self, profile_id: str) -> Profile:
        profile = self.get(profile_id)
        self.active_id = profile.id
        self._save()
        return profile

    def secret(self, profile: Profile) -> str | None:
        return self.secrets.get(profile.secret_key)

    def secret_kept(self, profile: Profile) -> bool:
        """Whether `profile`'s secret is kept from an earlier run, told without asking the
        keyring (see the module's note): this home gave it to the keyring, or its file holds
        it (the Local sandbox's, without a keyring: `keep_local_secret_in`). A secret taken
        out of the keyring behind the app's back is still counted kept; `secret` then finds
        none, and connecting asks for a new one as it would for a refused one."""
        key = profile.secret_key
        if key in self._in_keyring:
            return True
        return isinstance(self.secrets, LocalSandboxSecrets) and self.secrets.in_file(key)

    def lost_local_secret(self, profile: Profile) -> bool:
        """The rule for the Local sandbox's start: this home connected to it before (a client
        id kept) but has not kept the secret, so its service's start gives a new one
        (`serve --rotate-client`). `first_run.begin_later` and the session both ask it: a
        service begun with another answer than the session's is stopped and started again."""
        return bool(profile.client_id) and not self.secret_kept(profile)

    def keep_local_secret_in(self, path: Path) -> None:
        """Without a usable keyring, keep the Local sandbox's secret in `path` (a file of its
        service's data directory, `LocalSandboxSecrets`), so that every window of this home,
        and the next start, finds the one secret instead of rotating it."""
        if not isinstance(self.secrets, LocalSandboxSecrets):
            self.secrets = LocalSandboxSecrets(self.secrets, f"{LOCAL_PROFILE_ID}:", path)
