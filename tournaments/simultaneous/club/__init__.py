"""The club's side of a simultaneous event: joining with a token, playing the event's donnes,
uploading the club's results to the hub (RULES.md §6.3)."""
