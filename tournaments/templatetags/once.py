"""``{% once_field %}``: the one-time token of a writing form (see tournaments.once)."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from ..once import FIELD, once_token

register = template.Library()


@register.simple_tag
def once_field() -> SafeString:
    return format_html('<input type="hidden" name="{}" value="{}">', FIELD, once_token())
