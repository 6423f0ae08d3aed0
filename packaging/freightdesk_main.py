"""The desktop bundle's entry point: `FreightDesk [command ...]` is `freightdesk [command ...]`
(the app without a command; `serve`, which the app runs as its Local sandbox child; and
`--version`, `--self-check`)."""

import multiprocessing
import sys

from freightdesk.cli import main

if __name__ == "__main__":
    # The Excel export's writer is a spawned child process (service/export.py): in the bundle
    # it is this executable again, which PyInstaller's freeze_support turns into that child
    # (and into multiprocessing's resource tracker). The self-check's export step fails
    # without it (docs/packaging.md).
    multiprocessing.freeze_support()
    sys.exit(main())
