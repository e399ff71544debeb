"""The daemon that keeps a device open between direct actions, its client, and record and replay."""
