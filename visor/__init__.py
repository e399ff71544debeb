"""visor: deterministic scenario tests for mobile apps.

Import nothing heavy here: `visor --version` must start as fast as click itself.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
