"""Maestro flows read and converted into visor scenarios (`visor import maestro`)."""
