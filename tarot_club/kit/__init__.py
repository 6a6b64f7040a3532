"""What every app of the project uses and no app owns: the SQL toolkit, the runtime's
transient failures, the retrying task, the throttles, and the API's shared parts (``api``:
the one error shape and its handler, Idempotency-Key retries, the base view). Imports no app
(an import-linter contract); an app plugs in through registration (``api.errors``)."""
