"""Rankings: snapshots of a tournament's ranking, what reads them, computes them when stale, schedules
and sweeps them, and the pages and exports that show them."""
