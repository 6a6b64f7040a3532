"""The organiser's forms of the hub's pages."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

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
        ]
        widgets = {
            "date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
            "session_starts_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
            "session_ends_at": forms.DateTimeInput(
                attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"
            ),
        }


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


__all__ = ["EventForm", "InvitationForm", "Method", "UploadFileForm"]
