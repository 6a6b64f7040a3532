"""Clubs, players, tournaments and everything played in them."""
