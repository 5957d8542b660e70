"""Result directories: layout, status, atomic writes, summary schema, report, compare, check."""
