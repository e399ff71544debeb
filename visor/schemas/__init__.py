"""JSON Schemas shipped with visor: the scenario format and the envelope."""
