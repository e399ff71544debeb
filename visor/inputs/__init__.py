"""What comes in from outside: files and bytes decoded, YAML and JSON parsed with every position, `--param` values."""
