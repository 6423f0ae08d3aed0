"""Connection profiles: saved atomically, validated, secrets kept out of the file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from freightdesk.service.profiles import (
    LOCAL_PROFILE_ID,
    LOCAL_SANDBOX,
    Profile,
    ProfileError,
    ProfileKind,
    ProfileStore,
)
from freightdesk.service.secrets import LOCAL_SECRET_FILE, MemorySecretStore
from tests.service.keyring_store import KeyringStore


def _remote(name: str = "Team server", url: str = "https://freight.example.test/") -> Profile:
    return Profile(id="", name=name, kind=ProfileKind.REMOTE, base_url=url, client_id="abc")


def test_local_sandbox_is_there_and_active_on_a_fresh_machine(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "profiles.json", MemorySecretStore())
    assert store.active.id == LOCAL_PROFILE_ID
    assert store.active.name == "Local sandbox"
    with pytest.raises(ProfileError):
        store.remove(LOCAL_PROFILE_ID)


def test_profiles_survive_a_restart_but_secrets_stay_out_of_the_file(tmp_path: Path) -> None:
    secrets = MemorySecretStore()
    path = tmp_path / "profiles.json"
    store = ProfileStore(path, secrets)
    saved = store.save(_remote(), secret="s3cret-value")
    store.activate(saved.id)
    assert "s3cret-value" not in path.read_text()
    again = ProfileStore(path, secrets)
    assert again.active == saved
    assert again.active.base_url == "https://freight.example.test"
    assert again.secret(saved) == "s3cret-value"


def test_invalid_profiles_name_the_field(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "profiles.json", MemorySecretStore())
    cases = {
        "base_url": _remote(url="freight.example.test"),
        "name": _remote(name="  "),
        "client_id": Profile(
            id="", name="x", kind=ProfileKind.REMOTE, base_url="https://h", client_id=""
        ),
    }
    for field, profile in cases.items():
        with pytest.raises(ProfileError) as failed:
            store.save(profile)
        assert failed.value.field == field
    store.save(_remote())
    with pytest.raises(ProfileError) as duplicate:
        store.save(_remote())
    assert duplicate.value.field == "name"


def test_removing_the_active_profile_falls_back_to_the_sandbox(tmp_path: Path) -> None:
    secrets = MemorySecretStore()
    store = ProfileStore(tmp_path / "profiles.json", secrets)
    saved = store.save(_remote(), secret="x")
    store.activate(saved.id)
    store.remove(saved.id)
    assert store.active.id == LOCAL_PROFILE_ID
    assert secrets.get(saved.secret_key) is None


def test_an_unreadable_file_is_ignored_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "profiles.json"
    path.write_text("{not json")
    assert ProfileStore(path, MemorySecretStore()).active.id == LOCAL_PROFILE_ID


def test_a_secret_given_to_the_keyring_is_known_kept_without_asking_it(tmp_path: Path) -> None:
    keyring = KeyringStore()  # outlives each run's store
    path = tmp_path / "profiles.json"
    saved = ProfileStore(path, keyring).save(_remote(), secret="s3cret-value")
    keyring.asked = 0
    later = ProfileStore(path, keyring)  # the next run
    assert later.secret_kept(saved) and keyring.asked == 0
    assert "s3cret-value" not in path.read_text()
    # A new client id: its secret moves with it.
    moved = later.save(replace(saved, client_id="other"))
    assert ProfileStore(path, keyring).secret_kept(moved)
    later.remove(moved.id)
    assert not ProfileStore(path, keyring).secret_kept(moved)
    # A store that ends with the run keeps nothing for the next.
    session_only = ProfileStore(tmp_path / "other.json", MemorySecretStore())
    saved = session_only.save(_remote(), secret="s3cret-value")
    assert not ProfileStore(tmp_path / "other.json", MemorySecretStore()).secret_kept(saved)


def test_without_a_keyring_the_local_sandbox_secret_is_lost_only_with_its_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "profiles.json"
    kept = tmp_path / "service" / LOCAL_SECRET_FILE

    def next_run() -> ProfileStore:
        store = ProfileStore(path, MemorySecretStore())
        store.keep_local_secret_in(kept)
        return store

    assert not next_run().lost_local_secret(next_run().active)  # never connected: no secret
    next_run().save(replace(LOCAL_SANDBOX, client_id="desktop"), secret="local-secret")
    assert not next_run().lost_local_secret(next_run().active)
    kept.unlink()
    assert next_run().lost_local_secret(next_run().active)
