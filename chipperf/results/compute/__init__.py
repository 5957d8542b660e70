"""Computing figures from what was read: the schema, per-round and per-case figures, peaks."""
