"""The forms of the claims window (issue 34 §4): a claim recorded by the arbiter or filed at
the table, and the arbiter's decision. They check the shape; tournaments.services.claims
decides, and its errors are put back on the fields they name (`apply_errors`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Claim, Penalty, Player
from .models_claims import MAX_REASON, MAX_TEXT
from .search import name_ordering
from .validators import validate_free_text

__all__ = ["ClaimForm", "ClaimSettleForm", "PlayerClaimForm", "TableClaimForm"]

KIND_LABELS = [
    (Claim.Kind.RESULT, _("A result (score, contract, points, annulment)")),
    (Claim.Kind.IRREGULARITY, _("An irregularity of play (the arbiter was called)")),
]


class _Errors(forms.Form):
    def apply_errors(self, errors: Mapping[str, list[str]]) -> None:
        """Put the service's errors on the fields they are about."""
        for key, messages in errors.items():
            for message in messages:
                self.add_error(key if key in self.fields else None, message)


class TableClaimForm(_Errors):
    """A claim filed from the table's page: the donne, what it is about, the text, and who
    files it with their personal code."""

    donne = forms.IntegerField(label=_("Donne"), min_value=1, max_value=10000)
    kind = forms.ChoiceField(
        label=_("The claim is about"), choices=KIND_LABELS, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label=_("What is wrong"),
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        validators=[validate_free_text],
    )
    player = forms.TypedChoiceField(label=_("Your name"), coerce=int, choices=())
    code = forms.CharField(
        label=_("Your personal code"),
        max_length=20,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )

    def __init__(self, *args: Any, players: list[Player], donnes: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["player"].choices = [("", "—"), *[(p.pk, str(p)) for p in players]]
        self.fields["donne"].widget = forms.Select(choices=[(n, str(n)) for n in donnes])


class PlayerClaimForm(_Errors):
    """A claim filed by a player from their own page: one of the cells they played
    ("<table id>:<donne id>"), what it is about, and the text."""

    cell = forms.ChoiceField(label=_("Table and donne"), choices=())
    kind = forms.ChoiceField(
        label=_("The claim is about"), choices=KIND_LABELS, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label=_("What is wrong"),
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        validators=[validate_free_text],
    )

    def __init__(self, *args: Any, cells: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["cell"].choices = cells


class ClaimForm(_Errors):
    """A claim the arbiter records for a player (or on their own finding)."""

    table = forms.IntegerField(label=_("Table"), min_value=1, max_value=10000)
    donne = forms.IntegerField(label=_("Donne"), min_value=1, max_value=10000)
    kind = forms.ChoiceField(
        label=_("The claim is about"), choices=KIND_LABELS, widget=forms.RadioSelect
    )
    player = forms.ModelChoiceField(
        label=_("Filed by (optional)"), queryset=Player.objects.none(), required=False
    )
    text = forms.CharField(
        label=_("Claim"),
        max_length=MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        validators=[validate_free_text],
    )
    without_call = forms.CharField(
        label=_("Taken without a call: why (irregularity only)"),
        max_length=MAX_REASON,
        required=False,
        validators=[validate_free_text],
    )

    def __init__(self, *args: Any, tournament: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = Player.objects.filter(
            registrations__tournament=tournament
        ).order_by(*name_ordering())


class ClaimSettleForm(_Errors):
    """The arbiter's decision on one claim, with an optional penalty."""

    state = forms.ChoiceField(
        label=_("Decision"),
        choices=[(Claim.State.REJECTED, _("Reject")), (Claim.State.ACCEPTED, _("Accept"))],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Reason"), max_length=MAX_REASON, validators=[validate_free_text]
    )
    penalty_player = forms.ModelChoiceField(
        label=_("Penalty to (optional)"), queryset=Player.objects.none(), required=False
    )
    penalty_kind = forms.ChoiceField(
        label=_("Penalty"), choices=[("", "—"), *Penalty.Kind.choices], required=False
    )
    penalty_points = forms.IntegerField(
        label=_("Points (for 'other')"), required=False, min_value=0, max_value=10000
    )

    def __init__(self, *args: Any, tournament: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["penalty_player"].queryset = Player.objects.filter(
            registrations__tournament=tournament
        ).order_by(*name_ordering())

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if bool(cleaned.get("penalty_player")) != bool(cleaned.get("penalty_kind")):
            self.add_error(
                "penalty_kind", _("For a penalty, choose both the player and the penalty.")
            )
        return cleaned
