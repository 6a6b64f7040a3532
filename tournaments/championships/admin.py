from __future__ import annotations

from django.contrib import admin

from .models import Championship, ChampionshipEvent, ChampionshipLogEntry, SeasonSerie


@admin.register(Championship)
class ChampionshipAdmin(admin.ModelAdmin):
    list_display = ("name", "season_start", "season_end", "kind", "frozen_at")
    search_fields = ("name",)


@admin.register(ChampionshipEvent)
class ChampionshipEventAdmin(admin.ModelAdmin):
    list_display = ("championship", "tournament", "simultaneous_event", "agreed_at")
    raw_id_fields = ("championship", "tournament", "simultaneous_event")


@admin.register(SeasonSerie)
class SeasonSerieAdmin(admin.ModelAdmin):
    list_display = ("championship", "licence", "serie")


@admin.register(ChampionshipLogEntry)
class ChampionshipLogEntryAdmin(admin.ModelAdmin):
    list_display = ("championship", "action", "actor", "at")

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
