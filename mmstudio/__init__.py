"""MM Studio: plan, generate, score and refine multimodal web pages (MM-WebAgent, FronTalk)."""

__version__ = "0.1.0"
