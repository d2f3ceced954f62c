"""The browser app (``hexstones serve``): FastAPI + SQLite + a plain HTML/JS front end."""

from hexstones.web.app import create_app

__all__ = ["create_app"]
