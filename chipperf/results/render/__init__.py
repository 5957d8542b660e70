"""Rendering a RunSummary: console, JSON/CSV, Markdown, README table, HTML, SVG, compare."""
