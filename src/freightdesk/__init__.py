"""FreightDesk: the desktop tool for freight visibility data, and a faithful local service."""


def __getattr__(name: str) -> str:
    # The version has one source, the package's metadata (pyproject.toml's [project] version),
    # read on first use: importlib.metadata costs 10 ms, which the app's first paint does not pay.
    if name == "__version__":
        from importlib.metadata import version

        return version("freightdesk")
    raise AttributeError(f"module 'freightdesk' has no attribute {name!r}")
