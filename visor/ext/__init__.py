"""Features as slices on the core: each imports the core and never another slice."""
