"""Forms of the organiser screens. They validate and shape input; the services write."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db.models import Q
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
            "claims_window_minutes",
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
        # Only the club's own organisers and arbiters (and those the tournament already has):
        # the form never lists another club's accounts, a player's or the administrator's.
        User = get_user_model()
        staff = User.objects.filter(
            Q(organised_clubs__in=clubs) | Q(arbitrated_clubs__in=clubs)
        ).filter(is_active=True)
        if self.instance.pk is not None:
            staff = staff | User.objects.filter(arbitrated_tournaments=self.instance)
        self.fields["arbiters"].queryset = User.objects.filter(pk__in=staff.values("pk")).order_by(
            "username"
        )
        if self.instance.pk is not None:
            self.fields["club"].disabled = True
        # Left empty, the round's length keeps its value (the default for a new tournament).
        self.fields["round_minutes"].required = False
        self.fields["claims_window_minutes"].required = False

    def clean(self) -> dict[str, Any]:
        """The arbiters chosen are the chosen club's own (the list offers every club the
        user organises)."""
        from .services.clubs import club_staff_check

        cleaned = super().clean()
        club, arbiters = cleaned.get("club"), cleaned.get("arbiters")
        if club is not None and arbiters:
            kept = self.instance.arbiters.all() if self.instance.pk is not None else ()
            try:
                club_staff_check(club, arbiters, kept=kept)
            except ValidationError as exc:
                self.add_error(None, exc)
        return cleaned

    def clean_round_minutes(self) -> int:
        minutes = self.cleaned_data.get("round_minutes")
        if minutes is None:
            return (
                self.instance.round_minutes or Tournament._meta.get_field("round_minutes").default
            )
        return minutes

    def clean_claims_window_minutes(self) -> int:
        """Left empty, the claims window keeps its length (30 minutes for a new tournament)."""
        minutes = self.cleaned_data.get("claims_window_minutes")
        if minutes is None:
            return int(
                self.instance.claims_window_minutes
                if self.instance.pk is not None
                else Tournament._meta.get_field("claims_window_minutes").default
            )
        return minutes


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=Tournament.Status.choices)


class PlayerChoiceForm(forms.Form):
    player = forms.ModelChoiceField(queryset=Player.objects.all(), widget=forms.HiddenInput)


class ClubForm(forms.ModelForm):
    """A new club: its name, federation number and city."""

    class Meta:
        model = Club
        fields = ["name", "federation_number", "city"]
        widgets = {
            "federation_number": forms.TextInput(
                attrs={"inputmode": "numeric", "autocomplete": "off"}
            )
        }


class AccountForm(forms.Form):
    """An account the club's organiser makes for an organiser or an arbiter of the club."""

    username = forms.CharField(
        label=_("User name"),
        max_length=150,
        help_text=_("What the person types to log in: letters, digits and @ . + - _ only."),
    )
    first_name = forms.CharField(label=_("First name"), max_length=150, required=False)
    last_name = forms.CharField(label=_("Last name"), max_length=150, required=False)
    role = forms.ChoiceField(
        label=_("Role"),
        choices=[
            ("arbiter", _("Arbiter: runs the tournaments they are named for and enters results")),
            ("organiser", _("Organiser: manages the club, its players and its tournaments")),
        ],
        widget=forms.RadioSelect,
        initial="arbiter",
    )
    tournaments = forms.ModelMultipleChoiceField(
        label=_("Arbiter of"),
        queryset=Tournament.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("For an arbiter: the club's tournaments they run (also set in each form)."),
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tournaments"].queryset = club.tournaments.exclude(
            status=Tournament.Status.PUBLISHED
        ).order_by("-date", "name")


class SignupForm(UserCreationForm):
    """The sign-up page's account: a user name, an optional email address and a password
    (typed twice, held to the site's password rules). Django's form refuses a user name
    already taken, whatever its case."""

    email = forms.EmailField(
        label=_("Email address"),
        required=False,
        help_text=_("Optional: how the site's owner can reach you."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("User name")
        self.fields["username"].help_text = _(
            "What you type to log in: letters, digits and @ . + - _ only."
        )


class RegisterLinesForm(forms.Form):
    """Names or licences pasted from the club's sheet, one player per line."""

    lines = forms.CharField(
        label=_("Players, one per line"),
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_(
            "A licence or a first and last name per line, as copied from a sheet; blank lines "
            "are ignored."
        ),
        max_length=50_000,
    )
