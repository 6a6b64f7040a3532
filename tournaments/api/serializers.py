"""What the API reads and writes. Output serializers describe rows; input serializers only
check types and shapes: the rules (contracts, points, cards, statuses) are the services', so
the API and the screens refuse the same things with the same messages."""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from tournaments.ledger_text import LedgerText, entry_text
from tournaments.models import (
    POSITIONS,
    Chelem,
    Club,
    Contract,
    Donne,
    EtuiSet,
    LedgerEntry,
    Method,
    Penalty,
    PetitAuBout,
    Player,
    PoigneeSize,
    Position,
    Registration,
    Result,
    Round,
    Seat,
    SeatPosition,
    Table,
    Tournament,
)
from tournaments.permissions import LicenceReader
from tournaments.services.checks import WARNING_CODES
from tournaments.validators import validate_free_text, validate_plain_text

MAX_INT = 2_147_483_647
# Choice sets named in SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] (one schema enum each).
ENTRY_STATUSES = [("played", _("Played")), ("all_passed", _("All passed"))]
CARD_LINE_STATUSES = [
    ("played", _("Played")),
    ("annulled", _("Annulled")),
    ("sat_out", _("Sat out")),
    ("pending", _("Not played yet")),
]

# --- shared shapes ---------------------------------------------------------------------------


def fraction_text(value: Fraction | int | None) -> str | None:
    """An exact number as "n/d" (or "n"): what the ranking computed, not rounded."""
    if value is None:
        return None
    value = Fraction(value)
    return (
        str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    )


def fraction_float(value: Fraction | int | None, digits: int = 2) -> float | None:
    return None if value is None else round(float(value), digits)


class ErrorSerializer(serializers.Serializer):
    """Every error: a code, a translated message and per-field messages."""

    code = serializers.CharField(help_text="Stable machine-readable code, e.g. `invalid`.")
    message = serializers.CharField(help_text="What went wrong and what to do, translated.")
    details = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text='Per-field messages; "__all__" for the request as a whole.',
    )


class NeedsConfirmationSerializer(ErrorSerializer):
    warnings = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="Warning code → message (when a confirmation is needed). Send the codes you "
        "confirm in `confirm`.",
    )


class ThrottledSerializer(ErrorSerializer):
    retry_after = serializers.IntegerField(required=False, help_text="Seconds to wait.")


def licence_reader(context: dict[str, Any]) -> LicenceReader:
    """The serializer context's reader of licences: given by the view (`licences`), else
    read once from the request's user and the view's tournament (`TournamentView`); without
    a request, nobody's licence (an answer never shows one by mistake)."""
    reader = context.get("licences")
    if reader is None:
        request = context.get("request")
        if request is None:
            reader = LicenceReader(None, False, frozenset())
        else:
            view = context.get("view")
            tournament = view.__dict__.get("tournament") if view is not None else None
            reader = LicenceReader.of(request.user, tournament)
        context["licences"] = reader
    return reader


class LicenceField(serializers.Field):
    """A player's licence for the answer's reader (`LicenceReader`: the player himself, the
    organisers and arbiters of his club or of the tournament listed, staff), null for anyone
    else."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("source", "*")
        kwargs.setdefault("read_only", True)
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault(
            "help_text",
            "7 digits; null unless the caller is the player, an organiser or arbiter of the "
            "player's club or of this tournament, or staff.",
        )
        super().__init__(**kwargs)

    def to_representation(self, value: Player) -> str | None:
        return licence_reader(self.context).licence(value)


extend_schema_field({"type": "string", "nullable": True})(LicenceField)


class PersonSerializer(serializers.ModelSerializer):
    """A player, short."""

    name = serializers.CharField(source="full_name", read_only=True)
    licence = LicenceField()

    class Meta:
        model = Player
        fields = ["id", "name", "licence", "club"]


# --- clubs and players -----------------------------------------------------------------------


class ClubSerializer(serializers.ModelSerializer):
    class Meta:
        model = Club
        fields = ["id", "name", "federation_number", "city"]


class ClubWriteSerializer(serializers.ModelSerializer):
    """A new club; its creator becomes its organiser."""

    class Meta:
        model = Club
        fields = ["name", "federation_number", "city"]


class AccountWriteSerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=150, help_text="What the person types to log in (letters, digits, @.+-_)."
    )
    first_name = serializers.CharField(max_length=150, required=False, default="")
    last_name = serializers.CharField(max_length=150, required=False, default="")
    role = serializers.ChoiceField(
        choices=["arbiter", "organiser"],
        help_text="`organiser`: organises the club; `arbiter`: may be named arbiter of its "
        "tournaments.",
    )
    tournaments = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=999_999_999),
        required=False,
        default=list,
        max_length=100,
        help_text="For an arbiter: ids of the club's tournaments they are named arbiter of.",
    )


class AccountCreatedSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.CharField()
    tournaments = serializers.ListField(child=serializers.IntegerField())
    set_password_url = serializers.CharField(
        help_text="The one-time link where the new user chooses their password (valid once, for "
        "`PASSWORD_RESET_TIMEOUT` seconds). Shown only in this answer."
    )


class PlayerSerializer(serializers.ModelSerializer):
    club_name = serializers.CharField(source="club.name", read_only=True)
    licence = LicenceField()

    class Meta:
        model = Player
        fields = ["id", "first_name", "last_name", "licence", "club", "club_name"]


class PlayerWriteSerializer(serializers.Serializer):
    club = serializers.PrimaryKeyRelatedField(queryset=Club.objects.all())
    licence = serializers.CharField(max_length=20, help_text="7 digits, e.g. 0123456.")
    last_name = serializers.CharField(max_length=80, validators=[validate_plain_text])
    first_name = serializers.CharField(max_length=80, validators=[validate_plain_text])


class PlayerUpdateSerializer(serializers.Serializer):
    licence = serializers.CharField(max_length=20, required=False)
    last_name = serializers.CharField(
        max_length=80, required=False, validators=[validate_plain_text]
    )
    first_name = serializers.CharField(
        max_length=80, required=False, validators=[validate_plain_text]
    )


class PlayersImportSerializer(serializers.Serializer):
    csv = serializers.CharField(
        max_length=2_000_000,
        trim_whitespace=False,
        help_text="The CSV text: header `licence,last_name,first_name` (or `licence,nom,prenom`), "
        "`,` or `;` separated.",
    )


class ImportReportSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()


# --- tournaments -----------------------------------------------------------------------------


class TournamentSerializer(serializers.ModelSerializer):
    club_name = serializers.CharField(source="club.name", read_only=True)
    arbiters = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "id",
            "club",
            "club_name",
            "name",
            "date",
            "venue",
            "rounds",
            "donnes_per_relais",
            "method",
            "matchpoint_penalty_rate",
            "status",
            "claims_window_minutes",
            "claims_close_at",
            "final_at",
            "arbiters",
            "identity",
            "commitment",
            "seed",
            "seed_revealed_at",
            "results_version",
            "created_at",
        ]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_arbiters(self, obj: Tournament) -> list[str]:
        """User names for the tournament's organisers and arbiters (they name arbiters by
        them); everyone else gets the arbiters' full names, never a login name."""
        arbiters = list(obj.arbiters.all())
        if self._viewer_manages(obj, arbiters):
            return sorted(u.get_username() for u in arbiters)
        return sorted(name for u in arbiters if (name := u.get_full_name().strip()))

    def _viewer_manages(self, obj: Tournament, arbiters: list[Any]) -> bool:
        """Whether the caller (the context's request) manages ``obj``; no request: no. The
        clubs he organises are read once per answer (a list of tournaments too)."""
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return False
        if user.is_superuser or any(u.pk == user.pk for u in arbiters):
            return True
        cache = self.context.setdefault("_organised_clubs", {})
        if user.pk not in cache:
            cache[user.pk] = set(user.organised_clubs.values_list("pk", flat=True))
        return obj.club_id in cache[user.pk]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_seed(self, obj: Tournament) -> str | None:
        """The seed is secret until revealed after the event (RULES.md §2)."""
        return obj.seed if obj.seed_revealed_at is not None else None


class TournamentWriteSerializer(serializers.Serializer):
    club = serializers.PrimaryKeyRelatedField(queryset=Club.objects.all())
    name = serializers.CharField(max_length=160, validators=[validate_plain_text])
    date = serializers.DateField()
    venue = serializers.CharField(
        max_length=200,
        required=False,
        allow_blank=True,
        default="",
        validators=[validate_plain_text],
    )
    rounds = serializers.IntegerField(min_value=1, max_value=30, default=4)
    donnes_per_relais = serializers.IntegerField(min_value=1, max_value=8, default=4)
    method = serializers.ChoiceField(choices=Method.choices, default=Method.AVERAGE)
    matchpoint_penalty_rate = serializers.DecimalField(
        max_digits=6, decimal_places=3, min_value=Decimal(0), default=Decimal("0.1")
    )
    claims_window_minutes = serializers.IntegerField(
        min_value=0,
        max_value=1440,
        default=30,
        help_text="Minutes after the last round closes during which claims are taken (the "
        "ranking is provisional until then); 0: final at once.",
    )
    arbiters = serializers.ListField(
        child=serializers.CharField(max_length=150),
        max_length=50,
        required=False,
        help_text="User names of the tournament's arbiters: the club's own organisers and "
        "arbiters only.",
    )


class TournamentUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=160, required=False, validators=[validate_plain_text])
    date = serializers.DateField(required=False)
    venue = serializers.CharField(
        max_length=200, required=False, allow_blank=True, validators=[validate_plain_text]
    )
    rounds = serializers.IntegerField(min_value=1, max_value=30, required=False)
    donnes_per_relais = serializers.IntegerField(min_value=1, max_value=8, required=False)
    method = serializers.ChoiceField(choices=Method.choices, required=False)
    matchpoint_penalty_rate = serializers.DecimalField(
        max_digits=6, decimal_places=3, min_value=Decimal(0), required=False
    )
    claims_window_minutes = serializers.IntegerField(
        min_value=0,
        max_value=1440,
        required=False,
        help_text="Minutes after the last round closes during which claims are taken (the "
        "ranking is provisional until then); 0: final at once.",
    )
    arbiters = serializers.ListField(
        child=serializers.CharField(max_length=150),
        max_length=50,
        required=False,
        help_text="User names of the tournament's arbiters: the club's own organisers and "
        "arbiters only.",
    )


class TournamentStatusSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    confirm_missing = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Publish although results are missing, or finish a running tournament "
        "although results are missing or a round is open (the answer without it lists them).",
    )


class GenerateSerializer(serializers.Serializer):
    seed = serializers.CharField(
        max_length=128,
        required=False,
        allow_blank=True,
        help_text="Optional: 64 hex digits. Without it a secret seed is drawn (or kept).",
    )


# --- registrations ---------------------------------------------------------------------------


class RegistrationSerializer(serializers.ModelSerializer):
    player = PersonSerializer(read_only=True)
    checked_in = serializers.BooleanField(read_only=True)

    class Meta:
        model = Registration
        fields = ["player", "registered_at", "checked_in", "checked_in_at"]


class RegistrationWriteSerializer(serializers.Serializer):
    """One player (``player``) or several in one go (``players``), not both."""

    player = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), required=False, help_text="Register this player."
    )
    players = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=999_999_999),
        required=False,
        min_length=1,
        max_length=500,
        help_text="Register these players, all or none: a refusal names each refused player.",
    )
    checked_in = serializers.BooleanField(default=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("player" in attrs) == ("players" in attrs):
            raise serializers.ValidationError(
                _("Send either player (one id) or players (a list of ids).")
            )
        if "players" in attrs:
            ids = attrs["players"]
            found = {p.pk: p for p in Player.objects.filter(pk__in=ids)}
            unknown = [pk for pk in ids if pk not in found]
            if unknown:
                raise serializers.ValidationError(
                    {"players": [_("No player has the id %(id)s.") % {"id": pk} for pk in unknown]}
                )
            attrs["players"] = [found[pk] for pk in ids]
        return attrs


class RegistrationsCreatedSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    registrations = RegistrationSerializer(many=True)


class CountSerializer(serializers.Serializer):
    count = serializers.IntegerField()


# --- structure: rounds, tables, seats, étuis, donnes ----------------------------------------


class RoundSerializer(serializers.ModelSerializer):
    class Meta:
        model = Round
        fields = ["number", "state"]


class RoundOpenSerializer(serializers.Serializer):
    confirm_open = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Open it although an earlier round is still open (the answer without it "
        "names them).",
    )


class RoundCloseSerializer(serializers.Serializer):
    annul_missing = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Annul every donne the round misses (no result, or a table's entry not "
        "counting yet) with `reason`, then close it: all or nothing.",
    )
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=300,
        help_text="Why the missing donnes are annulled (written in the ledger).",
    )


class RoundClosedSerializer(RoundSerializer):
    annulled = serializers.IntegerField(help_text="How many missing donnes were annulled.")

    class Meta(RoundSerializer.Meta):
        fields = ["number", "state", "annulled"]


class MissingCellSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    donne = serializers.IntegerField()
    reason = serializers.CharField()


class TableSitOutSerializer(serializers.Serializer):
    round = serializers.IntegerField(help_text="The round.")
    etui_set = serializers.IntegerField(help_text="The étui set the table plays in that round.")
    order = serializers.CharField(
        help_text="The position that sits out each donne of the relais, in order (e.g. `NESF`)."
    )


class TableSerializer(serializers.ModelSerializer):
    sit_outs = serializers.SerializerMethodField(
        help_text="At a table of five, who sits out each donne, round by round, by position "
        "(RULES §7; the seats name the players). Empty at a table of four."
    )

    class Meta:
        model = Table
        fields = ["number", "size", "sit_outs"]

    @extend_schema_field(TableSitOutSerializer(many=True))
    def get_sit_outs(self, obj: Table) -> list[dict[str, Any]]:
        rows = sorted(obj.table_rounds.all(), key=lambda tr: tr.round.number)
        return [
            {"round": tr.round.number, "etui_set": tr.etui_set.number, "order": tr.sit_outs}
            for tr in rows
            if tr.sit_outs
        ]


class SeatSerializer(serializers.ModelSerializer):
    round = serializers.IntegerField(source="round.number", read_only=True)
    table = serializers.IntegerField(source="table_round.table.number", read_only=True)
    etui_set = serializers.IntegerField(source="table_round.etui_set.number", read_only=True)
    position = serializers.ChoiceField(choices=SeatPosition.choices, read_only=True)
    player = PersonSerializer(read_only=True)
    sit_out_order = serializers.CharField(
        source="table_round.sit_outs",
        read_only=True,
        help_text="At a table of five, the position that sits out each donne of the relais, in "
        "order (e.g. `NESF`); empty at a table of four. Known before play (RULES §7).",
    )
    sits_out = serializers.SerializerMethodField(
        help_text="The donnes this player sits out at this seat (empty if none)."
    )

    class Meta:
        model = Seat
        fields = ["round", "table", "etui_set", "position", "player", "sit_out_order", "sits_out"]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_sits_out(self, obj: Seat) -> list[int]:
        table_round = obj.table_round
        first = 4 * table_round.etui_set.number - 3
        return [first + k for k, role in enumerate(table_round.sit_outs) if role == obj.position]


class EtuiSetSerializer(serializers.ModelSerializer):
    donnes = serializers.SerializerMethodField()

    class Meta:
        model = EtuiSet
        fields = ["number", "donnes"]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_donnes(self, obj: EtuiSet) -> list[int]:
        return sorted(d.number for d in obj.donnes.all())


class HandsSerializer(serializers.Serializer):
    N = serializers.CharField()
    E = serializers.CharField()
    S = serializers.CharField()
    W = serializers.CharField()
    chien = serializers.CharField()


class DonneSerializer(serializers.ModelSerializer):
    """A donne; its hands only for those who may see them (see ``hands_visible``)."""

    etui_set = serializers.IntegerField(source="etui_set.number", read_only=True)
    complete = serializers.SerializerMethodField(
        help_text="Every table scheduled to play it has a result or an annulment."
    )
    hands_visible = serializers.SerializerMethodField()
    hands = serializers.SerializerMethodField(
        help_text="Hands in the notation of docs/formats.md; null while hidden from you: until "
        "every table has played the donne, only arbiters and organisers see them."
    )

    class Meta:
        model = Donne
        fields = ["number", "etui_set", "dealer", "complete", "hands_visible", "hands"]

    def _complete(self, obj: Donne) -> bool:
        return obj.pk in self.context.get("complete_ids", set())

    def get_complete(self, obj: Donne) -> bool:
        return self._complete(obj)

    def get_hands_visible(self, obj: Donne) -> bool:
        return bool(self.context.get("can_manage")) or self._complete(obj)

    @extend_schema_field(HandsSerializer(allow_null=True))
    def get_hands(self, obj: Donne) -> dict[str, str] | None:
        if not self.get_hands_visible(obj):
            return None
        return {**{p: obj.hand(p) for p in POSITIONS}, "chien": obj.chien}


# --- results -----------------------------------------------------------------------------------

POSITION_CHOICES = Position.choices
POIGNEE_CHOICES = PoigneeSize.choices


class ScoresSerializer(serializers.Serializer):
    N = serializers.IntegerField()
    E = serializers.IntegerField()
    S = serializers.IntegerField()
    W = serializers.IntegerField()


class ResultSerializer(serializers.ModelSerializer):
    """A table's result on a donne, with the scores the service computed."""

    table = serializers.IntegerField(source="table.number", read_only=True)
    donne = serializers.IntegerField(source="donne.number", read_only=True)
    round = serializers.IntegerField(source="table_round.round.number", read_only=True)
    points = serializers.DecimalField(
        max_digits=3, decimal_places=1, coerce_to_string=False, allow_null=True, read_only=True
    )
    poignees = serializers.DictField(
        child=serializers.ChoiceField(choices=POIGNEE_CHOICES),
        help_text="Position → poignée size shown by that player.",
    )
    scores = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Position → score (empty when annulled; 0 for all when all passed).",
    )
    holders = serializers.DictField(
        child=serializers.IntegerField(), help_text="Position → id of the player who held it."
    )
    confirmed_warnings = serializers.ListField(child=serializers.CharField())
    updated_by = serializers.CharField(
        source="updated_by.username",
        read_only=True,
        allow_null=True,
        help_text="User name of who saved it last; null for those who do not manage the "
        "tournament.",
    )

    class Meta:
        model = Result
        fields = [
            "id",
            "table",
            "donne",
            "round",
            "status",
            "taker",
            "contract",
            "bouts",
            "points",
            "petit_au_bout",
            "poignees",
            "chelem",
            "scores",
            "holders",
            "sitter",
            "confirmed_warnings",
            "annul_reason",
            "version",
            "updated_by",
            "created_at",
            "updated_at",
        ]

    def to_representation(self, instance: Result) -> dict[str, Any]:
        data = super().to_representation(instance)
        if self.context.get("hide_users"):
            data["updated_by"] = None
        return data


_RESULT_TEMPLATE: list[ResultSerializer] = []


def result_data(result: Result, *, hide_users: bool = False) -> dict[str, Any]:
    """``ResultSerializer(result).data``, written out: the answer to every write, and to a
    read (``hide_users`` for callers who do not manage the tournament: no user name).

    A ModelSerializer builds its fields for every instance, and walks them (a source lookup
    and a conversion per field) for every answer: together more than the rest of the
    answer. Here the plain values are read directly and the dates and points converted by
    the serializer's own fields, built once (they keep no state between calls; the time
    zone is read when called). tests/tournaments/api/test_result_data.py holds it to the serializer.
    """
    if not _RESULT_TEMPLATE:
        _RESULT_TEMPLATE.append(ResultSerializer())
    fields = _RESULT_TEMPLATE[0].fields
    moment = fields["created_at"].to_representation
    return {
        "id": result.pk,
        "table": int(result.table.number),
        "donne": int(result.donne.number),
        "round": int(result.table_round.round.number),
        "status": _choice(result.status),
        "taker": _choice(result.taker),
        "contract": _choice(result.contract),
        "bouts": None if result.bouts is None else int(result.bouts),
        "points": None
        if result.points is None
        else fields["points"].to_representation(result.points),
        "petit_au_bout": _choice(result.petit_au_bout),
        "poignees": None
        if result.poignees is None
        else {str(k): _choice(v) for k, v in result.poignees.items()},
        "chelem": _choice(result.chelem),
        "scores": _ints(result.scores),
        "holders": _ints(result.holders),
        "sitter": result.sitter_id,
        "confirmed_warnings": None
        if result.confirmed_warnings is None
        else [None if w is None else str(w) for w in result.confirmed_warnings],
        "annul_reason": None if result.annul_reason is None else str(result.annul_reason),
        "version": int(result.version),
        "updated_by": None if hide_users else str(result.updated_by.username),
        "created_at": moment(result.created_at),
        "updated_at": moment(result.updated_at),
    }


def _choice(value: Any) -> Any:
    """A choice as DRF's ChoiceField answers it (its key: the stored text)."""
    return value if value in ("", None) else str(value)


def _ints(values: Any) -> dict[str, Any] | None:
    """A DictField of integers as DRF answers it."""
    if values is None:
        return None
    return {str(k): None if v is None else int(v) for k, v in values.items()}


class ConflictSerializer(ErrorSerializer):
    """409/412: someone changed the result first; nothing was saved."""

    version = serializers.IntegerField(help_text="The current version.")
    current = ResultSerializer(help_text="The current result: compare, then send again.")


class ResultEntrySerializer(serializers.Serializer):
    """What the score sheet says. Only types are checked here; the rules and the cards are
    checked by the same service as the arbiter's form."""

    #: Its fields keep no state and read no context: ApiView.valid builds them once.
    fields_built_once = True

    status = serializers.ChoiceField(choices=ENTRY_STATUSES, default="played")
    taker = serializers.ChoiceField(choices=POSITION_CHOICES, required=False, allow_blank=True)
    contract = serializers.ChoiceField(choices=Contract.choices, required=False, allow_blank=True)
    bouts = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)
    points = serializers.DecimalField(
        max_digits=4,
        decimal_places=1,
        required=False,
        allow_null=True,
        coerce_to_string=False,
        help_text="The attack's points, 0 to 91, halves allowed (40.5).",
    )
    petit_au_bout = serializers.ChoiceField(
        choices=PetitAuBout.choices, required=False, allow_blank=True
    )
    poignees = serializers.DictField(
        child=serializers.ChoiceField(choices=POIGNEE_CHOICES, allow_blank=True),
        required=False,
        help_text='Position → size, e.g. {"N": "simple"}.',
    )
    chelem = serializers.ChoiceField(choices=Chelem.choices, required=False, allow_blank=True)
    confirm = serializers.ListField(
        child=serializers.ChoiceField(choices=[(c, c) for c in WARNING_CODES]),
        required=False,
        help_text="Codes of the warnings you confirm (see the 422 answer's `warnings`).",
    )
    reason = serializers.CharField(
        max_length=300,
        required=False,
        allow_blank=True,
        help_text="Required to correct.",
        validators=[validate_free_text],
    )

    def validate_poignees(self, value: dict[str, str]) -> dict[str, str]:
        unknown = [p for p in value if p not in POSITIONS]
        if unknown:
            raise serializers.ValidationError(
                _("A poignée belongs to N, E, S or W (not %(value)s).")
                % {"value": ", ".join(sorted(unknown))}
            )
        return value

    def to_input(self) -> Any:
        from tournaments.services.results import ResultInput

        data = self.validated_data
        if data.get("status") == "all_passed":
            return ResultInput(
                status="all_passed",
                taker=data.get("taker") or "",
                contract=data.get("contract") or "",
                bouts=data.get("bouts"),
                points=data.get("points"),
                petit_au_bout=data.get("petit_au_bout") or "",
                poignees={p: s for p, s in (data.get("poignees") or {}).items() if s},
                chelem=data.get("chelem") or "",
            )
        return ResultInput(
            status="played",
            taker=data.get("taker") or "",
            contract=data.get("contract") or "",
            bouts=data.get("bouts"),
            points=data.get("points"),
            petit_au_bout=data.get("petit_au_bout") or "",
            poignees={p: s for p, s in (data.get("poignees") or {}).items() if s},
            chelem=data.get("chelem") or "",
        )


class ResultWriteSerializer(ResultEntrySerializer):
    version = serializers.IntegerField(
        min_value=1,
        max_value=MAX_INT,
        required=False,
        allow_null=True,
        help_text="The version you are correcting (or send If-Match). Absent for a new result.",
    )


class ResultCreateSerializer(ResultWriteSerializer):
    table = serializers.IntegerField(min_value=1, max_value=MAX_INT)
    donne = serializers.IntegerField(min_value=1, max_value=MAX_INT)


class ResultPreviewRequestSerializer(ResultEntrySerializer):
    table = serializers.IntegerField(min_value=1, max_value=MAX_INT)
    donne = serializers.IntegerField(min_value=1, max_value=MAX_INT)


class ResultPreviewSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    scores = serializers.DictField(child=serializers.IntegerField())
    parts = serializers.DictField(child=serializers.IntegerField())
    won = serializers.BooleanField(allow_null=True)
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    missing = serializers.ListField(child=serializers.CharField())
    warnings = serializers.DictField(child=serializers.CharField())


class AnnulSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=300, allow_blank=True, validators=[validate_free_text]
    )
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_INT, required=False, allow_null=True
    )


# --- penalties and ledger ----------------------------------------------------------------------


class PenaltySerializer(serializers.ModelSerializer):
    player = PersonSerializer(read_only=True)
    donne = serializers.IntegerField(source="donne.number", read_only=True, allow_null=True)
    given_by = serializers.CharField(source="given_by.username", read_only=True)
    withdrawn_by = serializers.CharField(
        source="withdrawn_by.username", read_only=True, allow_null=True
    )
    active = serializers.BooleanField(read_only=True)

    class Meta:
        model = Penalty
        fields = [
            "id",
            "player",
            "donne",
            "kind",
            "points",
            "reason",
            "active",
            "given_by",
            "given_at",
            "withdrawn_at",
            "withdrawn_by",
            "withdrawal_reason",
        ]


class PenaltyWriteSerializer(serializers.Serializer):
    player = serializers.IntegerField(min_value=1, max_value=MAX_INT, help_text="Player id.")
    kind = serializers.ChoiceField(choices=Penalty.Kind.choices)
    points = serializers.IntegerField(
        min_value=0, max_value=MAX_INT, required=False, allow_null=True
    )
    reason = serializers.CharField(
        max_length=300,
        required=False,
        allow_blank=True,
        default="",
        validators=[validate_free_text],
    )
    donne = serializers.IntegerField(
        min_value=1, max_value=MAX_INT, required=False, allow_null=True, help_text="Donne number."
    )


class WithdrawSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=300, allow_blank=True, validators=[validate_free_text]
    )


class LedgerChangeSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="The field's code.")
    field_display = serializers.CharField(help_text="Its name, in the request's language.")
    before = serializers.JSONField(allow_null=True, help_text="The raw value before.")
    before_display = serializers.CharField()
    after = serializers.JSONField(allow_null=True, help_text="The raw value after.")
    after_display = serializers.CharField()


class LedgerEntrySerializer(serializers.ModelSerializer):
    """An entry as stored (codes, raw values) and in words, in the request's language
    (`tournaments.ledger_text`)."""

    actor = serializers.CharField(source="actor.username", read_only=True, allow_null=True)
    round = serializers.IntegerField(
        source="round.number", read_only=True, allow_null=True, help_text="Round number."
    )
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)
    reason = serializers.CharField(read_only=True, help_text="What the person typed, as typed.")
    reason_code = serializers.CharField(
        read_only=True, help_text="A reason the software gave (then reason is empty)."
    )
    reason_params = serializers.JSONField(read_only=True, allow_null=True)
    reason_display = serializers.SerializerMethodField(help_text="The reason in words.")
    action_display = serializers.SerializerMethodField(help_text="The action in words.")
    changes = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField(help_text='"Field: before → after; …"')

    class Meta:
        model = LedgerEntry
        fields = [
            "id",
            "at",
            "action",
            "action_display",
            "actor",
            "reason",
            "reason_code",
            "reason_params",
            "reason_display",
            "result",
            "penalty",
            "round",
            "player",
            "by_player",
            "before",
            "after",
            "changes",
            "summary",
        ]

    def _text(self, entry: LedgerEntry) -> LedgerText:
        cache = self.context.setdefault("ledger_text", {})
        if entry.pk not in cache:
            cache[entry.pk] = entry_text(entry)
        return cache[entry.pk]

    def get_action_display(self, entry: LedgerEntry) -> str:
        return self._text(entry).action_display

    def get_reason_display(self, entry: LedgerEntry) -> str:
        return self._text(entry).reason

    @extend_schema_field(LedgerChangeSerializer(many=True))
    def get_changes(self, entry: LedgerEntry) -> list[dict[str, Any]]:
        return [asdict(change) for change in self._text(entry).changes]

    def get_summary(self, entry: LedgerEntry) -> str:
        return self._text(entry).summary


# --- rankings, score cards, travellers -------------------------------------------------------


class RankingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    tied = serializers.BooleanField()
    player = PersonSerializer()
    total = serializers.FloatField(help_text="Rounded to 2 decimals; see total_exact.")
    total_exact = serializers.CharField(help_text='Exact, as a fraction "n/d".')
    differential_total = serializers.CharField(help_text='Exact, as a fraction "n/d".')
    penalty_points = serializers.IntegerField()
    donnes_played = serializers.IntegerField()
    donnes_compared = serializers.IntegerField()


class RankingSerializer(serializers.Serializer):
    method = serializers.ChoiceField(choices=Method.choices)
    matchpoint_penalty_rate = serializers.CharField()
    version = serializers.IntegerField(
        allow_null=True, help_text="The results version this ranking was computed from."
    )
    results_version = serializers.IntegerField(help_text="The tournament's results version now.")
    is_current = serializers.BooleanField(
        help_text="False while a saved change is not in the ranking yet (being updated)."
    )
    computed_at = serializers.DateTimeField(allow_null=True)
    audience = serializers.ChoiceField(
        choices=["room", "provisional", "final"],
        help_text="room: complete donnes only (players and the public during play); "
        "provisional: every result entered (arbiters and organisers during play); final: "
        "the tournament is finished.",
    )
    complete_donnes = serializers.IntegerField(
        help_text="Donnes every scheduled table had played when the ranking was computed."
    )
    donnes = serializers.IntegerField(help_text="The tournament's donnes.")
    rows = RankingRowSerializer(many=True)


class ScoreCardLineSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    donne = serializers.IntegerField()
    table = serializers.IntegerField(allow_null=True)
    position = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=CARD_LINE_STATUSES)
    taker = serializers.CharField(allow_blank=True)
    contract = serializers.CharField(allow_blank=True)
    all_passed = serializers.BooleanField()
    scores = serializers.DictField(child=serializers.IntegerField(allow_null=True))
    score = serializers.CharField(allow_null=True)
    differential = serializers.CharField(allow_null=True, help_text='Exact, "n/d".')
    percentage = serializers.CharField(allow_null=True)
    group_size = serializers.IntegerField()
    running_total = serializers.CharField(allow_null=True)
    traveller_visible = serializers.BooleanField()
    entered = serializers.BooleanField(
        help_text="A result is saved but not in the ranking yet (being updated)."
    )
    hidden = serializers.BooleanField(
        help_text="Another player's donne that some tables have still to play: not shown."
    )


class ScoreCardSerializer(serializers.Serializer):
    player = PersonSerializer()
    method = serializers.ChoiceField(choices=Method.choices)
    is_current = serializers.BooleanField()
    computed_at = serializers.DateTimeField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    field_size = serializers.IntegerField()
    total = serializers.CharField(allow_null=True)
    penalty_points = serializers.IntegerField()
    lines = ScoreCardLineSerializer(many=True)


class TravellerValueSerializer(serializers.Serializer):
    position = serializers.ChoiceField(choices=POSITION_CHOICES)
    player = PersonSerializer(allow_null=True)
    score = serializers.IntegerField(allow_null=True)
    differential = serializers.CharField(allow_null=True)
    percentage = serializers.CharField(allow_null=True)


class TravellerRowSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Result.Status.choices)
    taker = serializers.CharField(allow_blank=True)
    contract = serializers.CharField(allow_blank=True)
    sitter = PersonSerializer(allow_null=True)
    cells = TravellerValueSerializer(many=True)


class OutcomeSerializer(serializers.Serializer):
    label = serializers.CharField()
    scores = serializers.DictField(child=serializers.IntegerField())
    tables = serializers.IntegerField()
    share = serializers.IntegerField()


class TravellerSerializer(serializers.Serializer):
    donne = serializers.IntegerField()
    method = serializers.ChoiceField(choices=Method.choices)
    complete = serializers.BooleanField()
    missing_tables = serializers.ListField(child=serializers.IntegerField())
    hands = HandsSerializer()
    rows = TravellerRowSerializer(many=True)
    distribution = OutcomeSerializer(many=True)


# --- authentication ----------------------------------------------------------------------------


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()
    created = serializers.DateTimeField()


class MeSerializer(serializers.Serializer):
    username = serializers.CharField(allow_null=True)
    authenticated = serializers.BooleanField()
    player = serializers.IntegerField(allow_null=True)
    organised_clubs = serializers.ListField(child=serializers.IntegerField())
    arbitrated_tournaments = serializers.ListField(child=serializers.IntegerField())
    has_token = serializers.BooleanField()
