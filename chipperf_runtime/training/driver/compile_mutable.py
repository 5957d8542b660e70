"""The compile knobs (driver/compile_base.py) a vendor config may set; a case's
``config/mutable_params.py`` star-imports this file and adds ``compile_knobs``."""

compile_knobs = ["compile", "compile_mode", "compile_backend"]
