"""The desktop app (PySide6 + qasync): the ONLY package that imports Qt."""
