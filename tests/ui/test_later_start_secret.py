"""A later start of the Local sandbox, run as `freightdesk` runs it (a process of its own), on
a machine without a keyring (the app's secret kept in its file in the service's data
directory): the keyring is loaded and asked in a worker thread, never on the GUI thread
before the rest of the app has loaded, and the service begun once the list is painted is the
one the session signs in to, with the kept secret."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

from freightdesk.service.first_run import rotate_command
from freightdesk.service.paths import AppPaths
from freightdesk.service.profiles import ProfileStore
from freightdesk.service.secrets import LOCAL_SECRET_FILE, MemorySecretStore
from tests.fresh_home import seeded_home, user_env
from tests.processes import processes

# The app and its service start on a machine with a load of 10.
START_SECONDS = 180
# The `freightdesk` command, watching which thread imports the keyring (the import system's
# own hook: nothing of the app replaced). At the first paint it says whether the keyring is
# loaded; once Online, the threads that imported it, then it closes its window as a user would.
LATER_START = textwrap.dedent(
    """
    import importlib.abc, json, sys, threading
    from freightdesk.cli import main
    from freightdesk.ui import launch

    imported_on = []

    class Watch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "keyring":
                on_gui = threading.current_thread() is threading.main_thread()
                imported_on.append("gui" if on_gui else "worker")
            return None

    sys.meta_path.insert(0, Watch())

    def painted():
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        from freightdesk.service.connection import ConnectionState
        from freightdesk.ui.main_window import MainWindow

        print(json.dumps({"painted": {"keyring": "keyring" in sys.modules}}), flush=True)
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))

        def online():
            if window.is_attached() and window.session.status.state is ConnectionState.ONLINE:
                print(json.dumps({"online": {"keyring": imported_on}}), flush=True)
                window.close()
            else:
                QTimer.singleShot(50, online)

        online()

    run = launch.run
    launch.run = lambda argv=None: run(argv, on_first_paint=painted)
    sys.exit(main([]))
    """
)


def _connected_before(home: Path) -> AppPaths:
    """`home` once its Local sandbox was connected to on a machine without a keyring: the
    desktop client's id in the profiles, its secret (a real one, from the command line) in
    the service's data directory."""
    paths = seeded_home(home)
    made = subprocess.run(
        rotate_command(paths.local_service_dir),
        capture_output=True,
        text=True,
        timeout=START_SECONDS,
        check=True,
    )
    found = re.search(r"client id (\S+), client secret (\S+)", made.stdout)
    assert found is not None, made.stdout + made.stderr
    profiles = ProfileStore(paths.profiles_file, MemorySecretStore())
    profiles.keep_local_secret_in(paths.local_service_dir / LOCAL_SECRET_FILE)
    profiles.save(replace(profiles.active, client_id=found[1]), secret=found[2])
    return paths


def test_a_later_start_asks_the_keyring_off_the_gui_thread(tmp_path: Path) -> None:
    home = tmp_path / "freightdesk"
    paths = _connected_before(home)
    # No keyring here, whatever the machine has: its own is neither asked nor written.
    env = {
        **user_env(home, tmp_path / "user"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    kept = paths.local_service_dir / LOCAL_SECRET_FILE
    secret = kept.read_text()
    with processes() as started:
        started.watched_dirs.append(paths.local_service_dir)
        app = started.start([sys.executable, "-c", LATER_START], env=env)
        out, err = app.communicate(timeout=START_SECONDS)
    said = out.decode() + err.decode()
    assert app.returncode == 0, said[-3000:]
    reports = {
        key: value
        for line in out.decode().splitlines()
        if line.startswith("{")
        for key, value in json.loads(line).items()
    }
    assert reports["painted"] == {"keyring": False}, said[-3000:]
    # Loaded once, in a worker thread (on the GUI thread it held the start 0.1 to 0.5 s).
    assert reports["online"] == {"keyring": ["worker"]}, said[-3000:]
    log = paths.log_file.read_text()
    # The service begun at the start was taken over (not stopped and started again, twice
    # the wait for Online), and it was given no new secret: the kept one signed in.
    assert "the local service begun at the start is not the one wanted" not in log
    assert "connected to Local sandbox" in log
    assert kept.read_text() == secret
