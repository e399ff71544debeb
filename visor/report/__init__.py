"""What visor tells its users: the JSON envelope, artifacts, and the human console."""
