"""JSON Schemas shipped with visor: the scenario format, the envelope and the app map file."""
