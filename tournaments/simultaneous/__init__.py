"""Simultaneous events: one event's donnes played in many clubs, ranked across the field (RULES.md §6.3)."""
