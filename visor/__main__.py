"""`python -m visor` runs the command-line interface."""

from visor.cli import main

if __name__ == "__main__":
    main()
