"""Routes of this area (being built)."""

from fastapi import APIRouter

router = APIRouter()
