"""The action kernel: what every front end acts through (one context, one resolver, one re-find).

Scenario commands (`visor.actions.step_commands`) and agent tools (`visor.actions.tools`) are two vocabularies over
it; see docs/architecture.md, "Two front ends, one kernel".
"""
