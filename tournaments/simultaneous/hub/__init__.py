"""The hub of simultaneous events (RULES.md §6.3): the event and its donnes, the clubs'
invitations, the uploads they send, and the overall ranking across the field."""
