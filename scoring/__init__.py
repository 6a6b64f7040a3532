"""The computations: scoring, dealing, comparison, rankings, movements, tasks and PDFs."""
