"""The app config of ``"idmint.django"`` in ``INSTALLED_APPS``."""

from __future__ import annotations

from django.apps import AppConfig
from django.core.signals import setting_changed


class IdmintConfig(AppConfig):
    name = "idmint.django"
    label = "idmint"
    verbose_name = "idmint"

    def ready(self) -> None:
        from . import reset

        def changed(setting: str, **_kwargs: object) -> None:
            if setting == "IDMINT":
                reset()

        setting_changed.connect(changed, weak=False, dispatch_uid="idmint.django.reset")
