"""Views of the scoring app, one module per group of pages (rankings; documents elsewhere)."""
