"""What every app's API shares: the one error shape and its handler (``errors``), who may
write (``access``), safe retries with an Idempotency-Key (``idempotency``) and the base view
that puts them together with the write throttle (``views``). Imports no app: an app plugs its
own exceptions in with ``errors.register_error_mapping``."""
