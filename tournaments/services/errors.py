"""The one translation of the pure modules' errors (scoring.rules.errors.ScoringError).

A pure module raises an error with an English ``template`` marked for makemessages and its
``params``; a param that is itself words is a ``scoring.rules.errors.Message`` with its own marked
template and params. ``translate_error`` translates the template and, recursively, every such
param, in the active language: a French arbiter reads no English word. A template that is a
``scoring.rules.errors.Plural`` (marked with the pure modules' ``ngettext``) is translated with
Django's ``ngettext`` and the number in its count param, so "1 bout" and "2 bouts" (French: "0
bout") read right.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, ngettext

from scoring.rules.errors import Message, Plural, ScoringError

__all__ = ["translate_error"]


def translate_error(err: ScoringError) -> str:
    """A pure module's error in the active language."""
    return _render(err.template, err.params)


def translate_message(message: Message) -> str:
    """Words built by a pure module (a Message) in the active language."""
    return _render(message.template, message.params)


def _render(template: str, params: Mapping[str, Any]) -> str:
    if isinstance(template, Plural):
        text = ngettext(template.singular, template.plural, params[template.count])
    else:
        text = gettext(template)
    if not params:
        return text
    return text % {name: _param(value) for name, value in params.items()}


def _param(value: Any) -> Any:
    if isinstance(value, Message):
        return _render(value.template, value.params)
    if isinstance(value, ScoringError):
        return translate_error(value)
    return value
