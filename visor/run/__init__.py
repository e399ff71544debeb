"""Runs: a scenario on a device with its reports, a benchmark, a suite of scenarios on workers, direct actions."""
