"""Fixture definitions used by ../export_fixtures.py."""
