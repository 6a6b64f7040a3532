"""Admin screens of the hub's tables; the field and the log are read-only (uploads change them)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from . import models
from .services import invitation_revoke


@admin.register(models.SimultaneousEvent)
class SimultaneousEventAdmin(admin.ModelAdmin):
    list_display = ["name", "date", "state", "method", "sets", "rounds"]
    list_filter = ["state", "method"]
    search_fields = ["name", "public_id"]
    filter_horizontal = ["organisers"]
    readonly_fields = [
        "public_id",
        "identity",
        "commitment",
        "results_version",
        "embargo_lifted_at",
    ]
    exclude = ["seed"]


@admin.register(models.Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Revoking goes through the service (its players, results and penalties leave the
    field, its licences are freed): an action, not an editable date."""

    list_display = ["club_name", "event", "public_id", "last_sequence", "revoked_at"]
    search_fields = ["club_name", "public_id", "federation_number"]
    readonly_fields = [
        "public_id",
        "last_sequence",
        "last_upload_at",
        "final_received_at",
        "revoked_at",
    ]
    exclude = ["token_sha256"]
    actions = ["revoke"]

    @admin.action(description=_("Revoke the selected invitations (their players leave the field)"))
    def revoke(self, request: Any, queryset: Any) -> None:
        for invitation in queryset:
            invitation_revoke(invitation=invitation)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written by applying uploads only."""

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(models.UploadLog)
class UploadLogAdmin(ReadOnlyAdmin):
    list_display = ["received_at", "event", "invitation", "outcome", "code", "sequence"]
    list_filter = ["outcome", "code"]


@admin.register(models.FieldPlayer)
class FieldPlayerAdmin(ReadOnlyAdmin):
    list_display = ["licence", "last_name", "first_name", "invitation", "event"]
    search_fields = ["licence", "last_name"]


@admin.register(models.FieldResult)
class FieldResultAdmin(ReadOnlyAdmin):
    list_display = ["event", "invitation", "table", "donne", "version", "status"]


@admin.register(models.FieldPenalty)
class FieldPenaltyAdmin(ReadOnlyAdmin):
    list_display = ["event", "invitation", "ref", "licence", "points", "withdrawn"]
