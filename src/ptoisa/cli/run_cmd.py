"""Subcommands registered by main.build_parser (placeholder until implemented)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add this module's subcommands to the `ptoisa` parser."""
