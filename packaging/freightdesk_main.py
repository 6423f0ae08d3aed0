"""The desktop bundle's entry point: `FreightDesk [command ...]` is `freightdesk [command ...]`
(the app without a command; `serve`, which the app runs as its Local sandbox child; and
`--version`, `--self-check`)."""

import sys

from freightdesk.cli import main

if __name__ == "__main__":
    sys.exit(main())
