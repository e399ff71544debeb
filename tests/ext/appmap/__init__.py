"""Tests of visor's ext.appmap package."""
