"""Tests of visor's ext.visualagent package."""
