"""Admin screens for the domain's tables. The ledger is read-only here."""

from __future__ import annotations

from django.contrib import admin

from . import models


@admin.register(models.Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "federation_number", "city"]
    search_fields = ["name", "federation_number", "city"]
    filter_horizontal = ["organisers"]


@admin.register(models.Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["last_name", "first_name", "licence", "club"]
    search_fields = ["last_name", "first_name", "licence"]
    list_filter = ["club"]
    raw_id_fields = ["user"]


class RegistrationInline(admin.TabularInline):
    model = models.Registration
    extra = 0
    raw_id_fields = ["player"]


@admin.register(models.Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ["name", "date", "club", "status", "method"]
    list_filter = ["status", "club", "method"]
    search_fields = ["name", "venue"]
    filter_horizontal = ["arbiters"]
    readonly_fields = ["identity", "commitment", "seed_revealed_at", "results_version"]
    exclude = ["seed", "movement"]
    inlines = [RegistrationInline]


@admin.register(models.Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number", "state"]
    list_filter = ["tournament"]


@admin.register(models.Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number", "size"]
    list_filter = ["tournament"]


@admin.register(models.EtuiSet)
class EtuiSetAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number"]
    list_filter = ["tournament"]


@admin.register(models.Donne)
class DonneAdmin(admin.ModelAdmin):
    list_display = ["tournament", "number", "etui_set", "dealer"]
    list_filter = ["tournament"]


class SeatInline(admin.TabularInline):
    model = models.Seat
    extra = 0
    raw_id_fields = ["player"]


@admin.register(models.TableRound)
class TableRoundAdmin(admin.ModelAdmin):
    list_display = ["round", "table", "etui_set", "sit_outs"]
    list_filter = ["round__tournament"]
    inlines = [SeatInline]


@admin.register(models.Result)
class ResultAdmin(admin.ModelAdmin):
    """Read-only: results change through the arbiter's screen so that the ledger is kept."""

    list_display = ["tournament", "donne", "table", "status", "contract", "version"]
    list_filter = ["tournament", "status"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(models.Penalty)
class PenaltyAdmin(ResultAdmin):
    list_display = ["tournament", "player", "kind", "points", "given_at", "withdrawn_at"]
    list_filter = ["tournament", "kind"]


@admin.register(models.LedgerEntry)
class LedgerEntryAdmin(ResultAdmin):
    list_display = ["tournament", "at", "action", "actor", "reason"]
    list_filter = ["tournament", "action"]
