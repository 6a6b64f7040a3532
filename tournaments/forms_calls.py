"""The arbiter's ruling of a call to the arbiter (issue 34), as a form: what he rules, on whom,
which penalty, and his note; the score he sets is the arbiter's result form beside it."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import ArbiterCall, Player
from .validators import validate_free_text


class CallRuleForm(forms.Form):
    """A ruling. ``players``: who may be named (the players of the call's table)."""

    ruling = forms.ChoiceField(
        label=_("Ruling"), choices=ArbiterCall.Ruling.choices, widget=forms.RadioSelect
    )
    player = forms.ModelChoiceField(
        label=_("Player (warning or penalty)"), queryset=Player.objects.none(), required=False
    )
    kind = forms.ChoiceField(
        label=_("Penalty"),
        required=False,
        choices=[
            ("early_pickup", _("Picking up the cards early (100 points)")),
            ("other", _("Other (points and reason below)")),
        ],
        widget=forms.RadioSelect,
    )
    points = forms.IntegerField(
        label=_("Points (for 'other')"), required=False, min_value=0, max_value=10000
    )
    note = forms.CharField(
        label=_("Reason (written in the ledger; needed for an annulment)"),
        required=False,
        max_length=300,
        validators=[validate_free_text],
    )

    def __init__(self, *args: Any, players: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = players if players is not None else Player.objects.none()

    def apply_errors(self, errors: dict[str, list[str]]) -> None:
        """Put a service's errors on the fields they name (the others on the form)."""
        for key, messages in errors.items():
            field = {"reason": "note"}.get(key, key)
            for message in messages:
                self.add_error(field if field in self.fields else None, message)
