"""Forms of the organiser screens. They validate and shape input; the services write."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext_lazy as _

from .models import Club, Player, Tournament

MAX_IMPORT_BYTES = 1_000_000


class PlayerForm(forms.ModelForm):
    """A club's player. A licence already taken says by whom, so the organiser can check."""

    class Meta:
        model = Player
        fields = ["last_name", "first_name", "licence"]
        widgets = {
            "licence": forms.TextInput(
                attrs={"inputmode": "numeric", "pattern": "[0-9]{7}", "autocomplete": "off"}
            )
        }
        help_texts = {"licence": _("7 digits, for example 0123456.")}

    def clean_licence(self) -> str:
        licence = self.cleaned_data["licence"].strip()
        taken = (
            Player.objects.filter(licence=licence)
            .exclude(pk=self.instance.pk)
            .select_related("club")
            .first()
        )
        if taken is not None:
            raise forms.ValidationError(
                _("Licence %(licence)s already belongs to %(player)s (%(club)s)."),
                code="licence_taken",
                params={"licence": licence, "player": taken.full_name, "club": taken.club},
            )
        return licence


class PlayerImportForm(forms.Form):
    """A CSV file of players, in UTF-8 (with or without a BOM) or Windows-1252."""

    file = forms.FileField(
        label=_("CSV file"),
        help_text=_(
            "One player a line, after a header line: licence,nom,prenom (or licence,last_name,"
            "first_name), separated by commas or semicolons; UTF-8 or Windows-1252 (what "
            "Excel writes) are both read."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv,text/plain"}),
    )
    encoding = ""  # set by clean_file: what the file was read as (ENCODING_LABELS)

    def clean_file(self) -> str:
        from .services.players import ENCODING_LABELS, CsvEncodingError, csv_decode

        upload = self.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise forms.ValidationError(
                _("The file is too large (%(size)d bytes): at most %(max)d bytes."),
                code="too_large",
                params={"size": upload.size, "max": MAX_IMPORT_BYTES},
            )
        try:
            text, encoding = csv_decode(upload.read())
        except CsvEncodingError:
            raise forms.ValidationError(
                _(
                    "The file is not a CSV text file. In your spreadsheet, save it as “CSV” "
                    "or “CSV UTF-8” and import it again."
                ),
                code="not_text",
            ) from None
        self.encoding = ENCODING_LABELS[encoding]
        return text


class ArbiterChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: AbstractBaseUser) -> str:
        full_name = obj.get_full_name() if hasattr(obj, "get_full_name") else ""
        username = obj.get_username()
        return f"{full_name} ({username})" if full_name else username


class TournamentForm(forms.ModelForm):
    """A tournament's details. The club is one the user organises and is fixed once created."""

    arbiters = ArbiterChoiceField(
        queryset=get_user_model().objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=_("Arbiters"),
        help_text=_("They can run the tournament and enter its results."),
    )

    class Meta:
        model = Tournament
        fields = [
            "club",
            "name",
            "date",
            "venue",
            "rounds",
            "donnes_per_relais",
            "method",
            "matchpoint_penalty_rate",
            "arbiters",
            "public_during_play",
            "round_minutes",
            "announcement",
        ]
        widgets = {"date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")}

    def __init__(self, *args: Any, user: AbstractBaseUser, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        clubs = Club.objects.all()
        if self.instance.pk is not None:
            clubs = clubs.filter(pk=self.instance.club_id)
        elif not user.is_superuser:
            clubs = clubs.filter(organisers=user)
        self.fields["club"].queryset = clubs
        self.fields["club"].empty_label = None
        self.fields["arbiters"].queryset = (
            get_user_model().objects.filter(is_active=True).order_by("username")
        )
        if self.instance.pk is not None:
            self.fields["club"].disabled = True
        # Left empty, the round's length keeps its value (the default for a new tournament).
        self.fields["round_minutes"].required = False

    def clean_round_minutes(self) -> int:
        minutes = self.cleaned_data.get("round_minutes")
        if minutes is None:
            return (
                self.instance.round_minutes or Tournament._meta.get_field("round_minutes").default
            )
        return minutes


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=Tournament.Status.choices)


class PlayerChoiceForm(forms.Form):
    player = forms.ModelChoiceField(queryset=Player.objects.all(), widget=forms.HiddenInput)
