"""Errors raised by the pure scoring code, translatable later without importing Django here.

Each error carries a stable ``code``, the input ``field`` it is about, an English ``template``
with ``%(name)s`` placeholders and the ``params`` to fill it; ``str(err)`` is the English message.
A param that is itself words (e.g. "The chien") is a ``Message``: English text that keeps its
own marked template and params. The Django layer translates the template and every such param
in one place, ``tournaments.services.errors.translate_error``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar

__all__ = [
    "InvalidBouts",
    "InvalidCalledSelf",
    "InvalidChelem",
    "InvalidContract",
    "InvalidMethod",
    "InvalidPenalty",
    "InvalidPetitAuBout",
    "InvalidPlayers",
    "InvalidPlays",
    "InvalidPoignees",
    "InvalidPoints",
    "InvalidScore",
    "Message",
    "Plural",
    "ScoringError",
    "display_value",
    "english",
    "ngettext",
]


def _(message: str) -> str:
    """Mark a string for translation (makemessages extracts it) without importing Django."""
    return message


class Plural(str):
    """A message template with a singular and a plural form, chosen by the whole number in the
    param named ``count`` (e.g. "bouts"). As a str it is the plural form; ``english(template,
    params)`` picks the English form (singular when the count is 1), and the Django layer picks
    the active language's form with ``ngettext`` (French: singular for 0 and 1)."""

    singular: str
    plural: str
    count: str

    def __new__(cls, singular: str, plural: str, count: str) -> Plural:
        self = super().__new__(cls, plural)
        self.singular = singular
        self.plural = plural
        self.count = count
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (Plural, (self.singular, self.plural, self.count))

    def __repr__(self) -> str:
        return f"Plural({self.singular!r}, {self.plural!r}, count={self.count!r})"

    def form(self, params: Mapping[str, Any]) -> str:
        """The English form for these params: singular when the count is 1."""
        return self.singular if params.get(self.count) == 1 else self.plural


def ngettext(singular: str, plural: str, count: str) -> Plural:
    """Mark a singular/plural pair for translation (makemessages extracts ``ngettext(s, p, …)``)
    without importing Django: ``count`` is the name of the param holding the number, given
    when the message is raised; ``tournaments.services.errors.translate_error`` calls Django's
    ``ngettext`` with that number."""
    return Plural(singular, plural, count)


def english(template: str, params: Mapping[str, Any]) -> str:
    """A template filled with its params in English (the right form of a ``Plural``)."""
    text = template.form(params) if isinstance(template, Plural) else template
    return text % params if params else text


def display_value(value: Any) -> str:
    """Render an input value for a message: numbers plainly (40.5), anything else quoted."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        if value.denominator == 2:
            return str(Decimal(value.numerator) / 2)
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


class Message(str):
    """Words for a message param, built in a pure module: a str (the English text, so
    ``str(err)`` and comparisons are unchanged) that keeps its marked ``template`` and ``params``
    so the Django layer can translate it too. Params may themselves be Messages."""

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, **params: Any) -> Message:
        self = super().__new__(cls, english(template, params))
        self.template = template
        self.params = params
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_message, (self.template, self.params))

    def __repr__(self) -> str:
        return f"Message({str(self)!r})"


def _rebuild_message(template: str, params: dict[str, Any]) -> Message:
    return Message(template, **params)


class ScoringError(ValueError):
    """Base class: an input the rules make impossible; says what is wrong and how to fix it."""

    field: ClassVar[str] = ""
    templates: ClassVar[Mapping[str, str]] = {}

    def __init__(self, code: str, template: str | None = None, **params: Any) -> None:
        self.code = code
        if template is None:
            template = self.templates.get(code, code)
        self.template = template
        self.params: dict[str, Any] = params
        super().__init__(english(self.template, self.params))

    def __str__(self) -> str:
        return english(self.template, self.params)

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep errors picklable (Celery, multiprocessing): the default reduce loses params.
        return (_rebuild, (type(self), self.code, self.template, self.params))

    def message(self) -> Message:
        """This error's text as a Message, to put inside another error's params."""
        return Message(self.template, **self.params)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, field={self.field!r}, {str(self)!r})"


def _rebuild(
    cls: type[ScoringError], code: str, template: str, params: dict[str, Any]
) -> ScoringError:
    return cls(code, template, **params)


class InvalidPlayers(ScoringError):
    field = "players"
    templates = {
        "players_invalid": _(
            "A table has 3, 4 or 5 players; %(value)s is not possible. Enter 3, 4 or 5."
        ),
    }


class InvalidContract(ScoringError):
    field = "contract"
    templates = {
        "contract_unknown": _(
            "Unknown contract %(value)s. Choose prise, garde, garde_sans or garde_contre."
        ),
    }


class InvalidBouts(ScoringError):
    field = "bouts"
    templates = {
        "bouts_not_integer": _(
            "The number of bouts must be a whole number from 0 to 3; %(value)s is not. "
            "Enter 0, 1, 2 or 3."
        ),
        "bouts_out_of_range": _(
            "The attack holds 0, 1, 2 or 3 bouts; %(value)s is impossible. Enter 0, 1, 2 or 3."
        ),
    }


class InvalidPoints(ScoringError):
    field = "points"
    templates = {
        "points_not_a_number": _(
            "The attack's points must be a number such as 40 or 40.5; %(value)s is not. "
            "Enter the points counted by the attack."
        ),
        "points_out_of_range": _(
            "The attack's points must be between 0 and 91; %(value)s is outside. "
            "Check the count: the two camps together always have 91 points."
        ),
        "points_not_half": _(
            "Points are counted to the half point; %(value)s is not a multiple of 0.5. "
            "Check the count."
        ),
        "points_impossible_for_bouts": ngettext(
            "With %(bouts)s bout the attack has between %(min)s and %(max)s points; "
            "%(value)s is impossible. Check the bouts or the points.",
            "With %(bouts)s bouts the attack has between %(min)s and %(max)s points; "
            "%(value)s is impossible. Check the bouts or the points.",
            "bouts",
        ),
    }


class InvalidPetitAuBout(ScoringError):
    field = "petit_au_bout"
    templates = {
        "petit_au_bout_unknown": _(
            "Unknown petit au bout value %(value)s. Use attack or defence, or leave it empty "
            "when the Petit was not played in the last trick."
        ),
        "petit_au_bout_attack_no_bout": _(
            "A petit au bout won by the attack means the attack owns the Petit, a bout; "
            "0 bouts is impossible. Check the bouts or the petit au bout."
        ),
        "petit_au_bout_defence_three_bouts": _(
            "A petit au bout won by the defence means the defence owns the Petit; the attack "
            "cannot have 3 bouts. Check the bouts or the petit au bout."
        ),
        "petit_au_bout_defence_chelem_made": _(
            "A chelem made by the attack means the defence took no trick, so the petit au bout "
            "cannot go to the defence. Check the chelem or the petit au bout."
        ),
        "petit_au_bout_attack_chelem_defence": _(
            "A chelem made by the defence means the attack took no trick, so the petit au bout "
            "cannot go to the attack. Check the chelem or the petit au bout."
        ),
    }


class InvalidPoignees(ScoringError):
    field = "poignees"
    templates = {
        "poignees_not_a_list": _(
            "The poignées must be a list of sizes (simple, double, triple); %(value)s is not. "
            "Give one size per poignée shown."
        ),
        "poignee_unknown": _("Unknown poignée %(value)s. Use simple, double or triple."),
        "poignees_too_many": _(
            "%(count)s poignées at a table of %(players)s players: each player shows at most "
            "one. Remove the extra poignées."
        ),
    }


class InvalidChelem(ScoringError):
    field = "chelem"
    templates = {
        "chelem_unknown": _(
            "Unknown chelem value %(value)s. Use announced_made, unannounced_made, "
            "announced_failed or defence, or leave it empty."
        ),
        "chelem_made_but_lost": ngettext(
            "A chelem made by the attack means the contract is won, but %(points)s points with "
            "%(bouts)s bout is lost (%(threshold)s needed). Check the chelem or the points.",
            "A chelem made by the attack means the contract is won, but %(points)s points with "
            "%(bouts)s bouts is lost (%(threshold)s needed). Check the chelem or the points.",
            "bouts",
        ),
        "chelem_defence_but_won": ngettext(
            "A chelem made by the defence means the contract is lost, but %(points)s points with "
            "%(bouts)s bout is won (%(threshold)s needed). Check the chelem or the points.",
            "A chelem made by the defence means the contract is lost, but %(points)s points with "
            "%(bouts)s bouts is won (%(threshold)s needed). Check the chelem or the points.",
            "bouts",
        ),
        "chelem_made_too_few_bouts": _(
            "A chelem made by the attack (%(contract)s) gives the attack every card but "
            "possibly the Excuse: at least 2 bouts, not %(bouts)s. Check the chelem or the bouts."
        ),
        "chelem_made_too_few_points": _(
            "A chelem made by the attack (%(contract)s) gives the attack every card but "
            "possibly the Excuse: at least 86.5 points, not %(points)s. "
            "Check the chelem or the points."
        ),
        "chelem_defence_too_many_bouts": _(
            "A chelem made by the defence (%(contract)s) leaves the attack at most its écart "
            "and the Excuse: at most 1 bout, not %(bouts)s. Check the chelem or the bouts."
        ),
        "chelem_defence_too_many_points": _(
            "A chelem made by the defence (%(contract)s) leaves the attack at most its écart "
            "and the Excuse: at most 23.5 points, not %(points)s. "
            "Check the chelem or the points."
        ),
    }


class InvalidCalledSelf(ScoringError):
    field = "called_self"
    templates = {
        "called_self_invalid": _("'Own king called' must be yes or no; %(value)s is not."),
        "called_self_not_five": _(
            "Only at 5 players does the taker call a king; this table has %(players)s players. "
            "Untick 'own king called'."
        ),
    }


class InvalidMethod(ScoringError):
    field = "method"
    templates = {
        "method_unknown": _(
            "Unknown comparison method %(value)s. Use average, pairwise or matchpoints."
        ),
    }


class InvalidScore(ScoringError):
    field = "scores"
    templates = {
        "score_not_a_number": _(
            "A score to compare must be a whole or exact number; %(value)s is not. "
            "Check the results entered for this donne."
        ),
        "penalty_rate_invalid": _(
            "The matchpoint penalty rate must be a number of percentage points per penalty "
            "point, zero or more; %(value)s is not."
        ),
    }


class InvalidPlays(ScoringError):
    field = "plays"
    templates = {
        "duplicate_play": _(
            "Player %(player)s has two results on donne %(donne)s. Remove the wrong one."
        ),
        "seat_taken": _(
            "Donne %(donne)s, position %(position)s, table %(table)s has two results "
            "(players %(player)s and %(other)s). Fix the seating or the results."
        ),
        "play_and_sit_out": _(
            "Player %(player)s is recorded as playing donne %(donne)s and as sitting it out. "
            "Keep only one of the two."
        ),
        "score_not_a_number": _(
            "The score of player %(player)s on donne %(donne)s must be a whole or exact number; "
            "%(value)s is not. Correct the result."
        ),
    }


class InvalidPenalty(ScoringError):
    field = "penalties"
    templates = {
        "penalty_invalid": _(
            "A penalty is a whole number of points, zero or more; %(value)s for player "
            "%(player)s is not. Enter 0 for a warning."
        ),
    }
