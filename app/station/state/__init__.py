"""The station's state as a URL: parsing, view options, presets, interventions."""
