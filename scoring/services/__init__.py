"""Services of the computations: they load rows, call the pure modules, store outputs."""
