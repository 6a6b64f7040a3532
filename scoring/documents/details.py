"""What a result holds besides its contract, in words for the donne results and in short for
the score cards (one line per donne, with a legend under the table): bouts, points, petit au
bout, poignées (who showed which) and chelem — what lets a reader check a score."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from tournaments.models import Chelem, PetitAuBout, PoigneeSize, Result

from .base import fmt_number, position_label

if TYPE_CHECKING:
    from .data import ResultDetail

POSITIONS = ("N", "E", "S", "W")


def position_letter(position: str) -> str:
    """N, E, S, W in English; N, E, S, O in French (the first letter of the position's name)."""
    return position_label(position)[:1].upper()


def bonus_words(result: Result) -> list[str]:
    """Petit au bout, poignées and chelem in words (the arbiter's screen's phrases)."""
    out = []
    if result.petit_au_bout in PetitAuBout.values:
        out.append(
            _("petit au bout: %(camp)s")
            % {"camp": str(PetitAuBout(result.petit_au_bout).label).lower()}
        )
    for position, size in sorted((result.poignees or {}).items()):
        if position in POSITIONS and size in PoigneeSize.values:
            out.append(
                _("%(size)s poignée by %(who)s")
                % {"size": PoigneeSize(size).label, "who": position_label(position)}
            )
    if result.chelem in Chelem.values:
        out.append(_("chelem: %(case)s") % {"case": str(Chelem(result.chelem).label).lower()})
    return out


def short_codes() -> dict[str, str]:
    """The abbreviations of the score cards, in the document's language."""
    return {
        "attack": pgettext("petit au bout won by the attack, short", "PB att."),
        "defence": pgettext("petit au bout won by the defence, short", "PB déf."),
        "simple": pgettext("simple poignée, short", "P1"),
        "double": pgettext("double poignée, short", "P2"),
        "triple": pgettext("triple poignée, short", "P3"),
        "announced_made": pgettext("chelem announced and made, short", "Ch A+"),
        "unannounced_made": pgettext("chelem made without announcement, short", "Ch +"),
        "announced_failed": pgettext("chelem announced and failed, short", "Ch A−"),
        "defence_chelem": pgettext("chelem made by the defence, short", "Ch déf."),
    }


# The choices' values, looked up once (`.values` builds its list on every call).
_PETITS = frozenset(PetitAuBout.values)
_POIGNEES = frozenset(PoigneeSize.values)
_CHELEMS = frozenset(Chelem.values)


def bonus_short(result: Result | ResultDetail, codes: dict[str, str]) -> str:
    """Petit au bout, poignées and chelem in a few characters (see `legend`)."""
    out = []
    if result.petit_au_bout in _PETITS:
        out.append(codes[result.petit_au_bout])
    for position, size in sorted((result.poignees or {}).items()):
        if position in POSITIONS and size in _POIGNEES:
            out.append(f"{codes[size]} {position_letter(position)}")
    if result.chelem in _CHELEMS:
        out.append(codes["defence_chelem" if result.chelem == "defence" else result.chelem])
    return " · ".join(out)


def legend(codes: dict[str, str]) -> str:
    """What the score cards' abbreviations mean."""
    return _(
        "%(pb_att)s / %(pb_def)s: petit au bout won by the attack / the defence. "
        "%(p1)s, %(p2)s, %(p3)s: simple, double, triple poignée, with who showed it. "
        "%(ch_made)s: chelem announced and made; %(ch_plain)s: made without announcement; "
        "%(ch_failed)s: announced and failed; %(ch_def)s: made by the defence."
    ) % {
        "pb_att": codes["attack"],
        "pb_def": codes["defence"],
        "p1": codes["simple"],
        "p2": codes["double"],
        "p3": codes["triple"],
        "ch_made": codes["announced_made"],
        "ch_plain": codes["unannounced_made"],
        "ch_failed": codes["announced_failed"],
        "ch_def": codes["defence_chelem"],
    }


def points_text(result: Result | ResultDetail) -> str:
    """The attack's points, localised (40,5 in French); empty when not played."""
    return fmt_number(result.points) if result.points is not None else ""
