"""FreightDesk: the desktop tool for freight visibility data, and a faithful local service."""

__version__ = "0.1.0"
