"""Typed service functions: load rows, call the pure code, write rows in a transaction."""
