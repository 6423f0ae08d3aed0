"""The service as a shared server: careless and hostile input over real HTTP (issue 19)."""

from __future__ import annotations

import re
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from freightdesk.server.auth import TOKEN_CACHE_SECONDS
from tests.netns import SERVICE_ADDRESS, inside
from tests.processes import SERVE, Processes, processes, read_until
from tests.server.test_documents import created
from tests.support import LiveService, TenantHandle, database_option

INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1
HUGE = 99999999999999999999999


def _refused(answer: httpx.Response, source: str) -> dict[str, Any]:
    """The Error body of a 400 that names `source` among its fields."""
    assert answer.status_code == 400, answer.text
    body: dict[str, Any] = answer.json()
    assert body["httpStatusCode"] == 400
    assert source in [error["source"] for error in body["errors"]], body
    return body


@pytest.mark.parametrize(
    ("method", "path", "source"),
    [
        ("DELETE", f"/api/v4/capacityprovideraccountgroups/{HUGE}", "id"),
        ("DELETE", f"/api/v4/capacityprovideraccountgroups/-{HUGE}", "id"),
        ("GET", f"/services/booking/v1/bookings?pageNumber={HUGE}", "pageNumber"),
        ("GET", "/services/booking/v1/bookings?pageNumber=1000001", "pageNumber"),
        ("GET", f"/services/booking/v1/packaging?pageNumber={HUGE}", "pageNumber"),
        ("POST", f"/api/v4/shipments/search?page={HUGE}", "page"),
        ("GET", f"/api/v4/stoplocations?offset={2**63}", "offset"),
        ("GET", f"/api/v4/webhooks/{HUGE}", "webhookId"),
        ("GET", f"/api/v4/webhooks/1/deliveries?offset={HUGE}", "offset"),
        ("POST", f"/api/v4/webhooks/1/deliveries/{HUGE}/redeliver", "messageId"),
    ],
)
def test_integers_beyond_the_database_are_refused_naming_the_parameter(
    tenant: TenantHandle, method: str, path: str, source: str
) -> None:
    body: dict[str, Any] | None = {} if method == "POST" else None
    _refused(tenant.http.request(method, path, json=body), source)


def test_integers_beyond_the_database_are_refused_naming_the_body_field(
    tenant: TenantHandle,
) -> None:
    hook = {"configName": "orders", "url": "https://hooks.example.com/in"}
    _refused(tenant.http.put("/api/v4/webhooks", json={**hook, "id": HUGE}), "id")
    _refused(tenant.http.put("/api/v4/webhooks", json={**hook, "version": -HUGE}), "version")
    # The largest id the database holds is an id like any other: not found, not refused.
    missing = tenant.http.delete(f"/api/v4/capacityprovideraccountgroups/{INT64_MAX}")
    assert missing.status_code == 404


def test_the_extreme_integers_the_interface_takes_are_stored_and_read_back(
    tenant: TenantHandle,
) -> None:
    # PostgreSQL's INTEGER is 32 bits where SQLite's is 64: a field the interface bounds to
    # int64 needs a 64-bit column on both.
    for version in (INT64_MAX, -(2**63)):
        hook = {"configName": f"v{version}", "url": "https://hooks.example.com/in"}
        saved = tenant.http.put("/api/v4/webhooks", json={**hook, "version": version})
        assert saved.status_code == 200, saved.text
        read = tenant.http.get(f"/api/v4/webhooks/{saved.json()['id']}")
        assert read.json()["version"] == version


def _integer_problems(document: dict[str, Any]) -> list[str]:
    """Every integer a request may carry (parameter or body field) without bounds that fit a
    64-bit column, as `METHOD path where`."""
    schemas = document["components"]["schemas"]
    problems: list[str] = []

    def walk(schema: Any, where: str, seen: frozenset[str]) -> None:
        if not isinstance(schema, dict):
            return
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            if name not in seen:
                walk(schemas[name], where, seen | {name})
            return
        if schema.get("type") == "integer":
            low, high = schema.get("minimum"), schema.get("maximum")
            # Bounds of 2**63 - 1 may come back as the nearest float, 2.0**63.
            if low is None or high is None or low < -(2**63) or high > 2**63:
                problems.append(f"{where} [{low}, {high}]")
        for key in ("anyOf", "oneOf", "allOf"):
            for option in schema.get(key, []):
                walk(option, where, seen)
        walk(schema.get("items"), f"{where}[]", seen)
        walk(schema.get("additionalProperties"), f"{where}{{}}", seen)
        for name, field in schema.get("properties", {}).items():
            walk(field, f"{where}.{name}", seen)

    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                where = f"{method.upper()} {path} {parameter['in']} {parameter['name']}"
                walk(parameter.get("schema"), where, frozenset())
            for media in operation.get("requestBody", {}).get("content", {}).values():
                walk(media.get("schema"), f"{method.upper()} {path} body", frozenset())
    return problems


def test_every_integer_a_request_takes_is_bounded_in_the_openapi_document(
    sqlite_service: LiveService,
) -> None:
    document = httpx.get(f"{sqlite_service.url}/openapi.json", timeout=60).json()
    assert _integer_problems(document) == []
    # The walk sees what it should: the account group id is declared with its bounds.
    groups = document["paths"]["/api/v4/capacityprovideraccountgroups/{id}"]["delete"]
    assert groups["parameters"][0]["schema"]["minimum"] == -(2**63)


GROUPS = "/api/v4/capacityprovideraccountgroups"
CLIENTS = "/api/v4/oauth2/client-applications"


def _token(tenant: TenantHandle, client_id: str, secret: str) -> httpx.Response:
    return httpx.post(
        f"{tenant.service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, secret),
    )


def _bearer(tenant: TenantHandle, token: str) -> httpx.Client:
    return httpx.Client(
        base_url=tenant.service.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def test_a_new_client_secret_revokes_the_tokens_of_the_old_one(tenant: TenantHandle) -> None:
    second = _token(tenant, tenant.client_id, tenant.client_secret)
    assert second.status_code == 200
    with _bearer(tenant, second.json()["access_token"]) as later:
        # A new token leaves the earlier one working, as the interface says.
        assert tenant.http.get(GROUPS).status_code == 200
        assert later.get(GROUPS).status_code == 200
        rotated = httpx.post(
            f"{tenant.service.url}{CLIENTS}/{tenant.client_id}/new-secret", auth=tenant.admin
        )
        assert rotated.status_code == 200, rotated.text
        for old in (tenant.http, later):
            refused = old.get(GROUPS)
            assert refused.status_code == 401
            assert refused.json()["httpStatusCode"] == 401
    assert _token(tenant, tenant.client_id, tenant.client_secret).status_code == 401
    fresh = _token(tenant, tenant.client_id, rotated.json()["secret"])
    assert fresh.status_code == 200
    with _bearer(tenant, fresh.json()["access_token"]) as current:
        assert current.get(GROUPS).status_code == 200


def test_client_rotate_on_the_command_line_revokes_the_old_tokens_of_a_running_service(
    tenant: TenantHandle,
) -> None:
    assert tenant.http.get(GROUPS).status_code == 200  # the service has the token in memory
    settings = tenant.service.settings
    rotate = subprocess.run(
        [
            sys.executable,
            "-m",
            "freightdesk.cli",
            "client",
            "rotate",
            tenant.name,
            "tests",
            "--database",
            settings.database_url,
            "--data-dir",
            str(settings.data_dir),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert rotate.returncode == 0, rotate.stderr
    found = re.search(r"client id (\S+), client secret (\S+)", rotate.stdout)
    assert found and found.group(1) == tenant.client_id
    deadline = time.monotonic() + TOKEN_CACHE_SECONDS + 10
    while (status := tenant.http.get(GROUPS).status_code) == 200:
        assert time.monotonic() < deadline, "the old token still works after the rotation"
        time.sleep(0.2)
    assert status == 401
    assert _token(tenant, tenant.client_id, found.group(2)).status_code == 200


LISTENING = r"listening on (http://\S+)"
START_SECONDS = 120  # a Python process with the service's imports, on a machine with a load of 10


def _cli(data_dir: Path, *args: str, database: list[str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "freightdesk.cli", *args, "--data-dir", str(data_dir)]
        + (database or []),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _not_private(data_dir: Path) -> list[str]:
    """Everything in the data directory (itself included) that others may read or enter."""
    found = []
    for entry in [data_dir, *data_dir.rglob("*")]:
        mode = stat.S_IMODE(entry.lstat().st_mode)
        if mode != (0o700 if entry.is_dir() else 0o600):
            found.append(f"{entry.relative_to(data_dir)} {mode:o}")
    return found


def _serve(started: Processes, data_dir: Path, database: list[str] | None = None) -> str:
    service = started.start([*SERVE, "--data-dir", str(data_dir), *(database or [])])
    return read_until(service, LISTENING, START_SECONDS).group(1)


SQLITE_FILES = {"freightdesk.sqlite3", "freightdesk.sqlite3-wal", "freightdesk.sqlite3-shm"}


def test_the_data_directory_and_its_files_are_the_service_users_alone(
    tmp_path: Path, database_url: str
) -> None:
    # On PostgreSQL the directory keeps the log, the lock and the key file, not the database.
    data_dir = tmp_path / "service"
    database = database_option(database_url)
    with processes() as started:
        url = _serve(started, data_dir, database)
        _cli(data_dir, "tenant", "add", "Acme", "--admin", "ops:secret", database=database)
        client = re.search(
            r"client id (\S+), client secret (\S+)",
            _cli(data_dir, "client", "add", "Acme", "desk", database=database),
        )
        assert client is not None
        token = httpx.post(
            f"{url}/api/v4/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(client.group(1), client.group(2)),
        )
        with httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {token.json()['access_token']}"}
        ) as http:
            created(http)  # an uploaded document's file
        names = {entry.name for entry in data_dir.rglob("*")}
        assert {"service.log", "service.lock", "blobs"} <= names
        assert names & SQLITE_FILES == (set() if database else SQLITE_FILES)
        assert _not_private(data_dir) == []
        started.end_all()

    # A directory left readable by an earlier version is made private at the next start.
    for entry in [data_dir, *data_dir.rglob("*")]:
        entry.chmod(0o755 if entry.is_dir() else 0o644)
    (data_dir / "logs" / "service.log.1").write_text("an old rotated log\n")
    (data_dir / "logs" / "service.log.1").chmod(0o644)
    with processes() as started:
        _serve(started, data_dir, database)
        left = _not_private(data_dir)
    # Deeper down (the document files) modes are left as they were: out of others' reach
    # through the private directories above them.
    shallow = [line for line in left if "/" not in line or line.startswith("logs/")]
    assert shallow == []
    if not database:  # (on PostgreSQL the files are in the database)
        assert any(line.startswith("files/") for line in left)  # what the walk leaves alone


DOCUMENTS = "/services/document/v1/documents"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PATCH", GROUPS, "GET, POST"),
        ("PATCH", f"{GROUPS}/5", "DELETE, PUT"),
        ("POST", "/api/v4/webhooks/5", "DELETE, GET"),
        # The fixed path wins over `/documents/{documentId}`: not a malformed id.
        ("PUT", f"{DOCUMENTS}/search", "POST"),
        ("GET", f"{DOCUMENTS}/search", "POST"),
        ("DELETE", f"{DOCUMENTS}/search", "POST"),
    ],
)
def test_method_not_allowed_names_the_methods_of_the_path(
    tenant: TenantHandle, method: str, path: str, allowed: str
) -> None:
    answer = tenant.http.request(method, path)
    assert answer.status_code == 405, answer.text
    assert answer.headers["allow"] == allowed
    assert answer.json()["httpStatusCode"] == 405


def test_a_malformed_id_is_still_a_bad_request(tenant: TenantHandle) -> None:
    _refused(tenant.http.put(f"{DOCUMENTS}/not-a-uuid", json={}), "documentId")


@pytest.mark.parametrize(
    ("path", "body", "source"),
    [
        (
            "/api/v4/tl/connected-capacity/carriers/search",
            {"minimumTrackingPercentage": False},
            "minimumTrackingPercentage",
        ),
        (
            "/api/v4/tl/connected-capacity/carriers/search",
            {"minimumTrackingPercentage": "50"},
            "minimumTrackingPercentage",
        ),
        ("/api/v4/shipments/positions/latest", {"since": 0}, "since"),
        ("/api/v4/shipments/search", {"hasOpenExceptions": 1}, "hasOpenExceptions"),
        (
            "/api/v4/shipments/search",
            {"createdDateTime": {"startDateTime": 0}},
            "createdDateTime.startDateTime",
        ),
        ("/api/v4/shipments/search", {"hasOpenExceptions": "true"}, "hasOpenExceptions"),
    ],
)
def test_values_of_another_json_type_are_refused_not_coerced(
    tenant: TenantHandle, path: str, body: dict[str, Any], source: str
) -> None:
    message = _refused(tenant.http.post(path, json=body), source)["errors"][0]["message"]
    assert message.startswith("must be ")


def test_values_of_the_declared_json_type_are_taken(tenant: TenantHandle) -> None:
    search = "/api/v4/tl/connected-capacity/carriers/search"
    assert tenant.http.post(search, json={"minimumTrackingPercentage": 50}).status_code == 200
    assert tenant.http.post(search, json={"minimumTrackingPercentage": 50.0}).status_code == 200
    latest = "/api/v4/shipments/positions/latest"
    assert tenant.http.post(latest, json={"since": "2026-01-01T00:00:00Z"}).status_code == 200


TOKEN = "/api/v4/oauth2/token"


def _shut_out(attempt: Callable[[], httpx.Response], *, window: int) -> httpx.Response:
    """Fails `attempt` (wrong credentials) until the service refuses with a window of at
    least `window` seconds, waiting out the shorter windows; the 429 that says so."""
    free = 0
    for _ in range(40):
        answer = attempt()
        if answer.status_code == 401:
            free += 1
            continue
        assert answer.status_code == 429, answer.text
        assert free >= 5, "a few wrong tries (a typo, an old secret) are never slowed down"
        retry_after = int(answer.headers["retry-after"])
        assert answer.json()["httpStatusCode"] == 429
        if retry_after >= window:
            return answer
        time.sleep(retry_after)
    raise AssertionError("40 failed logins and never a 429")


def test_failed_client_logins_are_throttled_per_client_id(
    tenant: TenantHandle, tenant_factory: Callable[[], TenantHandle]
) -> None:
    shut = _shut_out(lambda: _token(tenant, tenant.client_id, "not-the-secret"), window=8)
    assert "for this client id" in shut.json()["errorMessage"]
    assert int(shut.headers["retry-after"]) <= 30  # a real client is never kept out for long
    # While the door is shut, even the right secret is refused: guessing learns nothing.
    right = _token(tenant, tenant.client_id, tenant.client_secret)
    assert right.status_code == 429
    # Another client from the same (loopback) address is not held up.
    other = tenant_factory()
    assert _token(other, other.client_id, other.client_secret).status_code == 200
    time.sleep(int(right.headers["retry-after"]))
    assert _token(tenant, tenant.client_id, tenant.client_secret).status_code == 200
    # The success forgot the failures: the next typo is a plain 401 again.
    assert _token(tenant, tenant.client_id, "typo").status_code == 401


def test_failed_basic_logins_are_throttled_per_user(tenant: TenantHandle) -> None:
    user, password = tenant.admin
    url = f"{tenant.service.url}{CLIENTS}"
    shut = _shut_out(lambda: httpx.get(url, auth=(user, "wrong")), window=4)
    assert "for this user" in shut.json()["errorMessage"]
    assert httpx.get(url, auth=(user, password)).status_code == 429
    # The deprecated Basic on other operations counts the same failures.
    groups = httpx.get(f"{tenant.service.url}{GROUPS}", auth=(user, password))
    assert groups.status_code == 429


def test_failed_logins_from_one_address_are_throttled_across_names(
    namespace: str, tmp_path: Path
) -> None:
    # Loopback is exempt from the address limit (every local process shares it): the service
    # listens on an address of a network namespace of the test's own, and is asked from there.
    data_dir = tmp_path / "service"
    _cli(data_dir, "tenant", "add", "Acme", "--admin", "ops:secret")
    client = re.search(
        r"client id (\S+), client secret (\S+)", _cli(data_dir, "client", "add", "Acme", "desk")
    )
    assert client is not None
    serve = ["ip", "netns", "exec", namespace, *SERVE, "--host", SERVICE_ADDRESS]
    with processes() as started:
        service = started.start([*serve, "--data-dir", str(data_dir)])
        url = read_until(service, LISTENING, START_SECONDS).group(1)

        def token(client_id: str, secret: str) -> httpx.Response:
            return inside(
                namespace,
                lambda: httpx.post(
                    f"{url}{TOKEN}",
                    data={"grant_type": "client_credentials"},
                    auth=(client_id, secret),
                    timeout=30,
                ),
            )

        names = iter(f"guess-{n}" for n in range(1000))
        shut = _shut_out(lambda: token(next(names), "secret"), window=4)
        assert "from this address" in shut.json()["errorMessage"]
        # Every name tried from this address waits, the right credentials too.
        assert token(client.group(1), client.group(2)).status_code == 429
