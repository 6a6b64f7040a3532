"""Printed documents (ReportLab PDFs) built by Celery tasks and stored for download."""
