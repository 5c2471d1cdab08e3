"""The one writer of the memories collection: guards, capture, importance, dedup, conflicts."""
