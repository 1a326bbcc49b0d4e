"""The offline designer: deterministic, no network, no model."""
