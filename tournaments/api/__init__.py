"""The REST API (/api/v1/): thin views over the same services and permissions as the screens.

See docs/API.md for authentication, idempotent retries, versions and errors.
"""
