"""The settings: every flag and PATIENCE_* variable, their defaults and how their text is read."""
