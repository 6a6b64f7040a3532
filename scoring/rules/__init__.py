"""The rules of tarot and of duplicate scoring (RULES.md), pure: no Django, no app code, no ReportLab."""
