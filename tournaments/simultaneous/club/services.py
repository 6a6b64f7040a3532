"""The club's side of a simultaneous event: join with a token, play the event's donnes, send
the club's state to the hub (RULES.md §6.3).

Joining stores the event's identity and commitment on the tournament and the event's donnes on
the link; the seating (tournaments.services.preparation) then writes donnes 1…4·sets of the
club's movement from them instead of dealing. Uploads run in a Celery task (`tasks.py`): one
pending per tournament (the link's ``queued_at`` claim), each a whole state with a new
``sequence``; a transient failure is retried with backoff and by the workers' sweep, a refusal
is kept on the link for the arbiter. The club's own ranking is never touched by the hub.
"""

from __future__ import annotations

import datetime
import logging
import re
import time
from typing import Any

from celery import current_app
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.rules import cards, dealing
from scoring.rules.errors import ScoringError
from scoring.rules.movement import most_players, sets_needed
from tournaments.models import Club, Player, Result, Tournament
from tournaments.services.errors import translate_error, translate_message
from tournaments.services.preparation import (
    PreparationError,
    too_many_players,
    tournament_generate,
)
from tournaments.services.tournaments import tournament_create

from . import hub_client
from .hub_client import HubError, HubRefused, HubUnavailable
from .models import SimultaneousLink
from .upload import UploadRefused, build_upload, is_final

# The upload task (tasks.upload_to_hub), queued by its name.
UPLOAD_TASK = "simultaneous.upload_to_hub"
logger = logging.getLogger(__name__)

# Tournaments without a link as last seen by this process, and until when (monotonic clock).
# Every committed change of every tournament schedules an upload; without this an unlinked
# tournament's result write would pay an UPDATE that matches nothing, over the write's query
# budget (tests/tournaments/api/test_write_queries.py). A tournament linked meanwhile by another process
# is caught within UNLINKED_SECONDS, or by the sweep (`uploads_sweep` skips this memory).
_UNLINKED: dict[int, float] = {}
UNLINKED_SECONDS = 60.0
QUEUE_CLAIM_SECONDS = 120  # a claim older than this was lost (worker killed): dispatch again
BACKOFF_SECONDS = (5, 15, 30, 60, 120, 300)  # waits after 1, 2, 3… failures in a row
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class JoinError(ValueError):
    """Joining is refused; the message (translated) says why and what to do."""


def _event_donnes(event: dict[str, Any]) -> list[cards.Donne]:
    donnes = []
    for row in event.get("donnes") or []:
        hands = tuple(cards.parse_hand(row["hands"][pos]) for pos in ("N", "E", "S", "W"))
        donnes.append(
            cards.Donne(
                int(row["number"]),
                str(row["dealer"]),
                hands,
                cards.parse_hand(row["chien"]),
                redraws=int(row.get("redraws") or 0),
            )
        )
    return donnes


def _check_event(event: dict[str, Any]) -> list[cards.Donne]:
    """The event's donnes, or JoinError when the hub's description is not usable."""
    try:
        sets, rounds = int(event["sets"]), int(event["rounds"])
        if int(event.get("donnes_per_relais", 4)) != 4 or sets < 1 or rounds < 1:
            raise ValueError("relais")
        if not HEX64.match(str(event["commitment"])) or not str(event["identity"]):
            raise ValueError("commitment")
        str(event["event"]), str(event["club"]["invitation"])
        donnes = _event_donnes(event)
    except ScoringError as err:
        raise JoinError(
            _("The hub sent donnes that are not valid: %(reason)s")
            % {"reason": translate_error(err)}
        ) from err
    except (KeyError, TypeError, ValueError) as err:
        logger.info("event description not understood: %r", err)
        raise JoinError(
            _(
                "The address answered, but not with a simultaneous event's description: "
                "check the hub's address."
            )
        ) from err
    if [d.number for d in donnes] != list(range(1, 4 * sets + 1)):
        raise JoinError(
            _("The hub should give donnes 1 to %(count)s of the event; it gave %(given)s.")
            % {"count": 4 * sets, "given": len(donnes)}
        )
    if event.get("state") == "closed":
        raise JoinError(_("This event is closed on the hub: it takes no more clubs."))
    return donnes


def _check_tournament(tournament: Tournament, event: dict[str, Any]) -> None:
    if SimultaneousLink.objects.filter(tournament=tournament).exists():
        raise JoinError(_("This tournament has already joined a simultaneous event."))
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.REGISTRATION):
        raise JoinError(_("Only a tournament that has not started can join an event."))
    if Result.objects.filter(tournament=tournament).exists():
        raise JoinError(_("Results have been entered: this tournament cannot join an event."))
    if tournament.rounds != int(event["rounds"]):
        raise JoinError(
            _(
                "The event is played in %(event)s rounds and this tournament in %(club)s: "
                "change the tournament's number of rounds to %(event)s first."
            )
            % {"event": event["rounds"], "club": tournament.rounds}
        )
    if tournament.donnes_per_relais != 4:
        raise JoinError(_("The event is played in relais of 4 donnes, as this tournament must."))
    if tournament.method != event["method"]:
        raise JoinError(
            _(
                "The event is ranked by “%(event)s” and this tournament by “%(club)s”: "
                "change the tournament's comparison method first."
            )
            % {"event": event["method"], "club": tournament.method}
        )
    no_licence = Player.objects.filter(registrations__tournament=tournament).filter(
        Q(licence="") | Q(licence__isnull=True)
    )
    if no_licence.exists():
        raise JoinError(
            _("These players have no licence number: %(names)s. The event ranks by licence.")
            % {"names": ", ".join(p.full_name for p in no_licence)}
        )


def _check_not_joined(event: dict[str, Any]) -> None:
    """One tournament per invitation: a second one would send uploads numbered from 1 again,
    which the hub ignores as older than the first one's (issue 30.10)."""
    first = (
        SimultaneousLink.objects.filter(
            event=str(event["event"]), invitation=str(event["club"]["invitation"])
        )
        .select_related("tournament")
        .first()
    )
    if first is not None:
        raise JoinError(
            _(
                "Your club already plays this event with the tournament “%(name)s” of "
                "%(date)s: open that tournament's “Simultaneous event” page instead of joining "
                "again (the hub takes one tournament per invitation)."
            )
            % {"name": first.tournament.name, "date": first.tournament.date}
        )


def _fetch(hub_url: str, token: str) -> dict[str, Any]:
    try:
        return hub_client.fetch_event(hub_client.check_hub_url(hub_url), token.strip())
    except HubRefused as err:
        if err.code == "not_invited":
            raise JoinError(
                _("The hub does not accept this token: %(detail)s") % {"detail": err.detail}
            ) from err
        raise JoinError(err.detail) from err
    except HubUnavailable as err:
        raise JoinError(
            err.detail + " " + _("Nothing was changed; try again when the hub answers.")
        ) from err


def join(
    *,
    hub_url: str,
    token: str,
    user: Any,
    tournament: Tournament | None = None,
    club: Club | None = None,
) -> SimultaneousLink:
    """Join the hub's event with the club's token: ``tournament`` (not started, same rounds
    and method as the event) or, without one, a new tournament of ``club`` named after the
    event. Stores the event's identity and commitment on the tournament and its donnes on the
    link; a seating already generated is regenerated with the event's donnes. Raises JoinError
    (translated reason): hub unreachable, token refused, rounds or method differ, players
    without licence, a movement needing more étui sets than the event deals.
    """
    if not token.strip():
        raise JoinError(_("Type the token the event's organiser gave your club."))
    event = _fetch(hub_url, token)
    donnes = _check_event(event)
    _check_not_joined(event)
    with transaction.atomic():
        if tournament is None:
            if club is None:
                raise JoinError(_("Choose the club whose tournament joins the event."))
            tournament = tournament_create(
                club=club,
                name=str(event.get("name") or event["event"])[:160],
                date=datetime.date.fromisoformat(str(event["date"])),
                rounds=int(event["rounds"]),
                method=str(event["method"]),
                matchpoint_penalty_rate=str(event.get("matchpoint_penalty_rate", "0.1")),
                user=user,
            )
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        _check_tournament(locked, event)
        link = SimultaneousLink.objects.create(
            tournament=locked,
            hub_url=hub_url.strip(),
            token=token.strip(),
            event=str(event["event"]),
            event_name=str(event.get("name", ""))[:200],
            invitation=str(event["club"]["invitation"]),
            club_name=str(event["club"].get("name", ""))[:200],
            sets=int(event["sets"]),
            ranking_url=(
                hub_client.ranking_url(hub_url, str(event["event"])) if event.get("seed") else ""
            ),
            donnes=[_donne_json(d, row) for d, row in zip(donnes, event["donnes"], strict=True)],
        )
        locked.identity = str(event["identity"])
        locked.commitment = str(event["commitment"])
        locked.seed = ""
        locked.seed_revealed_at = None
        locked.save(update_fields=["identity", "commitment", "seed", "seed_revealed_at"])
        if locked.movement:
            try:
                tournament_generate(tournament=locked, user=user)
            except PreparationError as err:
                raise JoinError(str(err)) from err
    tournament.refresh_from_db()
    return link


def _donne_json(donne: cards.Donne, row: dict[str, Any]) -> dict[str, Any]:
    """The donne as stored on the link; ``redraws`` only when the hub gave them."""
    stored: dict[str, Any] = {
        "number": donne.number,
        "dealer": donne.dealer,
        "hands": {pos: cards.format_hand(donne.hand(pos)) for pos in ("N", "E", "S", "W")},
        "chien": cards.format_hand(donne.chien),
    }
    if "redraws" in row:
        stored["redraws"] = donne.redraws
    return stored


def event_donnes(tournament: Tournament) -> list[cards.Donne] | None:
    """The event's donnes a linked tournament plays (preparation's donne source), else None."""
    rows = (
        SimultaneousLink.objects.filter(tournament_id=tournament.pk)
        .values_list("donnes", flat=True)
        .first()
    )
    if rows is None:
        return None
    return _event_donnes({"donnes": rows})


def seating_limit(tournament: Tournament, players: int) -> str | None:
    """Preparation's seating limit (registered from apps.ready): when the event's étui sets
    cannot seat ``players`` over the tournament's rounds, why and how many can. No query for
    a tournament that deals its own donnes: a linked one took the event's identity
    ("simultaneous:<event>", the hub's `event_create`) when it joined."""
    if not (tournament.identity or "").startswith("simultaneous:"):
        return None
    sets = (
        SimultaneousLink.objects.filter(tournament_id=tournament.pk)
        .values_list("sets", flat=True)
        .first()
    )
    if sets is None:
        return None
    try:
        if sets_needed(players, tournament.rounds) <= sets:
            return None
    except ScoringError:  # fewer than 8 or 11 players: the seating page says so
        return None
    return too_many_players(players, tournament.rounds, sets)


def join_warnings(link: SimultaneousLink) -> list[str]:
    """What the club must know once joined: more players registered than the event's étui
    sets seat (the tournament joined all the same; the registrations page says it too)."""
    players = Player.objects.filter(registrations__tournament_id=link.tournament_id).count()
    said = seating_limit(link.tournament, players) if players else None
    return [said] if said else []


def event_capacity(sets: int, rounds: int) -> str:
    """What an event's étui sets allow a club, in one sentence (the link and join pages)."""
    most = most_players(sets, rounds)
    if most is None:
        return _(
            "With %(sets)s étui sets over %(rounds)s rounds no club can be seated (even 8 "
            "players need more): ask the event's organiser for more sets."
        ) % {"sets": sets, "rounds": rounds}
    return _(
        "The event's %(sets)s étui sets seat a club of 8 to %(most)s players (not 11) over "
        "%(rounds)s rounds; register no more."
    ) % {"sets": sets, "most": most, "rounds": rounds}


# --- uploads -------------------------------------------------------------------------------


def schedule_upload(tournament_id: int, *, recall: bool = True) -> None:
    """Queue an upload of a linked tournament unless one is queued already (coalesced: the
    task reads the newest state when it runs). Free for a tournament this process saw
    without a link in the last UNLINKED_SECONDS (`recall=False`: ask the database anyway).
    Without a broker, sends in-process."""
    if recall and _UNLINKED.get(tournament_id, 0.0) > time.monotonic():
        return
    now = timezone.now()
    claimed = SimultaneousLink.objects.filter(
        Q(queued_at__isnull=True)
        | Q(queued_at__lt=now - datetime.timedelta(seconds=QUEUE_CLAIM_SECONDS)),
        tournament_id=tournament_id,
    ).update(queued_at=now)
    if not claimed:
        if not SimultaneousLink.objects.filter(tournament_id=tournament_id).exists():
            _remember_unlinked(tournament_id)
        return
    if current_app.conf.task_always_eager:  # no broker: send in-process, as the task would
        try:
            upload_run(tournament_id=tournament_id)
        except Exception:
            logger.exception("the upload of tournament %s failed", tournament_id)
        return
    try:  # by its name: the task module imports this one
        current_app.send_task(
            UPLOAD_TASK, (tournament_id,), retry=True, retry_policy={"max_retries": 1}
        )
    except Exception:
        SimultaneousLink.objects.filter(tournament_id=tournament_id).update(queued_at=None)
        logger.warning("could not queue the upload of tournament %s", tournament_id, exc_info=True)


def on_results_changed(sender: object, *, tournament_id: int, **_: Any) -> None:
    """The receiver of `tournaments.signals.results_changed`: queue the tournament's upload
    (free for a tournament without a link, see `schedule_upload`)."""
    schedule_upload(tournament_id)


def link_created(tournament_id: int) -> None:
    """Forget that this process saw the tournament without a link (called on a link's save)."""
    _UNLINKED.pop(tournament_id, None)


def _remember_unlinked(tournament_id: int) -> None:
    now = time.monotonic()
    if len(_UNLINKED) > 10_000:
        for key in [k for k, until in _UNLINKED.items() if until <= now]:
            del _UNLINKED[key]
    _UNLINKED[tournament_id] = now + UNLINKED_SECONDS


def _backoff(attempts: int) -> int:
    return BACKOFF_SECONDS[min(max(attempts, 1), len(BACKOFF_SECONDS)) - 1]


def upload_prepare(*, tournament_id: int) -> tuple[SimultaneousLink, bytes, dict[str, Any]]:
    """Number and build the tournament's next upload (under the link's lock): the link, the
    exact bytes to send (also the downloadable file) and the upload. Raises UploadRefused."""
    with transaction.atomic():
        link = (
            SimultaneousLink.objects.select_for_update()
            .select_related("tournament")
            .get(tournament_id=tournament_id)
        )
        link.sequence = F("sequence") + 1
        link.save(update_fields=["sequence"])
        link.refresh_from_db(fields=["sequence"])
        version = link.tournament.results_version
        upload = build_upload(link=link, sequence=link.sequence)
        link.sent_version = version
        link.attempted_at = timezone.now()
        link.save(update_fields=["sent_version", "attempted_at"])
    return link, hub_client.upload_body(upload), upload


def upload_run(*, tournament_id: int) -> str:
    """Send the tournament's current state to the hub once; the outcome on the link.

    Returns "acknowledged", "refused" (4xx, or players without licence: kept with its reason,
    not retried until someone sends again), "stale" (the hub holds a newer upload of this
    invitation and ignored this one: kept with what to do, not retried until someone sends
    again), "failing" (transient: ``retry_at`` set, the task and the sweep try again) or
    "none" (no link)."""
    SimultaneousLink.objects.filter(tournament_id=tournament_id).update(queued_at=None)
    if not SimultaneousLink.objects.filter(tournament_id=tournament_id).exists():
        return "none"
    try:
        link, body, upload = upload_prepare(tournament_id=tournament_id)
    except UploadRefused as err:
        _note(
            tournament_id, state=SimultaneousLink.State.REFUSED, error=str(err), code="no_licence"
        )
        return "refused"
    try:
        answer = hub_client.send_upload(link.hub_url, link.token, body)
    except HubRefused as err:
        _note(tournament_id, state=SimultaneousLink.State.REFUSED, error=err.detail, code=err.code)
        return "refused"
    except HubUnavailable as err:
        attempts = link.attempts + 1
        _note(
            tournament_id,
            state=SimultaneousLink.State.FAILING,
            error=err.detail,
            code=err.code,
            attempts=attempts,
            retry_at=timezone.now() + datetime.timedelta(seconds=_backoff(attempts)),
        )
        return "failing"
    if answer.get("stale"):
        _stale(tournament_id, upload, answer)
        return "stale"
    _acknowledged(link, upload, answer)
    return "acknowledged"


def _stale(tournament_id: int, upload: dict[str, Any], answer: dict[str, Any]) -> None:
    """The hub ignored the upload: it holds a newer one of this invitation (this site was
    restored from a backup, or another tournament or site sends with the same token)."""
    SimultaneousLink.objects.filter(tournament_id=tournament_id).update(
        state=SimultaneousLink.State.STALE,
        error=stale_message(sequence=upload["sequence"], held=answer.get("last_sequence")),
        error_code="stale",
        response=answer,
        attempts=0,
        retry_at=None,
    )


def stale_message(*, sequence: int, held: Any) -> str:
    """What a stale answer means and what to do (in the active language: the link's page
    renders it for its reader, the link keeps it for the log)."""
    return _(
        "The hub ignored upload n° %(ours)s: it holds a newer one from your club "
        "(n° %(held)s), so nothing of this tournament counts there now. If this site was "
        "restored from a backup, press “Send the results to the hub now”: the next upload "
        "is numbered after the hub's and replaces what it holds. If another tournament or "
        "site sends with the same token, only one of them may: ask the event's organiser "
        "before sending."
    ) % {"ours": sequence, "held": held if isinstance(held, int) else "?"}


def _note(tournament_id: int, *, state: str, error: str, code: str, **more: Any) -> None:
    SimultaneousLink.objects.filter(tournament_id=tournament_id).update(
        state=state, error=error, error_code=code[:40], **more
    )


def _acknowledged(link: SimultaneousLink, upload: dict[str, Any], answer: dict[str, Any]) -> None:
    """Record the hub's acknowledgement, unless a later upload was acknowledged already."""
    with transaction.atomic():
        locked = (
            SimultaneousLink.objects.select_for_update()
            .select_related("tournament")
            .get(pk=link.pk)
        )
        if upload["sequence"] <= locked.acked_sequence:
            return
        locked.acked_sequence = upload["sequence"]
        locked.acked_version = link.sent_version
        locked.acked_final = bool(upload["final"])
        locked.acked_at = timezone.now()
        locked.attempts = 0
        locked.retry_at = None
        locked.error = ""
        locked.error_code = ""
        locked.response = answer
        behind = locked.tournament.results_version != locked.acked_version or (
            is_final(locked.tournament) and not locked.acked_final
        )
        locked.state = (
            SimultaneousLink.State.PENDING if behind else SimultaneousLink.State.ACKNOWLEDGED
        )
        locked.save()


def upload_again(*, link: SimultaneousLink) -> None:
    """The arbiter's "send again": clears a refusal or a wait and queues an upload now.
    After a stale answer the next upload is numbered after the hub's last one, so that it
    replaces what the hub holds (the arbiter was told what that means)."""
    held = (link.response or {}).get("last_sequence") if link.state == link.State.STALE else None
    updates: dict[str, Any] = {}
    if isinstance(held, int) and held > 0:
        updates["sequence"] = Greatest(F("sequence"), held)
    SimultaneousLink.objects.filter(pk=link.pk).update(
        state=SimultaneousLink.State.PENDING, retry_at=None, queued_at=None, **updates
    )
    schedule_upload(link.tournament_id, recall=False)


def links_behind() -> list[int]:
    """Tournaments whose hub has not acknowledged their current state and whose wait (after
    a transient failure) is over; refused ones wait for the arbiter."""
    now = timezone.now()
    due = (
        SimultaneousLink.objects.exclude(
            state__in=(SimultaneousLink.State.REFUSED, SimultaneousLink.State.STALE)
        )
        .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now))
        .filter(
            Q(acked_version__isnull=True)
            | ~Q(acked_version=F("tournament__results_version"))
            | Q(
                acked_final=False,
                tournament__status__in=(Tournament.Status.FINISHED, Tournament.Status.PUBLISHED),
            )
        )
    )
    return list(due.values_list("tournament_id", flat=True))


def uploads_sweep() -> list[int]:
    """The workers' sweep (scoring.rankings.sweep): queue the uploads left behind (hub was
    unreachable, a task was lost, the session ended); check the revealed seed of finished
    links. Returns the tournaments queued."""
    behind = links_behind()
    for tournament_id in behind:
        schedule_upload(tournament_id, recall=False)
    for link in SimultaneousLink.objects.filter(acked_final=True, verified__isnull=True).filter(
        Q(attempted_at__isnull=True)
        | Q(attempted_at__lt=timezone.now() - datetime.timedelta(seconds=60))
    ):
        try:
            link_refresh(link=link)
        except HubError:
            SimultaneousLink.objects.filter(pk=link.pk).update(attempted_at=timezone.now())
    return behind


def link_refresh(*, link: SimultaneousLink) -> SimultaneousLink:
    """Ask the hub for the event again; once it reveals the seed (the embargo ended), store
    the address of the overall ranking, check the donnes played against the commitment
    (dealing.verify) and keep the verdict on the link. Raises HubError."""
    event = hub_client.fetch_event(link.hub_url, link.token)
    seed = event.get("seed")
    if seed and not link.ranking_url:
        SimultaneousLink.objects.filter(pk=link.pk).update(
            ranking_url=hub_client.ranking_url(link.hub_url, link.event)
        )
    if seed and link.verified is None:
        verified, summary = verify_donnes(link=link, seed=str(seed))
        SimultaneousLink.objects.filter(pk=link.pk).update(
            seed=str(seed)[:128], verified=verified, verification=summary
        )
    link.refresh_from_db()
    return link


def verify_donnes(*, link: SimultaneousLink, seed: str) -> tuple[bool, str]:
    """Regenerate the event's donnes the club played from the revealed seed and compare them
    with the ones it stored and played; (ok, what the check said)."""
    from tournaments.models import Donne
    from tournaments.services.preparation import donne_from_row

    tournament = link.tournament
    played = [donne_from_row(row) for row in Donne.objects.filter(tournament=tournament)]
    try:
        # The hub's description may not carry the generator's redraws: the cards are what the
        # club played, so a donne whose redraws the hub did not give takes the regenerated ones.
        given = {d["number"]: d for d in link.donnes}
        played = [
            d
            if "redraws" in given.get(d.number, {})
            else cards.Donne(
                d.number,
                d.dealer,
                d.hands,
                d.chien,
                redraws=dealing.generate_donne(seed, tournament.identity, d.number).redraws,
            )
            for d in played
        ]
        report = dealing.verify(seed, tournament.identity, tournament.commitment, played)
    except ScoringError as err:
        return False, translate_error(err)
    if report.ok:
        return True, _("The %(count)s donnes played match the event's commitment.") % {
            "count": len(played)
        }
    what = [_("the seed does not match the commitment")] if not report.commitment_ok else []
    what += [
        _("donne %(number)s: %(details)s")
        % {"number": m.number, "details": "; ".join(translate_message(x) for x in m.details)}
        for m in report.mismatches
    ]
    return False, _("The donnes do not match the event's commitment: %(what)s.") % {
        "what": ", ".join(what)
    }


def under_embargo(tournament: Tournament) -> bool:
    """The tournament plays a simultaneous event whose embargo has not ended as far as this
    club knows (the hub has not revealed the seed yet, RULES §6.3): a player's event report
    waits (registered with `scoring.rankings.player_report.embargo_register`). One query."""
    return SimultaneousLink.objects.filter(tournament_id=tournament.pk, seed="").exists()
