from django.contrib import admin

from .models import RankingSnapshot


@admin.register(RankingSnapshot)
class RankingSnapshotAdmin(admin.ModelAdmin):
    list_display = ["tournament", "results_version", "method", "computed_at", "duration_ms"]
    list_filter = ["tournament"]
