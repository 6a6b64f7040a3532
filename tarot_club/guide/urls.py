from __future__ import annotations

from django.urls import path

from tarot_club.guide import views

urlpatterns = [
    path("", views.guide, name="guide"),
    path("img/<str:language>/<str:name>", views.guide_image, name="guide_image"),
    path("<slug:slug>/", views.guide, name="guide_page"),
]
