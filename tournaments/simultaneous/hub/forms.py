"""The organiser's forms of the hub's pages."""

from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.rules.movement import sets_needed, table_layout
from tournaments.models import Method

from .models import SimultaneousEvent


class EventForm(forms.ModelForm):
    class Meta:
        model = SimultaneousEvent
        fields = [
            "name",
            "date",
            "session_starts_at",
            "session_ends_at",
            "rounds",
            "sets",
            "method",
            "matchpoint_penalty_rate",
            "claims_window_minutes",
        ]
        help_texts = {
            "sets": _(
                "The most étui sets any club may use (the event deals 4 donnes per set). A club "
                "needs about one set per table of 4 or 5 players, more for more rounds than "
                "tables: see the table “Étui sets a club needs” below. A club with more "
                "players than the sets seat cannot play the event."
            )
        }
        widgets = {
            "date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "session_starts_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
            "session_ends_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
        }

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # Left empty, the claims window keeps its default (30 minutes).
        self.fields["claims_window_minutes"].required = False

    def clean_claims_window_minutes(self) -> int:
        minutes = self.cleaned_data.get("claims_window_minutes")
        if minutes is None:
            return int(SimultaneousEvent._meta.get_field("claims_window_minutes").default)
        return minutes


@dataclass(frozen=True)
class SetsRow:
    """Clubs of ``first``…``last`` players (``tables`` tables) need ``sets[r-1]`` étui sets
    for r rounds."""

    first: int
    last: int
    tables: int
    sets: tuple[int, ...]


SETS_TABLE_ROUNDS = (1, 2, 3, 4, 5, 6)


def sets_table(max_players: int = 60) -> list[SetsRow]:
    """The étui sets a club needs by its number of players (grouped by tables) and rounds,
    as the movement a club's site generates for an event uses them (`sets_needed`)."""
    groups: dict[int, list[int]] = {}
    for players in range(8, max_players + 1):
        if players == 11:
            continue
        four, five = table_layout(players)
        groups.setdefault(four + five, []).append(players)
    return [
        SetsRow(
            first=min(sizes),
            last=max(sizes),
            tables=tables,
            sets=tuple(sets_needed(min(sizes), rounds) for rounds in SETS_TABLE_ROUNDS),
        )
        for tables, sizes in sorted(groups.items())
    ]


class InvitationForm(forms.Form):
    club_name = forms.CharField(label=_("Club"), max_length=120)
    federation_number = forms.RegexField(
        label=_("Federation number"),
        regex=r"^[0-9]{4,7}$",
        required=False,
        error_messages={"invalid": _("A club's federation number has 4 to 7 digits.")},
    )


class UploadFileForm(forms.Form):
    file = forms.FileField(label=_("Club's upload file (JSON)"))


__all__ = ["EventForm", "InvitationForm", "Method", "SetsRow", "UploadFileForm", "sets_table"]
