"""Championships over a season (issue 33): site tournaments and simultaneous events counted
under one rule, séries, qualifiers; a subject of the derived-ranking mechanism."""
