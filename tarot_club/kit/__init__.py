"""What every app of the project uses and no app owns: the SQL toolkit, the runtime's
transient failures and the retrying task. Imports no app (an import-linter contract)."""
