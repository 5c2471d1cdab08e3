"""Access bookkeeping: a search's hits counted as recalls (access count and time feed decay and
tier moves), off the request path.

`recorder.AccessRecorder` takes a search's hit ids on a thread of its own and hands them, a batch
at a time, to `MemoryWriter.touch`, which holds the scopes' write locks and calls
`recalls.record_recalls`. In embedded mode the counts go to `sqlite_log.SqliteAccessLog` and
`overlay.AccessOverlay` adds them back to every payload read; in server mode they are written
into the payloads.
"""
