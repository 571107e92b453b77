"""Runtime: the running daemon. The bridge (the one owner of JSPyBridge), the Mineflayer
body, the embedded world and its supervisor, the scheduler, the HTTP API, logs, metrics,
and the composition root that builds agency and declares the jobs.
"""
