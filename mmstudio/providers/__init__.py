"""Providers: chat/vision, image and video model protocols and their implementations."""
