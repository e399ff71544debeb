"""visor: deterministic scenario tests for mobile apps.

Import nothing heavy here: `visor --version` must start as fast as click itself.
"""

__version__ = "0.1.0"
#: The name visor is published under on the package index (`visor` there is an unrelated project).
DISTRIBUTION = "visor-mobile"

__all__ = ["DISTRIBUTION", "__version__"]
