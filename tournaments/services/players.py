"""A club's players: creating, editing, and importing them from a CSV file.

The import is all or nothing: a club secretary fixes the file in a spreadsheet and imports it
again, so every bad line is reported at once (line number and reasons) and nothing is written
until the whole file is good.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import Club, Player, licence_validator
from ..validators import validate_plain_text

NAME_MAX_LENGTH = Player._meta.get_field("last_name").max_length
MAX_LINES = 5000

# Accepted header names, compared without case, accents or surrounding spaces.
HEADER_ALIASES = {
    "licence": "licence",
    "license": "licence",
    "last_name": "last_name",
    "nom": "last_name",
    "first_name": "first_name",
    "prenom": "first_name",
}
REQUIRED_COLUMNS = ("licence", "last_name", "first_name")


class CsvEncodingError(ValueError):
    """The file is not text in an encoding a spreadsheet writes (e.g. an .xlsx file)."""


# The names shown to the user for what the file was read as.
ENCODING_LABELS = {"utf-8-sig": "UTF-8 (BOM)", "utf-8": "UTF-8", "cp1252": "Windows-1252"}


def csv_decode(raw: bytes) -> tuple[str, str]:
    """The text of a CSV file and the encoding it was read as (a key of ENCODING_LABELS).

    Spreadsheets write UTF-8 with a byte-order mark ("CSV UTF-8"), plain UTF-8 (LibreOffice,
    Numbers), or Windows-1252 (French Excel's plain "CSV"). UTF-8 is tried first: a
    Windows-1252 file with accents is almost never valid UTF-8, while the reverse always
    "succeeds" with wrong letters (Ã© for é).
    """
    if b"\x00" in raw:
        raise CsvEncodingError("binary")
    if raw.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    else:
        try:
            return raw.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            encoding = "cp1252"
    try:
        return raw.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        raise CsvEncodingError(encoding) from exc


@dataclass(frozen=True)
class ImportReport:
    """What a successful import did."""

    created: int
    updated: int
    unchanged: int

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged


class PlayerImportError(ValueError):
    """The file was refused as a whole; `line_errors` lists (line number, [reasons])."""

    def __init__(self, line_errors: list[tuple[int, list[str]]]) -> None:
        self.line_errors = line_errors
        count = len(line_errors)
        self.message = ngettext(
            "The file was not imported: %(count)d line has errors. Fix it and import the "
            "whole file again.",
            "The file was not imported: %(count)d lines have errors. Fix them and import the "
            "whole file again.",
            count,
        ) % {"count": count}
        super().__init__(self.message)


@dataclass
class _Line:
    line_no: int
    licence: str
    last_name: str
    first_name: str


def _normalise_header(value: str) -> str:
    decomposed = unicodedata.normalize("NFKD", value.strip().lower())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"[\s\-]+", "_", plain)


def _clean_name(value: str) -> str:
    return " ".join(value.split())


def _licence_reasons(licence: str) -> list[str]:
    if not licence:
        return [_("The licence number is missing.")]
    try:
        licence_validator(licence)
    except ValidationError:
        reason = _(
            "Licence “%(licence)s” is not valid: a federation licence number has exactly "
            "7 digits, for example 0123456."
        ) % {"licence": licence}
        if licence.isdigit() and len(licence) < 7:
            reason += " " + _(
                "If your spreadsheet dropped its leading zeros, format the column as text."
            )
        return [reason]
    return []


def _name_reasons(value: str, *, missing: str, too_long: str) -> list[str]:
    if not value:
        return [missing]
    if len(value) > NAME_MAX_LENGTH:
        return [too_long % {"max": NAME_MAX_LENGTH}]
    try:
        validate_plain_text(value)
    except ValidationError as exc:
        return [str(message) for message in exc.messages]
    return []


def _records(reader: Any) -> Iterator[tuple[int, list[str]]]:
    """The reader's records with the number of the line each ends on. A field the reader
    cannot take (longer than csv.field_size_limit(), or a quote never closed) refuses the
    file, reported on the line where that record starts."""
    ended = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "field limit" in str(exc):
                reason = _(
                    "A field of this line is longer than %(max)d characters: is this the "
                    "players' file?"
                ) % {"max": csv.field_size_limit()}
            else:
                reason = _(
                    "A quotation mark opened on this line is never closed: close it, or "
                    "remove it (a quote inside a name in quotes is written twice)."
                )
            raise PlayerImportError([(ended + 1, [reason])]) from None
        ended = reader.line_num
        yield ended, row


def _read_lines(text: str) -> tuple[list[_Line], list[tuple[int, list[str]]]]:
    """Parse the CSV text into lines; report the problems that need no database."""
    text = text.lstrip("\ufeff")
    physical = text.splitlines()
    first = next((i for i, line in enumerate(physical) if line.strip()), None)
    if first is None:
        raise PlayerImportError(
            [(1, [_("The file is empty: its first line must be the header licence,nom,prenom.")])]
        )
    delimiter = ";" if ";" in physical[first] else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    header_line = 1
    columns: dict[str, int] = {}
    lines: list[_Line] = []
    errors: list[tuple[int, list[str]]] = []
    for line_no, row in _records(reader):
        if not any(cell.strip() for cell in row):
            continue  # blank lines and lines of bare separators, as spreadsheets write them
        if header is None:
            header, header_line = row, line_no
            for index, name in enumerate(row):
                key = HEADER_ALIASES.get(_normalise_header(name))
                if key is not None and key not in columns:
                    columns[key] = index
            missing = [c for c in REQUIRED_COLUMNS if c not in columns]
            if missing:
                raise PlayerImportError(
                    [
                        (
                            line_no,
                            [
                                _(
                                    "The first line must be the header naming the columns "
                                    "licence, nom and prenom (or licence, last_name and "
                                    "first_name); found: %(found)s."
                                )
                                % {"found": delimiter.join(row)}
                            ],
                        )
                    ]
                )
            continue
        if len(lines) + len(errors) >= MAX_LINES:
            raise PlayerImportError(
                [(line_no, [_("The file has more than %(max)d players.") % {"max": MAX_LINES}])]
            )
        if len(row) != len(header):
            errors.append(
                (
                    line_no,
                    [
                        _(
                            "This line has %(found)d fields but the header has %(expected)d: "
                            "check the separators (a name with a “%(delimiter)s” must be "
                            "in quotes)."
                        )
                        % {"found": len(row), "expected": len(header), "delimiter": delimiter}
                    ],
                )
            )
            continue
        line = _Line(
            line_no=line_no,
            licence=row[columns["licence"]].strip(),
            last_name=_clean_name(row[columns["last_name"]]),
            first_name=_clean_name(row[columns["first_name"]]),
        )
        reasons = _licence_reasons(line.licence)
        reasons += _name_reasons(
            line.last_name,
            missing=_("The last name (nom) is missing."),
            too_long=_("The last name is longer than %(max)d characters."),
        )
        reasons += _name_reasons(
            line.first_name,
            missing=_("The first name (prenom) is missing."),
            too_long=_("The first name is longer than %(max)d characters."),
        )
        if reasons:
            errors.append((line_no, reasons))
        lines.append(line)
    if header is not None and not lines and not errors:
        raise PlayerImportError([(header_line, [_("The file has a header but no player line.")])])
    return lines, errors


def _add(errors: dict[int, list[str]], line_no: int, reason: str) -> None:
    errors.setdefault(line_no, []).append(reason)


def players_import_csv(*, club: Club, text: str) -> ImportReport:
    """Create the file's new players in `club` and update the names of its known licences.

    Refuses the whole file (PlayerImportError, nothing written) when any line is bad: a bad
    licence, a missing name, a licence twice in the file, or a licence that belongs to a
    player of another club.
    """
    lines, parse_errors = _read_lines(text)
    errors: dict[int, list[str]] = {line_no: list(reasons) for line_no, reasons in parse_errors}

    first_seen: dict[str, int] = {}
    for line in lines:
        if not line.licence:
            continue
        if line.licence in first_seen:
            _add(
                errors,
                line.line_no,
                _("Licence %(licence)s is already on line %(line)d of the file.")
                % {"licence": line.licence, "line": first_seen[line.licence]},
            )
        else:
            first_seen[line.licence] = line.line_no

    with transaction.atomic():
        existing = {
            p.licence: p
            for p in Player.objects.select_for_update()
            .select_related("club")
            .filter(licence__in=list(first_seen))
        }
        for line in lines:
            player = existing.get(line.licence)
            if player is not None and player.club_id != club.pk:
                _add(
                    errors,
                    line.line_no,
                    _(
                        "Licence %(licence)s already belongs to %(player)s, a player of "
                        "another club (%(club)s)."
                    )
                    % {"licence": line.licence, "player": player.full_name, "club": player.club},
                )
        if errors:
            raise PlayerImportError(sorted(errors.items()))

        to_create: list[Player] = []
        to_update: list[Player] = []
        unchanged = 0
        for line in lines:
            player = existing.get(line.licence)
            if player is None:
                to_create.append(
                    Player(
                        club=club,
                        licence=line.licence,
                        last_name=line.last_name,
                        first_name=line.first_name,
                    )
                )
            elif (player.last_name, player.first_name) != (line.last_name, line.first_name):
                player.last_name, player.first_name = line.last_name, line.first_name
                to_update.append(player)
            else:
                unchanged += 1
        try:
            with transaction.atomic():
                Player.objects.bulk_create(to_create)
        except IntegrityError as exc:
            # Another import or form created one of these licences at the same moment.
            raise PlayerImportError(
                [
                    (
                        0,
                        [
                            _(
                                "Another change created some of these licences at the same "
                                "time: import the file again."
                            )
                        ],
                    )
                ]
            ) from exc
        Player.objects.bulk_update(to_update, ["last_name", "first_name"])
    return ImportReport(created=len(to_create), updated=len(to_update), unchanged=unchanged)


def player_create(*, club: Club, licence: str, last_name: str, first_name: str) -> Player:
    """Add a player to `club`; the model's validators decide (ValidationError on bad input)."""
    player = Player(
        club=club,
        licence=licence.strip(),
        last_name=_clean_name(last_name),
        first_name=_clean_name(first_name),
    )
    player.full_clean()
    player.save()
    return player


def player_update(*, player: Player, licence: str, last_name: str, first_name: str) -> Player:
    """Correct a player's names or licence (ValidationError on bad input, nothing saved)."""
    player.licence = licence.strip()
    player.last_name = _clean_name(last_name)
    player.first_name = _clean_name(first_name)
    player.full_clean()
    player.save(update_fields=["licence", "last_name", "first_name"])
    return player
