"""The baseline of the service benchmarks: a minimal FastAPI app under the same uvicorn settings.

`freightdesk serve` runs uvicorn on a socket it makes itself (IPPROTO_TCP, so accepted
connections get TCP_NODELAY), with h11, no WebSockets, no logging, the lifespan on. This app
runs the same way in a process of its own, and does no work of ours: it answers what it was
given to answer. A benchmark hands it a real answer of the service once (`can`), then asks
the app and the service in turns for the same bytes, so the ratio is what our service adds
over HTTP and FastAPI on the same machine at the same moment (issue 18: a keep-alive request
within 1.5x of this). It also takes an upload by streaming the body to a file, and serves a
file back, the floors of the documents service's transfers.

    with minimal_service(tmp_dir) as url:
        can(http, url, "page", answer.content)
        http.post(f"{url}/canned/page")  # the same bytes
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

_APP = """
import socket, sys
from pathlib import Path
import uvicorn
from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse
work = Path(sys.argv[1])
canned: dict[str, tuple[bytes, str]] = {}
app = FastAPI()
@app.get("/health")
def health() -> dict[str, str]:
    return {"status": "ok"}
@app.put("/canned/{key}")
async def store(key: str, request: Request) -> Response:
    canned[key] = (await request.body(), request.headers.get("content-type", ""))
    return Response(status_code=204)
@app.api_route("/canned/{key}", methods=["GET", "POST"])
async def canned_answer(key: str, request: Request) -> Response:
    await request.body()  # read as the service reads a query's body
    body, media = canned[key]
    return Response(body, media_type=media or "application/json")
@app.post("/upload")
async def upload(request: Request) -> dict[str, int]:
    size = 0
    with (work / "upload.bin").open("wb") as out:
        async for chunk in request.stream():
            out.write(chunk)
            size += len(chunk)
    return {"size": size}
@app.get("/file")
def download() -> FileResponse:
    return FileResponse(work / "upload.bin")
sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
sock.bind(("127.0.0.1", 0))
sock.listen(2048)
print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
config = uvicorn.Config(
    app, log_config=None, access_log=False, lifespan="on", ws="none", http="h11"
)
uvicorn.Server(config).run(sockets=[sock])
"""

BASELINE_WHAT = "minimal FastAPI app, same uvicorn settings, same bytes"


@contextmanager
def minimal_service(work: Path, pids: list[int] | None = None) -> Iterator[str]:
    """The minimal app running in its own process; yields its URL once it answers (and adds
    its process id to `pids`, for a benchmark that reads its CPU time)."""
    work.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-c", _APP, str(work)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        found = re.search(r"listening on (http://\S+)", process.stdout.readline())
        if found is None:
            raise RuntimeError(f"the minimal app did not start (exit {process.poll()})")
        url = found.group(1)
        deadline = time.monotonic() + 60
        while True:  # bound and listening before uvicorn accepts
            try:
                httpx.get(f"{url}/health", timeout=5).raise_for_status()
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        if pids is not None:
            pids.append(process.pid)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def settle(url: str) -> None:
    """Has `freightdesk serve` at `url` finish its start-up work before anything is measured:
    it builds its OpenAPI document (1 to 2 s of CPU, tens of MiB) 3 s after the start, which
    otherwise lands on whatever a benchmark measures then (a busy machine delays the bench's
    own set-up into it). Asking for the document builds it now, or waits for that build."""
    httpx.get(f"{url}/openapi.json", timeout=120).raise_for_status()


def can(http: httpx.Client, url: str, key: str, answer: httpx.Response) -> str:
    """Has the minimal app answer `key` with `answer`'s body and type; returns its URL."""
    media = answer.headers.get("content-type", "application/json")
    http.put(f"{url}/canned/{key}", content=answer.content, headers={"content-type": media})
    return f"{url}/canned/{key}"


def interleaved(
    ours: Callable[[], httpx.Response], theirs: Callable[[], httpx.Response], repeat: int
) -> tuple[list[float], list[float]]:
    """Milliseconds of `repeat` calls of each, in turns (so a burst of other load falls on
    both alike), after a warm-up of three each; every answer must be a success."""
    for _ in range(3):
        ours().raise_for_status()
        theirs().raise_for_status()
    mine: list[float] = []
    base: list[float] = []
    for _ in range(repeat):
        for call, into in ((ours, mine), (theirs, base)):
            started = time.perf_counter()
            answer = call()
            into.append((time.perf_counter() - started) * 1000)
            answer.raise_for_status()
    return mine, base


def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
