"""Pipeline stages: plan, layout, assets (image, video, chart), assemble."""
