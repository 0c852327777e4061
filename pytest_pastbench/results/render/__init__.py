"""Renderers of a run's summary: terminal table, HTML report, plots, CI summary."""
