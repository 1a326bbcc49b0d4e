"""Application services shared by the CLI and the GUI (no Qt here)."""
