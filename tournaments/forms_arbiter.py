"""Forms of the arbiter's screens. Thin: they read the request into the services' inputs and
put the services' errors back on the right field; the rules live in the services."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import POSITIONS, Chelem, Contract, Donne, Penalty, PetitAuBout, Player, Position
from .search import name_ordering
from .services.checks import WARNING_CODES
from .services.results import ResultInput
from .validators import validate_free_text

ALL_PASSED = "all_passed"

# Keys that choose a radio of a group (see tarot_club/static/tarot_club/arbiter.js); shown on
# the page. West is Ouest in French, so both W and O choose it.
TAKER_KEYS = {"N": "n", "E": "e", "S": "s", "W": "wo"}
CONTRACT_KEYS = {
    "prise": "p",
    "garde": "g",
    "garde_sans": "s",
    "garde_contre": "c",
    ALL_PASSED: "0",
}
PETIT_KEYS = {"": "0n", "attack": "a", "defence": "d"}
POIGNEE_KEYS = {"": "0n", "simple": "1s", "double": "2d", "triple": "3t"}
CHELEM_KEYS = {
    "": "0n",
    "announced_made": "1",
    "unannounced_made": "2",
    "announced_failed": "3",
    "defence": "4",
}


POINTS_BEYOND = 1000


class ResultForm(forms.Form):
    """One donne at one table, as on the score sheet. Every field may be empty here: the
    service says what is still missing, so the live preview can show it while typing."""

    version = forms.IntegerField(required=False, widget=forms.HiddenInput)
    taker = forms.ChoiceField(
        label=_("Taker"), required=False, choices=Position.choices, widget=forms.RadioSelect
    )
    contract = forms.ChoiceField(
        label=_("Contract"),
        required=False,
        choices=[*Contract.choices, (ALL_PASSED, _("All passed"))],
        widget=forms.RadioSelect,
    )
    bouts = forms.TypedChoiceField(
        label=_("Bouts"),
        required=False,
        coerce=int,
        empty_value=None,
        choices=[(n, str(n)) for n in range(4)],
        widget=forms.RadioSelect,
    )
    points = forms.CharField(label=_("Attack's points"), required=False, max_length=20)
    petit_au_bout = forms.ChoiceField(
        label=_("Petit au bout"),
        required=False,
        choices=[("", _("Nobody")), *PetitAuBout.choices],
        widget=forms.RadioSelect,
    )
    chelem = forms.ChoiceField(
        label=_("Chelem"),
        required=False,
        choices=[("", _("No chelem")), *Chelem.choices],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Reason for the correction"),
        required=False,
        max_length=300,
        validators=[validate_free_text],
    )
    confirm = forms.MultipleChoiceField(
        required=False,
        choices=[(code, code) for code in WARNING_CODES],
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, seats: Mapping[str, Player] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.seats = dict(seats or {})
        poignee_choices = [
            ("", _("No poignée")),
            ("simple", _("Simple")),
            ("double", _("Double")),
            ("triple", _("Triple")),
        ]
        for position in POSITIONS:
            self.fields[f"poignee_{position}"] = forms.ChoiceField(
                label=Position(position).label,
                required=False,
                choices=poignee_choices,
                widget=forms.RadioSelect,
            )

    def clean_points(self) -> Decimal | None:
        text = (self.cleaned_data.get("points") or "").strip().replace(",", ".")
        if not text:
            return None
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise forms.ValidationError(
                _("Enter the attack's points as a number, for example 41 or 40.5."),
                code="points_not_a_number",
            ) from None
        # Points are 0 to 91: anything past a thousand (1e999) is no score and would only
        # overflow the arithmetic of the checks.
        if not value.is_finite() or abs(value) >= POINTS_BEYOND:
            raise forms.ValidationError(
                _("Enter the attack's points as a number, for example 41 or 40.5."),
                code="points_not_a_number",
            )
        return value

    def to_input(self) -> ResultInput:
        """The service's input from the cleaned form ("all passed" is a status)."""
        data = self.cleaned_data
        if data.get("contract") == ALL_PASSED:
            return ResultInput(status=ALL_PASSED)
        return ResultInput(
            status="played",
            taker=data.get("taker") or "",
            contract=data.get("contract") or "",
            bouts=data.get("bouts"),
            points=data.get("points"),
            petit_au_bout=data.get("petit_au_bout") or "",
            poignees={p: data.get(f"poignee_{p}") or "" for p in POSITIONS},
            chelem=data.get("chelem") or "",
        )

    @staticmethod
    def field_for(key: str) -> str | None:
        """The form field of a service error key ("poignees.N" -> "poignee_N")."""
        if key.startswith("poignees."):
            return f"poignee_{key.split('.', 1)[1]}"
        if key == "status":
            return "contract"
        if key in ("taker", "contract", "bouts", "points", "petit_au_bout", "chelem", "reason"):
            return key
        return None

    def apply_errors(self, errors: Mapping[str, list[str]]) -> None:
        """Put the service's errors on the fields they are about."""
        for key, messages in errors.items():
            name = self.field_for(key)
            for message in messages:
                if name is not None and name in self.fields:
                    self.add_error(name, message)
                else:
                    self.add_error(None, message)

    @property
    def confirmed(self) -> list[str]:
        return list(self.cleaned_data.get("confirm") or []) if hasattr(self, "cleaned_data") else []

    @property
    def field_error_messages(self) -> list[str]:
        """The errors on fields (not the form's own): an error box lists them only if any."""
        return [str(e) for name, errors in self.errors.items() if name != "__all__" for e in errors]

    def radios(self, name: str, keys: Mapping[str, str]) -> list[dict[str, Any]]:
        """The choices of a radio group with their shortcut keys and checked state."""
        value = self[name].value()
        value = "" if value is None else str(value)
        out = []
        for choice, label in self.fields[name].choices:
            out.append(
                {
                    "value": str(choice),
                    "label": label,
                    "keys": keys.get(str(choice), ""),
                    "checked": value == str(choice),
                    "id": f"id_{name}_{choice or 'none'}",
                }
            )
        return out


class AnnulForm(forms.Form):
    version = forms.IntegerField(required=False, widget=forms.HiddenInput)
    reason = forms.CharField(
        label=_("Reason for the annulment"),
        max_length=300,
        validators=[validate_free_text],
        help_text=_("For example: cards of two étuis mixed, a card missing from the étui."),
    )


class PenaltyForm(forms.Form):
    """A penalty from the catalogue (RULES.md §8)."""

    player = forms.ModelChoiceField(label=_("Player"), queryset=Player.objects.none())
    kind = forms.ChoiceField(
        label=_("Penalty"), choices=Penalty.Kind.choices, widget=forms.RadioSelect
    )
    points = forms.IntegerField(
        label=_("Points (for 'other')"), required=False, min_value=0, max_value=10000
    )
    reason = forms.CharField(
        label=_("Reason"), required=False, max_length=300, validators=[validate_free_text]
    )
    donne = forms.ModelChoiceField(
        label=_("Donne (optional)"), queryset=Donne.objects.none(), required=False
    )

    def __init__(self, *args: Any, tournament: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["player"].queryset = Player.objects.filter(
            registrations__tournament=tournament
        ).order_by(*name_ordering())
        self.fields["donne"].queryset = Donne.objects.filter(tournament=tournament).order_by(
            "number"
        )
        self.fields["kind"].choices = [
            ("early_pickup", _("Picking up the cards early (100 points)")),
            ("warning", _("Warning (0 points)")),
            ("other", _("Other (points and reason below)")),
        ]

    def apply_errors(self, errors: Mapping[str, list[str]]) -> None:
        for key, messages in errors.items():
            for message in messages:
                self.add_error(key if key in self.fields else None, message)


class WithdrawForm(forms.Form):
    reason = forms.CharField(
        label=_("Why withdraw it"), max_length=300, validators=[validate_free_text]
    )


class JumpForm(forms.Form):
    """Go to table T, donne D."""

    table = forms.IntegerField(label=_("Table"), min_value=1)
    donne = forms.IntegerField(label=_("Donne"), min_value=1)
