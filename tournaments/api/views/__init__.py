"""API views, one module per group of resources; all thin over the services."""
