"""What a desktop sees of FreightDesk: the desktop entry and AppStream metainfo (valid under
the freedesktop validators), installed with the icons for the current user; and the desktop
bundle, built with PyInstaller, which answers --version and passes its self-check (the map
outlines, its own local service from the bundle, the demo data, a map page and a PDF preview),
fails it without the map outlines, and leaves out the packages the app no longer uses."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from freightdesk.ui.icons import APP_ICON_SIZES, resource
from tests.support import missing

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"


def _tool(name: str) -> str:
    """The validator `name`; skipped where it is not installed, failed in CI (CI installs it:
    apt packages desktop-file-utils and appstream)."""
    path = shutil.which(name)
    if path is None:
        missing(f"{name} is not installed")
    return path


def _run(
    *args: str | Path, timeout: float = 120, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,
    )


def test_the_installed_package_holds_the_desktop_files_and_icons() -> None:
    # Read from the package (importlib.resources), as the app and a wheel install find them.
    for size in APP_ICON_SIZES:
        png = resource("icons", "hicolor", f"{size}x{size}", "apps", "freightdesk.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert resource("icons", "freightdesk.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"
    assert resource("icons", "freightdesk.icns").read_bytes()[:4] == b"icns"
    entry = resource("freightdesk.desktop").read_text(encoding="utf-8")
    assert "Exec=freightdesk\n" in entry and "Icon=freightdesk\n" in entry
    metainfo = resource("freightdesk.metainfo.xml").read_text(encoding="utf-8")
    assert '<launchable type="desktop-id">freightdesk.desktop</launchable>' in metainfo


def test_desktop_entry_and_metainfo_are_valid() -> None:
    checked = _run(_tool("desktop-file-validate"), str(resource("freightdesk.desktop")))
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout
    checked = _run(
        _tool("appstreamcli"), "validate", "--no-net", str(resource("freightdesk.metainfo.xml"))
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_desktop_entry_installs_for_the_user_and_uninstalls(tmp_path: Path) -> None:
    data = tmp_path / "share"
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    bundle = "/opt/Free Desk/FreightDesk"  # a path with a space, as people unpack to
    done = _run(PACKAGING / "install-desktop-entry", bundle, env=env)
    assert done.returncode == 0, done.stderr
    entry = data / "applications" / "freightdesk.desktop"
    assert f'Exec="{bundle}"' in entry.read_text(encoding="utf-8")
    checked = _run(_tool("desktop-file-validate"), entry)
    assert checked.returncode == 0 and not checked.stdout.strip(), checked.stdout
    for size in APP_ICON_SIZES:
        assert (
            data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "freightdesk.png"
        ).is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "freightdesk.svg").is_file()
    assert (data / "metainfo" / "freightdesk.metainfo.xml").is_file()

    done = _run(PACKAGING / "install-desktop-entry", "--uninstall", env=env)
    assert done.returncode == 0, done.stderr
    assert not entry.exists()
    assert not list((data / "icons").rglob("freightdesk.*"))
    # Nor does the desktop's icon cache still name it (rebuilt even within the same second).
    cache = data / "icons" / "hicolor" / "icon-theme.cache"
    assert not cache.exists() or b"freightdesk" not in cache.read_bytes()


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dist/FreightDesk/, built as packaging/build.sh builds it (into a temporary folder):
    about 4 minutes on 2 busy cores, and 1 GB of disk while it builds. Once for this module."""
    if importlib.util.find_spec("PyInstaller") is None:  # in [test]: CI has it
        missing("PyInstaller is not installed (pip install -e '.[test]')")
    work = tmp_path_factory.mktemp("bundle")
    built = _run(
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        work / "dist",
        "--workpath",
        work / "build",
        PACKAGING / "freightdesk.spec",
        timeout=1500,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return work / "dist" / "FreightDesk"


def _self_check(bundle: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The bundle's --self-check, run as a user runs it (nothing of this checkout's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FREIGHTDESK_HOME")}
    return _run(bundle / "FreightDesk", "--self-check", timeout=timeout, env=env)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_bundle_builds_and_passes_its_self_check(bundle: Path) -> None:
    answered = _run(bundle / "FreightDesk", "--version", timeout=60)
    assert answered.stdout.strip() == f"freightdesk {version('freightdesk')}", answered.stderr

    checked = _self_check(bundle)
    assert checked.returncode == 0, checked.stdout + checked.stderr[-3000:]
    for step in (
        # The offline basemap's vendored files (ui/maps/assets/outlines) and their NOTICE.
        "map outlines decoded, 177 country and 53 state outlines",
        "local service at",
        "demo data ready",
        # The workbook's writer is a spawned child: the bundle itself, which must become
        # that child (multiprocessing.freeze_support) and hold openpyxl.
        "XLSX export written by its child process, ",
        "map page drawn",
        "PDF preview drawn",
        # `freightdesk client rotate` run as the bundle runs it (no `python -m`).
        "a second window connected with a new client secret",
    ):
        assert f"self-check: {step}" in checked.stdout, checked.stdout


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_bundle_without_the_map_outlines_fails_its_self_check(bundle: Path) -> None:
    outlines = next(bundle.rglob("ui/maps/assets/outlines"))
    aside = bundle.parent / "outlines-aside"
    outlines.rename(aside)
    try:
        checked = _self_check(bundle, timeout=300)
    finally:
        aside.rename(outlines)

    assert checked.returncode == 1, checked.stdout + checked.stderr[-3000:]
    assert "self-check FAILED: the map outlines' licence is missing" in checked.stderr
    assert "local service at" not in checked.stdout  # the first step, before any other


# Packages the app no longer uses, and that came into the bundle before through hooks or
# imports of build-time code: folium, branca and Jinja2 render the map page ahead (the
# maps-build extra), pandas came with folium, bqplot once held the basemap's outlines, and
# IPython comes with bqplot and PyInstaller's hooks. Test and development tools came with
# modules the app never imports: anyio's pytest runner (_pytest), pydantic's mypy and
# hypothesis plugins, httpx's command line (rich, pygments). PostgreSQL's driver came with
# SQLAlchemy's dialect; the bundled service runs on SQLite (the spec says why). The trio
# event loop (outcome and sortedcontainers with it) came with anyio's trio backend and
# httpx's and httpcore's optional imports; the app runs on asyncio only.
LEFT_OUT = (
    *("folium", "branca", "jinja2", "pandas", "bqplot", "IPython"),
    *("_pytest", "hypothesis", "mypy", "rich", "pygments", "psycopg", "psycopg_binary"),
    *("trio", "outcome", "sortedcontainers"),
)
# Qt bindings PyInstaller's hooks add for the libraries QtWebEngine links, none imported by
# the app; with QtQml came all of Qt's QML modules and the libraries of their plugins.
LEFT_OUT_QT = ("QtQml", "QtQuick", "QtQuickWidgets", "QtOpenGL", "QtPositioning")


def _bundled_names(bundle: Path) -> set[str]:
    """The top-level names (lower case) of what the bundle holds: the modules in the
    executable's archive, and the folders and files beside it (binaries, data, metadata)."""
    from PyInstaller.archive.readers import pkg_archive_contents

    names = {name.split(".")[0] for name in pkg_archive_contents(str(bundle / "FreightDesk"))}
    # "folium/templates", "pandas/_libs/...so", "folium-0.20.0.dist-info": by their first word.
    names |= {entry.name.split("-")[0].split(".")[0] for entry in (bundle / "_internal").iterdir()}
    return {name.lower() for name in names}


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_bundle_leaves_out_what_the_app_no_longer_needs(bundle: Path) -> None:
    names = _bundled_names(bundle)

    # What the app needs is seen, as modules and beside them.
    assert {"freightdesk", "openpyxl", "pyside6", "xstatic", "tzdata"} <= names
    assert not [name for name in LEFT_OUT if name.lower() in names]
    pyside = bundle / "_internal" / "PySide6"
    assert not [
        path.name for path in pyside.glob("Qt*.*") if path.name.split(".")[0] in LEFT_OUT_QT
    ]
    assert not (pyside / "Qt" / "qml").exists()
