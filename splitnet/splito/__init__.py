"""Splito (docs/SPLITO.md): pure, deterministic rules, objective cards, record, bots."""
