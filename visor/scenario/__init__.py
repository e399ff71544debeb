"""The scenario format: reading files, the models, validation into issues, and the JSON Schema."""
