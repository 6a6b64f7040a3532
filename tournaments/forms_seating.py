"""Forms of the seating editor (the seating plan page in edit mode). Thin: they read numbers;
whether the change is allowed is for tournaments.services.seating_edit to say."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class SeatingSwapForm(forms.Form):
    round = forms.IntegerField(min_value=1, max_value=1000, widget=forms.HiddenInput)
    player_a = forms.IntegerField(label=_("Player"), min_value=1)
    player_b = forms.IntegerField(label=_("swaps seats with"), min_value=1)


class SeatingSetForm(forms.Form):
    round = forms.IntegerField(min_value=1, max_value=1000, widget=forms.HiddenInput)
    table = forms.IntegerField(label=_("Table"), min_value=1, max_value=10000)
    etui_set = forms.IntegerField(label=_("plays étui set"), min_value=1, max_value=10000)
