"""Documents: upload and download throughput, the service's memory during a large upload,
how fast an oversized upload is refused, and search latency over many documents.

Starts the real service (`freightdesk serve`, a subprocess on a fresh SQLite database or on the
PostgreSQL URL given), uploads one large file streamed from disk, downloads it back (checking
its sha256), sends an upload beyond the 100 MB limit, then adds N small documents and times
searches. The service's peak resident memory is read from /proc (Linux).

    python -m bench.bench_documents [--megabytes 96] [--documents 2000]
                                    [--database postgresql://...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from freightdesk.server.db import make_engine, make_sessionmaker, transaction
from freightdesk.server.domain.tenants import create_client_app, ensure_tenant

PATH = "/services/document/v1/documents"
MIB = 1024 * 1024


@dataclass
class Service:
    process: subprocess.Popen[str]
    url: str
    database_url: str


def start_service(data_dir: Path, database_url: str) -> Service:
    """`freightdesk serve` on a free port; its first line names the URL."""
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "freightdesk.cli", "serve", "--port", "0"),
            *("--data-dir", str(data_dir), "--database", database_url, "--log-level", "warning"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"http://\S+", line)
    if found is None:
        process.kill()
        raise SystemExit(f"the service did not start: {line!r}")
    return Service(process, found.group(0), database_url)


def peak_rss_mib(pid: int) -> float:
    """The process's peak resident set size (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bearer_token(service: Service) -> str:
    """A tenant and client application made in the service's database; returns a token."""
    engine = make_engine(service.database_url)
    name = f"bench-docs-{int(time.time())}"
    try:
        with transaction(make_sessionmaker(engine)) as session:
            tenant = ensure_tenant(session, name, f"admin-{name}", "bench").tenant
            app, secret = create_client_app(session, tenant.id, "bench")
            client_id = app.id
    finally:
        engine.dispose()
    answer = httpx.post(
        f"{service.url}/api/v4/oauth2/token",
        data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
    )
    answer.raise_for_status()
    return str(answer.json()["access_token"])


def make_file(path: Path, size: int) -> str:
    digest = hashlib.sha256()
    block = bytes(range(256)) * (MIB // 256)
    with path.open("wb") as handle:
        written = 0
        while written < size:
            chunk = block[: min(len(block), size - written)]
            handle.write(chunk)
            digest.update(chunk)
            written += len(chunk)
    return digest.hexdigest()


def metadata(i: int) -> str:
    return json.dumps(
        {
            "name": f"BOL {i}",
            "type": ["BILL_OF_LADING", "INVOICE", "PROOF_OF_DELIVERY"][i % 3],
            "mode": "TL",
            "identifiers": [
                {"type": "BILL_OF_LADING", "value": f"BOL-{i:06d}"},
                {"type": "PRO", "value": f"PRO-{i % 500:04d}"},
            ],
        }
    )


def upload_large(http: httpx.Client, service: Service, path: Path, sha256: str) -> None:
    size = path.stat().st_size
    before = peak_rss_mib(service.process.pid)
    started = time.perf_counter()
    with path.open("rb") as handle:
        answer = http.post(
            PATH,
            data={"document": metadata(0)},
            files={"upload_file": ("large.bin", handle, "application/octet-stream")},
        )
    elapsed = time.perf_counter() - started
    answer.raise_for_status()
    document = answer.json()
    assert document["files"][0]["sha256"] == sha256
    after = peak_rss_mib(service.process.pid)
    print(
        f"upload {size / MIB:.0f} MiB: {elapsed:.2f} s, {size / MIB / elapsed:.0f} MiB/s; "
        f"service peak RSS {before:.0f} -> {after:.0f} MiB (+{after - before:.0f})"
    )
    started = time.perf_counter()
    digest = hashlib.sha256()
    with http.stream("GET", document["files"][0]["downloadLink"]) as download:
        for chunk in download.iter_bytes():
            digest.update(chunk)
    elapsed = time.perf_counter() - started
    assert digest.hexdigest() == sha256
    print(f"download {size / MIB:.0f} MiB: {elapsed:.2f} s, {size / MIB / elapsed:.0f} MiB/s")


def refuse_oversized(http: httpx.Client, path: Path) -> None:
    started = time.perf_counter()
    with path.open("rb") as handle:
        answer = http.post(
            PATH,
            data={"document": metadata(0)},
            files={"upload_file": ("too-large.bin", handle, "application/octet-stream")},
        )
    elapsed = time.perf_counter() - started
    assert answer.status_code == 413, answer.text
    print(
        f"oversized upload ({path.stat().st_size / MIB:.0f} MiB with Content-Length): "
        f"413 after {elapsed:.2f} s"
    )


def search_latency(http: httpx.Client, count: int) -> None:
    started = time.perf_counter()
    for i in range(1, count + 1):
        http.post(
            PATH,
            data={"document": metadata(i)},
            files={"upload_file": (f"doc-{i}.pdf", f"%PDF {i}".encode(), "application/pdf")},
        ).raise_for_status()
    elapsed = time.perf_counter() - started
    print(f"{count} small uploads: {count / elapsed:.0f} per second")
    queries = {
        "page 1 of everything (size 10)": ({}, {}),
        "page 50 of everything (size 20)": ({}, {"page": 50, "size": 20}),
        "by identifier (BILL_OF_LADING)": (
            {
                "identifiers": {
                    "operator": "EQUALS",
                    "values": [{"type": "BILL_OF_LADING", "value": "BOL-001234"}],
                }
            },
            {},
        ),
        "by identifier (PRO shared by ~4)": (
            {
                "identifiers": {
                    "operator": "EQUALS",
                    "values": [{"type": "PRO", "value": "PRO-0042"}],
                }
            },
            {},
        ),
        "by name": ({"name": {"operator": "EQUALS", "value": "BOL 777"}}, {}),
        "by type, size 500": (
            {"type": {"operator": "EQUALS", "values": ["INVOICE"]}},
            {"size": 500},
        ),
    }
    for label, (body, params) in queries.items():
        times = []
        for _ in range(30):
            started = time.perf_counter()
            http.post(f"{PATH}/search", json=body, params=params).raise_for_status()
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(
            f"search {label}: median {statistics.median(times):.1f} ms, "
            f"p90 {times[int(len(times) * 0.9)]:.1f} ms"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=96, help="size of the large upload")
    parser.add_argument("--documents", type=int, default=2000, help="documents for search")
    parser.add_argument("--database", help="PostgreSQL URL (default: a fresh SQLite database)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fd-bench-docs-"))
    data_dir = work / "service"
    database_url = args.database or f"sqlite:///{data_dir / 'freightdesk.sqlite3'}"
    service = start_service(data_dir, database_url)
    try:
        token = bearer_token(service)
        with httpx.Client(
            base_url=service.url, headers={"Authorization": f"Bearer {token}"}, timeout=300
        ) as http:
            large = work / "large.bin"
            sha256 = make_file(large, args.megabytes * MIB)
            upload_large(http, service, large, sha256)
            oversized = work / "oversized.bin"
            make_file(oversized, 150 * MIB)
            refuse_oversized(http, oversized)
            leftovers = list((data_dir / "files" / "tmp").glob("*"))
            print(f"partial files left after the refusal: {len(leftovers)}")
            search_latency(http, args.documents)
    finally:
        service.process.terminate()
        service.process.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
