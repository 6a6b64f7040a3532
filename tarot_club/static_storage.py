"""Static files as a deployment serves them: hashed names (cached for ever by browsers, a new
name at each change) and compressed copies, written by `collectstatic`, served by WhiteNoise.

A file the manifest does not know (a checkout where collectstatic has not run, or a file added
since) keeps its plain name, which WhiteNoise serves from the apps' folders, instead of a
500 on every page.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    manifest_strict = False

    def stored_name(self, name: str) -> str:
        if not self.hashed_files:  # collectstatic has not run here
            return name
        try:
            return super().stored_name(name)
        except ValueError:  # not collected since it was added
            return name
