"""Running services: ``labsupport serve`` / ``load`` / ``export``, background starts
(``launcher``), child processes (``procs``), replicas behind a router."""
