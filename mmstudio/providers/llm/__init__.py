"""Model-backed designer and judge (MM-WebAgent agents over the provider protocols)."""
