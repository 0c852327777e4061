"""Agents: the Agent protocol and budgets, selection, Hermes and its mechanisms, external ones."""
