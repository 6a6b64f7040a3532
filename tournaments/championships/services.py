"""Every write of a championship: creation with its rule, edits (refused once the rule is
frozen), the events it counts (added, agreed, removed), the players' séries (by hand or from
a CSV file). Each write checks everything first and raises `ChampionshipInvalid` (translated
messages per field) before saving anything, runs in one transaction, writes the log, and
marks the championship's ranking stale on commit (`ranking.schedule_championship`)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from datetime import date
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from scoring.rules.championship import KINDS, rule_errors
from tournaments.models import Club, Method, Tournament
from tournaments.services.errors import translate_error
from tournaments.simultaneous.hub.models import SimultaneousEvent
from tournaments.validators import validate_plain_text

from .errors import ChampionshipInvalid
from .models import Championship, ChampionshipEvent, ChampionshipLogEntry, SeasonSerie
from .permissions import organises_club, organises_simultaneous_events, owns_event
from .ranking import event_is_final, rule_of, schedule_championship

RULE_FIELDS = (
    "kind",
    "places",
    "places_beyond",
    "scale_by_field",
    "best_of",
    "minimum_events",
    "tie_breaks",
    "handicaps",
)
OTHER_FIELDS = (
    "name",
    "season_start",
    "season_end",
    "planned_events",
    "series",
    "final_name",
    "qualify_top",
    "qualify_top_per_serie",
)
LICENCE = re.compile(r"^[0-9]{7}$")
Details = dict[str, list[str]]


def _events_count(championship: Championship, current: int) -> int | None:
    """The events best_of is checked against: those planned (or those added, the larger);
    once the season is over, those added; else none (events come over the season)."""
    if championship.planned_events:
        return max(championship.planned_events, current)
    if championship.season_end < timezone.localdate():
        return current
    return None


def _check_rule(championship: Championship, current_events: int) -> Details:
    details: Details = {}
    if championship.kind not in KINDS:
        return {"kind": [_("Choose a rule: total, percentage or places.")]}
    events = _events_count(championship, current_events)
    for error in rule_errors(rule_of(championship), events):
        details.setdefault(error.field, []).append(translate_error(error))
    for serie in championship.handicaps or {}:
        if serie not in (championship.series or []):
            details.setdefault("handicaps", []).append(
                _("“%(serie)s” is not one of the championship’s séries.") % {"serie": serie}
            )
    return details


def _check_texts(championship: Championship) -> Details:
    """Names people read (printed, exported): no invisible characters (`validate_plain_text`)."""
    details: Details = {}
    for field in ("name", "final_name"):
        try:
            validate_plain_text(getattr(championship, field))
        except ValidationError as exc:
            details[field] = [str(m) for m in exc.messages]
    for serie in championship.series or []:
        try:
            validate_plain_text(serie)
        except ValidationError as exc:
            details.setdefault("series", []).extend(str(m) for m in exc.messages)
    return details


def _check_dates(championship: Championship, events: Iterable[ChampionshipEvent]) -> Details:
    if championship.season_end < championship.season_start:
        return {"season_end": [_("The season cannot end before it starts.")]}
    details: Details = {}
    for entry in events:
        when = event_date(entry)
        if when < championship.season_start:
            details.setdefault("season_start", []).append(_outside(entry, championship))
        elif when > championship.season_end:
            details.setdefault("season_end", []).append(_outside(entry, championship))
    return details


def _outside(entry: ChampionshipEvent, championship: Championship) -> str:
    return _("“%(event)s” (%(date)s) is outside the season, %(start)s to %(end)s.") % {
        "event": event_name(entry),
        "date": date_format(event_date(entry), "SHORT_DATE_FORMAT"),
        "start": date_format(championship.season_start, "SHORT_DATE_FORMAT"),
        "end": date_format(championship.season_end, "SHORT_DATE_FORMAT"),
    }


def event_of(entry: ChampionshipEvent) -> Tournament | SimultaneousEvent:
    """The tournament or simultaneous event an entry counts."""
    return entry.tournament if entry.tournament_id is not None else entry.simultaneous_event


def event_date(entry: ChampionshipEvent) -> date:
    return event_of(entry).date


def event_name(entry: ChampionshipEvent) -> str:
    return event_of(entry).name


def _entries(championship: Championship) -> list[ChampionshipEvent]:
    return list(
        championship.events.select_related("tournament", "simultaneous_event").order_by("pk")
    )


def frozen_by(championship: Championship, entries: list[ChampionshipEvent]) -> str | None:
    """The name of the first counted event that is final (the rule is frozen), or None."""
    final = [e for e in entries if e.agreed and event_is_final(e)]
    if not final and championship.frozen_at is None:
        return None
    return event_name(min(final, key=event_date)) if final else championship.name


def _log(championship: Championship, action: str, user: Any, before: Any, after: Any) -> None:
    """Write the change in the championship's log and bump its revision (the stored ranking
    is computed again: `ranking.championship_recompute` compares revisions)."""
    Championship.objects.filter(pk=championship.pk).update(revision=F("revision") + 1)
    ChampionshipLogEntry.objects.create(
        championship=championship,
        action=action,
        actor=user if getattr(user, "is_authenticated", False) else None,
        before=before,
        after=after,
    )


def _snapshot(championship: Championship, fields: Iterable[str]) -> dict[str, Any]:
    return {f: _json(getattr(championship, f)) for f in fields}


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _clean(values: Mapping[str, Any]) -> dict[str, Any]:
    """Normalise the written values: lists as lists, handicaps as exact strings."""
    clean = dict(values)
    if "places" in clean:
        clean["places"] = [int(p) for p in clean["places"] or []]
    if "tie_breaks" in clean:
        clean["tie_breaks"] = [str(t) for t in clean["tie_breaks"] or []]
    if "series" in clean:
        clean["series"] = [str(s).strip() for s in clean["series"] or [] if str(s).strip()]
    if "handicaps" in clean:
        clean["handicaps"] = {
            str(k): str(Fraction(v)) for k, v in (clean["handicaps"] or {}).items()
        }
    return clean


def championship_create(*, user: Any, club: Club | None = None, **values: Any) -> Championship:
    """Create a championship with its rule; `user` becomes its organiser. Raises
    `ChampionshipInvalid` (nothing saved) for a rule or dates that do not hold, or a club
    he does not organise.

    A championship without a club is one over simultaneous events (`hub_scope`): only a
    simultaneous event's organisers (or a superuser) create one; a `hub_scope` given that
    contradicts the club is refused, naming it."""
    if club is not None and not organises_club(user, club):
        raise ChampionshipInvalid({"club": [_("You do not organise this club.")]})
    hub_scope = club is None
    asked = values.pop("hub_scope", None)
    if asked is not None and bool(asked) != hub_scope:
        raise ChampionshipInvalid(
            {
                "hub_scope": [
                    _(
                        "A championship over simultaneous events has no club; a club’s "
                        "championship names its club."
                    )
                ]
            }
        )
    if hub_scope and not organises_simultaneous_events(user):
        raise ChampionshipInvalid(
            {
                "club": [
                    _(
                        "Choose the club the championship is for: only the organisers of a "
                        "simultaneous event create a championship over simultaneous events."
                    )
                ]
            }
        )
    values["hub_scope"] = hub_scope
    try:
        fields = _clean(values)
    except (TypeError, ValueError, ArithmeticError):
        raise ChampionshipInvalid({"handicaps": [_("A handicap is a number of points.")]}) from None
    championship = Championship(club=club, created_by=user, **fields)
    details = {
        **_check_rule(championship, 0),
        **_check_dates(championship, []),
        **_check_texts(championship),
    }
    if details:
        raise ChampionshipInvalid(details)
    with transaction.atomic():
        championship.save()
        championship.organisers.add(user)
        _log(
            championship,
            ChampionshipLogEntry.Action.CREATED,
            user,
            None,
            _snapshot(championship, RULE_FIELDS + OTHER_FIELDS),
        )
        transaction.on_commit(lambda: schedule_championship(championship.pk))
    return championship


def championship_edit(championship: Championship, *, user: Any, **values: Any) -> Championship:
    """Change the championship's name, dates, rule, séries or qualifiers. A rule change once
    a counted event is final is refused, naming the field; dates that would leave out a
    counted event are refused, naming it. Nothing is saved on a refusal."""
    with transaction.atomic():
        locked = Championship.objects.select_for_update().get(pk=championship.pk)
        try:
            changes = {k: v for k, v in _clean(values).items() if getattr(locked, k) != v}
        except (TypeError, ValueError, ArithmeticError):
            raise ChampionshipInvalid(
                {"handicaps": [_("A handicap is a number of points.")]}
            ) from None
        if not changes:
            return locked
        entries = _entries(locked)
        details: Details = {}
        frozen = frozen_by(locked, entries)
        if frozen is not None:
            for field in sorted(set(changes) & set(RULE_FIELDS)):
                details[field] = [
                    _(
                        "The rule is frozen since “%(event)s”, a counted event, is final: it can no longer change."
                    )
                    % {"event": frozen}
                ]
        before = _snapshot(locked, changes)
        for field, value in changes.items():
            setattr(locked, field, value)
        details = {
            **_check_rule(locked, len(entries)),
            **_check_dates(locked, entries),
            **_check_texts(locked),
            **details,
        }
        if details:
            raise ChampionshipInvalid(details)
        locked.save(update_fields=list(changes))
        _log(locked, ChampionshipLogEntry.Action.EDITED, user, before, _snapshot(locked, changes))
        transaction.on_commit(lambda: schedule_championship(locked.pk))
    return locked


def _method(event: Tournament | SimultaneousEvent) -> str:
    return event.method


def _check_event(
    championship: Championship,
    event: Tournament | SimultaneousEvent,
    field: str,
    entries: list[ChampionshipEvent],
) -> Details:
    """Whether `event` may count: not twice, in the season, under the rule's method."""
    kind = "tournament" if isinstance(event, Tournament) else "simultaneous_event"
    if any(getattr(e, f"{kind}_id") == event.pk for e in entries):
        return {
            field: [_("“%(event)s” already counts in this championship.") % {"event": event.name}]
        }
    if not championship.season_start <= event.date <= championship.season_end:
        return {
            field: [
                _("“%(event)s” (%(date)s) is outside the season, %(start)s to %(end)s.")
                % {
                    "event": event.name,
                    "date": date_format(event.date, "SHORT_DATE_FORMAT"),
                    "start": date_format(championship.season_start, "SHORT_DATE_FORMAT"),
                    "end": date_format(championship.season_end, "SHORT_DATE_FORMAT"),
                }
            ]
        }
    if championship.kind == Championship.Kind.PERCENTAGE and event.method != Method.MATCHPOINTS:
        return {
            field: [
                _(
                    "“%(event)s” is not compared by match points: a championship by percentage counts "
                    "match-point events only."
                )
                % {"event": event.name}
            ]
        }
    if championship.kind == Championship.Kind.TOTAL and entries:
        other = event_of(entries[0])
        if other.method != event.method:
            return {
                field: [
                    _(
                        "“%(event)s” is compared by %(method)s, the championship’s other events by "
                        "%(others)s: totals of different methods cannot be added."
                    )
                    % {
                        "event": event.name,
                        "method": Method(event.method).label,
                        "others": Method(other.method).label,
                    }
                ]
            }
    return {}


def event_add(
    championship: Championship,
    *,
    user: Any,
    tournament: Tournament | None = None,
    simultaneous_event: SimultaneousEvent | None = None,
) -> ChampionshipEvent:
    """Count a tournament or a simultaneous event in the championship: at once when `user`
    organises it too, else pending until one of its organisers agrees (`event_agree`).
    Refused (nothing saved, the field named) when it counts already, is outside the season,
    or is compared by another method than the rule needs."""
    event = tournament if tournament is not None else simultaneous_event
    field = "tournament" if tournament is not None else "simultaneous_event"
    if event is None:
        raise ChampionshipInvalid({"tournament": [_("Name a tournament or a simultaneous event.")]})
    with transaction.atomic():
        locked = Championship.objects.select_for_update().get(pk=championship.pk)
        entries = _entries(locked)
        details = _check_event(locked, event, field, entries)
        if details:
            raise ChampionshipInvalid(details)
        owner = owns_event(user, event)
        try:
            with transaction.atomic():
                entry = ChampionshipEvent.objects.create(
                    championship=locked,
                    added_by=user,
                    agreed_by=user if owner else None,
                    agreed_at=timezone.now() if owner else None,
                    **{field: event},
                )
        except IntegrityError:
            raise ChampionshipInvalid(
                {
                    field: [
                        _("“%(event)s” already counts in this championship.")
                        % {"event": event.name}
                    ]
                }
            ) from None
        _log(
            locked,
            ChampionshipLogEntry.Action.EVENT_ADDED,
            user,
            None,
            {"event": entry.key, "name": event.name, "agreed": owner},
        )
        transaction.on_commit(lambda: schedule_championship(locked.pk))
    return entry


def event_agree(entry: ChampionshipEvent, *, user: Any) -> ChampionshipEvent:
    """The event's organiser agrees that it counts (the caller checked `owns_event`)."""
    with transaction.atomic():
        updated = ChampionshipEvent.objects.filter(pk=entry.pk, agreed_by__isnull=True).update(
            agreed_by=user, agreed_at=timezone.now()
        )
        if updated:
            _log(
                entry.championship,
                ChampionshipLogEntry.Action.EVENT_AGREED,
                user,
                None,
                {"event": entry.key, "name": event_name(entry)},
            )
            pk = entry.championship_id
            transaction.on_commit(lambda: schedule_championship(pk))
    entry.refresh_from_db()
    return entry


def event_remove(entry: ChampionshipEvent, *, user: Any) -> None:
    """The event no longer counts (its results stay in the event; logged)."""
    with transaction.atomic():
        pk = entry.championship_id
        _log(
            entry.championship,
            ChampionshipLogEntry.Action.EVENT_REMOVED,
            user,
            {"event": entry.key, "name": event_name(entry)},
            None,
        )
        entry.delete()
        transaction.on_commit(lambda: schedule_championship(pk))


def series_set(
    championship: Championship,
    pairs: Iterable[tuple[str, str]],
    *,
    user: Any,
    field: str = "series",
) -> int:
    """Set the players' séries: (licence, série) pairs, an empty série clears it. Every pair
    is checked first (a licence of 7 digits, a série of the championship's list); one bad
    pair refuses them all, naming its line. Returns how many pairs were written."""
    pairs = [(licence.strip(), serie.strip()) for licence, serie in pairs]
    problems = []
    for number, (licence, serie) in enumerate(pairs, start=1):
        if not LICENCE.match(licence):
            problems.append(
                _("Line %(line)s: “%(licence)s” is not a licence number (7 digits).")
                % {"line": number, "licence": licence[:20]}
            )
        elif serie and serie not in (championship.series or []):
            problems.append(
                _(
                    "Line %(line)s: “%(serie)s” is not one of the championship’s séries (%(series)s)."
                )
                % {
                    "line": number,
                    "serie": serie[:40],
                    "series": ", ".join(championship.series or []),
                }
            )
    if problems:
        raise ChampionshipInvalid({field: problems[:20]})
    wanted = dict(pairs)
    with transaction.atomic():
        cleared = [licence for licence, serie in wanted.items() if not serie]
        SeasonSerie.objects.filter(championship=championship, licence__in=cleared).delete()
        SeasonSerie.objects.bulk_create(
            [
                SeasonSerie(championship=championship, licence=licence, serie=serie)
                for licence, serie in wanted.items()
                if serie
            ],
            update_conflicts=True,
            unique_fields=["championship", "licence"],
            update_fields=["serie"],
        )
        _log(
            championship,
            ChampionshipLogEntry.Action.SERIES_SET,
            user,
            None,
            {"players": len(wanted)},
        )
        pk = championship.pk
        transaction.on_commit(lambda: schedule_championship(pk))
    return len(wanted)


def series_from_csv(text: str) -> list[tuple[str, str]]:
    """(licence, série) pairs of a CSV file: two columns, "," or ";" separated, a header
    line (licence;serie) allowed."""
    sample = text[:2000]
    delimiter = ";" if sample.count(";") >= sample.count(",") else ","
    pairs = []
    for index, row in enumerate(csv.reader(io.StringIO(text), delimiter=delimiter)):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if index == 0 and cells[0].casefold() in ("licence", "license", "licence number"):
            continue  # the header
        pairs.append((cells[0], cells[1] if len(cells) > 1 else ""))
    return pairs
