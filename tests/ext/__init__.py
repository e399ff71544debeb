"""Tests of visor's ext package."""
