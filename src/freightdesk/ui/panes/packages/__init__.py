"""Packages planned for shipping: search, create and edit, delete."""
