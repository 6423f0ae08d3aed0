"""`python -m freightdesk` is the `freightdesk` command."""

import sys

from freightdesk.cli import main

if __name__ == "__main__":
    sys.exit(main())
