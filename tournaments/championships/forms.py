"""The organiser's forms: a championship and its rule, an event to count, séries."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from scoring.rules.championship import TIE_BREAKS

from .models import Championship

TIE_BREAK_LABELS = {
    "events": _("More events counted"),
    "best": _("Best single event, then the second best…"),
    "recent": _("Most recent best"),
}


def _numbers(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(";", ",").replace(" ", ",").split(",") if x]
    except ValueError:
        raise forms.ValidationError(
            _("Write whole numbers separated by commas, for example 25, 20, 16, 13.")
        ) from None


class ChampionshipForm(forms.ModelForm):
    """The championship, its rule and its qualifiers, typed as an organiser writes them."""

    places_text = forms.CharField(
        label=_("Points by place"),
        required=False,
        help_text=_("Points for places 1, 2, 3…, separated by commas."),
    )
    tie_breaks_choice = forms.MultipleChoiceField(
        label=_("Tie-breaks"),
        required=False,
        choices=[(t, TIE_BREAK_LABELS[t]) for t in TIE_BREAKS],
        widget=forms.CheckboxSelectMultiple,
    )
    series_text = forms.CharField(
        label=_("Séries"), required=False, help_text=_("Their names, separated by commas.")
    )
    handicaps_text = forms.CharField(
        label=_("Handicaps"),
        required=False,
        help_text=_("Série=points added per event, separated by commas: Promotion=2, 4e=1."),
    )

    class Meta:
        model = Championship
        fields = [
            "name", "season_start", "season_end", "kind", "places_beyond", "scale_by_field",
            "best_of", "planned_events", "minimum_events", "final_name", "qualify_top",
            "qualify_top_per_serie",
        ]  # fmt: skip
        widgets = {
            "season_start": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "season_end": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        }

    # The fields of the rule, disabled once it is frozen (`frozen=True`).
    RULE = (
        "kind", "places_beyond", "scale_by_field", "best_of", "minimum_events", "places_text",
        "tie_breaks_choice", "handicaps_text",
    )  # fmt: skip

    def __init__(self, *args: Any, frozen: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in self.RULE if frozen else ():
            self.fields[name].disabled = True
        c = self.instance
        if c.pk:
            self.initial.setdefault("places_text", ", ".join(str(p) for p in c.places or []))
            self.initial.setdefault("tie_breaks_choice", list(c.tie_breaks or []))
            self.initial.setdefault("series_text", ", ".join(c.series or []))
            self.initial.setdefault(
                "handicaps_text", ", ".join(f"{k}={v}" for k, v in (c.handicaps or {}).items())
            )
        else:
            self.initial.setdefault("series_text", ", ".join(c.series or []))

    def clean_places_text(self) -> list[int]:
        return _numbers(self.cleaned_data.get("places_text", ""))

    def clean_series_text(self) -> list[str]:
        text = self.cleaned_data.get("series_text", "")
        return [s.strip() for s in text.split(",") if s.strip()]

    def clean_handicaps_text(self) -> dict[str, str]:
        out = {}
        for part in self.cleaned_data.get("handicaps_text", "").split(","):
            if not part.strip():
                continue
            serie, _sep, points = part.partition("=")
            if not points.strip().lstrip("-").replace("/", "").isdigit():
                raise forms.ValidationError(_("Write série=points, for example Promotion=2, 4e=1."))
            out[serie.strip()] = points.strip()
        return out

    def values(self) -> dict[str, Any]:
        """The service's keyword values."""
        data = {f: self.cleaned_data[f] for f in self.Meta.fields}
        data["places"] = self.cleaned_data["places_text"]
        data["tie_breaks"] = self.cleaned_data["tie_breaks_choice"]
        data["series"] = self.cleaned_data["series_text"]
        data["handicaps"] = self.cleaned_data["handicaps_text"]
        return data


class EventAddForm(forms.Form):
    tournament = forms.IntegerField(label=_("Tournament number"), required=False, min_value=1)
    simultaneous_event = forms.RegexField(
        label=_("Simultaneous event id"), regex=r"^[0-9a-z-]{1,40}$", required=False
    )


class SeriesForm(forms.Form):
    lines = forms.CharField(
        label=_("Séries by hand"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("One player a line: licence;série."),
    )
    file = forms.FileField(label=_("CSV file (licence;série)"), required=False)
