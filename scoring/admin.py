from django.contrib import admin

from .models import Document, RankingSnapshot, RankingState


@admin.register(RankingSnapshot)
class RankingSnapshotAdmin(admin.ModelAdmin):
    list_display = ["tournament", "results_version", "method", "computed_at", "duration_ms"]
    list_filter = ["tournament"]


@admin.register(RankingState)
class RankingStateAdmin(admin.ModelAdmin):
    list_display = ["tournament", "computations", "stale_since"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["tournament", "kind", "language", "status", "progress", "created_at"]
    list_filter = ["kind", "status"]
